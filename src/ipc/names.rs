//! The names of the contract: interfaces, object paths, the session-bus name and the limits a
//! slave enforces, with the introspection XML they come from.

/// The introspection XML of the subdocument interface, as shipped in `schemas/`.
pub const SUBDOCUMENT_XML: &str = include_str!("../../schemas/org.asgard.Subdocument1.xml");

/// The introspection XML of the rendition interface, as shipped in `schemas/`.
pub const RENDITION_XML: &str = include_str!("../../schemas/org.asgard.Rendition1.xml");

/// The introspection XML of the session-bus access interface, as shipped in `schemas/`.
pub const SESSION_ACCESS_XML: &str = include_str!("../../schemas/org.asgard.SessionAccess1.xml");

/// The interface through which a tool on the session bus presents a slave's token; served
/// beside the subdocument in session-bus mode only.
pub const SESSION_ACCESS_INTERFACE: &str = "org.asgard.SessionAccess1";

/// The interface of a slave's one subdocument object.
pub const SUBDOCUMENT_INTERFACE: &str = "org.asgard.Subdocument1";

/// The interface of each rendition object.
pub const RENDITION_INTERFACE: &str = "org.asgard.Rendition1";

/// Where the subdocument object lives.
pub const SUBDOCUMENT_PATH: &str = "/org/asgard/Asgard1/Subdocument";

/// Rendition N lives at this prefix followed by N (from 1, never reused).
pub const RENDITION_PATH_PREFIX: &str = "/org/asgard/Asgard1/Rendition/";

/// The prefix of every error name the slave answers with.
pub const ERROR_PREFIX: &str = "org.asgard.Asgard1.Error";

/// Proxies need a destination name even on a peer-to-peer connection, where nothing routes by
/// it; hosts use this one there.
pub const PEER_DESTINATION: &str = "org.asgard.Asgard1";

/// The smallest rendition width or height, in pixels.
pub const MIN_RENDITION_SIDE: u32 = 1;

/// The largest rendition width or height, in pixels: 8192² RGBA pixels are 256 MiB a buffer,
/// beyond any window a host shows.
pub const MAX_RENDITION_SIDE: u32 = 8192;

/// The well-known name a slave in session-bus mode owns: `org.asgard.Asgard1.Slave<PID>`.
pub fn slave_bus_name(pid: u32) -> String {
    format!("org.asgard.Asgard1.Slave{pid}")
}

/// The object path of rendition `n`.
pub fn rendition_path(n: u32) -> String {
    format!("{RENDITION_PATH_PREFIX}{n}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use zbus::names::{BusName, ErrorName, InterfaceName};
    use zbus::zvariant::ObjectPath;

    #[test]
    fn names_are_valid_dbus_names() {
        InterfaceName::try_from(SUBDOCUMENT_INTERFACE).unwrap();
        InterfaceName::try_from(RENDITION_INTERFACE).unwrap();
        InterfaceName::try_from(SESSION_ACCESS_INTERFACE).unwrap();
        ObjectPath::try_from(SUBDOCUMENT_PATH).unwrap();
        ObjectPath::try_from(rendition_path(1)).unwrap();
        ErrorName::try_from(format!("{ERROR_PREFIX}.Closed")).unwrap();
        BusName::try_from(slave_bus_name(4_194_304)).unwrap();
        BusName::try_from(PEER_DESTINATION).unwrap();
    }

    #[test]
    fn the_schemas_declare_these_interfaces() {
        assert!(SUBDOCUMENT_XML.contains(&format!("<interface name=\"{SUBDOCUMENT_INTERFACE}\">")));
        assert!(RENDITION_XML.contains(&format!("<interface name=\"{RENDITION_INTERFACE}\">")));
        assert!(SESSION_ACCESS_XML
            .contains(&format!("<interface name=\"{SESSION_ACCESS_INTERFACE}\">")));
        assert!(SESSION_ACCESS_XML.contains(&format!("{ERROR_PREFIX}.AccessDenied")));
        assert!(SUBDOCUMENT_XML.contains(&format!("at {SUBDOCUMENT_PATH}.")));
        assert!(RENDITION_XML.contains(&format!("at {RENDITION_PATH_PREFIX}N")));
        assert!(SUBDOCUMENT_XML.contains(&format!(
            "{MIN_RENDITION_SIDE} &lt;= width, height &lt;= {MAX_RENDITION_SIDE}"
        )));
    }
}
