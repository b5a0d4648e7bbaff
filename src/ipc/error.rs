//! The named errors of the contract (`org.asgard.Asgard1.Error.*`). The slave answers with
//! them; a host's proxy calls return them, so a host can tell a bad scene from a dead slave.

/// An error a call on a subdocument or rendition answers with. Every variant but `ZBus` carries
/// the message the slave wrote, which says what was expected.
#[derive(Debug, zbus::DBusError)]
#[zbus(prefix = "org.asgard.Asgard1.Error")]
pub enum Error {
    /// The call did not reach the slave, or its reply was not understood (the slave died, the
    /// connection closed, a D-Bus error of another name).
    #[zbus(error)]
    ZBus(zbus::Error),
    /// The scene text does not evaluate: `LINE:COLUMN: MESSAGE`.
    InvalidScene(String),
    /// A rendition size outside the limits.
    InvalidSize(String),
    /// An unknown enumeration value or a non-finite number.
    InvalidArgument(String),
    /// A call on a rendition after its `Close()`.
    Closed(String),
    /// A facility this slave cannot offer (no display for editor windows, …).
    NotAvailable(String),
    /// A caller the slave does not answer: on the session bus, one that neither started the
    /// slave nor authenticated with its token (`org.asgard.SessionAccess1`).
    AccessDenied(String),
    /// An internal failure (rendering, memory); the slave keeps serving.
    Failed(String),
}

impl Error {
    /// The message without the error name, for showing to a user.
    pub fn message(&self) -> String {
        match self {
            Error::ZBus(zbus::Error::MethodError(_, Some(message), _)) => message.clone(),
            Error::ZBus(e) => e.to_string(),
            Error::InvalidScene(m)
            | Error::InvalidSize(m)
            | Error::InvalidArgument(m)
            | Error::Closed(m)
            | Error::NotAvailable(m)
            | Error::AccessDenied(m)
            | Error::Failed(m) => m.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::names::{ERROR_PREFIX, RENDITION_XML, SUBDOCUMENT_XML};
    use zbus::DBusError;

    fn all() -> Vec<Error> {
        let m = || "m".to_string();
        vec![
            Error::InvalidScene(m()),
            Error::InvalidSize(m()),
            Error::InvalidArgument(m()),
            Error::Closed(m()),
            Error::NotAvailable(m()),
            Error::AccessDenied(m()),
            Error::Failed(m()),
        ]
    }

    #[test]
    fn names_are_under_the_prefix_and_documented() {
        for e in all() {
            let name = e.name().to_string();
            assert!(name.starts_with(&format!("{ERROR_PREFIX}.")), "{name}");
            assert!(
                SUBDOCUMENT_XML.contains(&name),
                "{name} is not in the schema"
            );
            assert_eq!(e.description(), Some("m"));
        }
        assert!(RENDITION_XML.contains(&format!("{ERROR_PREFIX}.Closed")));
    }

    #[test]
    fn a_method_error_of_a_known_name_becomes_its_variant() {
        let e = Error::from(zbus::Error::MethodError(
            zbus::names::OwnedErrorName::try_from(format!("{ERROR_PREFIX}.InvalidSize")).unwrap(),
            Some("a rendition of 0×0 pixels".into()),
            zbus::message::Message::method_call("/", "Ping")
                .unwrap()
                .build(&())
                .unwrap(),
        ));
        assert!(matches!(&e, Error::InvalidSize(m) if m == "a rendition of 0×0 pixels"));
        assert_eq!(e.message(), "a rendition of 0×0 pixels");
    }
}
