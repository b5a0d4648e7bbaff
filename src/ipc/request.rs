//! The method calls of the contract as a slave receives them: a D-Bus message decoded into a
//! [`Request`], every argument checked (enumerations parsed, numbers finite, sizes within the
//! limits, rendition paths well formed) before anything acts on it.
//!
//! The slave's service gets each call's arguments unpacked by zbus and checks them with the
//! functions here ([`pointer`], [`scroll`], [`size`], [`kind`], [`seek_time`],
//! [`playing_rate`]);
//! [`Request::decode`] goes the whole way from a message, signature and path included, with
//! the same checks, for tools that read calls off the wire and for the `dbus_request` fuzz
//! target (docs/FUZZING.md). A unit test holds the decoder to the methods and signatures
//! `schemas/` declares.

use super::enums::{EditorKind, HandleKind, PlaybackMode, PointerKind, UnknownValue};
use super::input::Modifiers;
use super::names::{
    RENDITION_INTERFACE, RENDITION_PATH_PREFIX, SUBDOCUMENT_INTERFACE, SUBDOCUMENT_PATH,
};
use super::size::RenditionSize;
use super::Error;
use nalgebra::Point2;
use std::str::FromStr;
use zbus::message::{Message, Type};
use zbus::zvariant::OwnedValue;

/// A call on the subdocument object (`org.asgard.Subdocument1`).
#[derive(Clone, Debug, PartialEq)]
pub enum SubdocumentCall {
    SetSceneText(String),
    GetSceneText,
    Simulate,
    CreateRendition(RenditionSize),
    OpenEditor(EditorKind),
    SetHandlesVisible(HandleKind, bool),
}

/// A forwarded pointer event, checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointerEvent {
    pub kind: PointerKind,
    pub button: u32,
    /// Rendition pixels, finite.
    pub at: Point2<f64>,
    pub modifiers: Modifiers,
}

/// A call on rendition object N (`org.asgard.Rendition1`).
#[derive(Clone, Debug, PartialEq)]
pub enum RenditionCall {
    Resize(RenditionSize),
    Play,
    Pause,
    Seek(f64),
    /// Frames to move, back when negative.
    Step(i32),
    GetFrameBuffer,
    Pointer(PointerEvent),
    Scroll {
        dx: f64,
        dy: f64,
        modifiers: Modifiers,
    },
    Key {
        name: String,
        pressed: bool,
        modifiers: Modifiers,
    },
    Close,
}

/// A property read or write (`org.freedesktop.DBus.Properties`), on either interface.
#[derive(Clone, Debug, PartialEq)]
pub enum PropertyCall {
    Get {
        interface: String,
        name: String,
    },
    GetAll {
        interface: String,
    },
    /// Only the writable properties: a rendition's `Loop`, `Mode` and `Rate`.
    SetLoop(bool),
    SetMode(PlaybackMode),
    /// Finite; the slave refuses a speed outside 1/8 to 8.
    SetRate(f64),
}

/// Which object a call is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Object {
    Subdocument,
    /// Rendition N (from 1).
    Rendition(u32),
}

/// A decoded, checked method call.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    Subdocument(SubdocumentCall),
    Rendition(u32, RenditionCall),
    Property(Object, PropertyCall),
    /// `org.freedesktop.DBus.Introspectable.Introspect`.
    Introspect(Object),
    /// `org.freedesktop.DBus.Peer.Ping` or `GetMachineId`.
    Peer,
}

const PROPERTIES: &str = "org.freedesktop.DBus.Properties";
const INTROSPECTABLE: &str = "org.freedesktop.DBus.Introspectable";
const PEER: &str = "org.freedesktop.DBus.Peer";

/// An enumeration value from its string form; an unknown one names the valid ones.
pub fn kind<T: FromStr<Err = UnknownValue>>(text: &str) -> Result<T, Error> {
    text.parse()
        .map_err(|e: UnknownValue| Error::InvalidArgument(e.to_string()))
}

/// A rendition size within the limits.
pub fn size(width: u32, height: u32) -> Result<RenditionSize, Error> {
    RenditionSize::new(width, height).map_err(|e| Error::InvalidSize(e.to_string()))
}

/// A finite point; anything else is named in the error.
pub fn finite_point(x: f64, y: f64) -> Result<Point2<f64>, Error> {
    if x.is_finite() && y.is_finite() {
        Ok(Point2::new(x, y))
    } else {
        Err(Error::InvalidArgument(format!(
            "({x}, {y}): expected finite numbers"
        )))
    }
}

/// `Pointer(kind, button, x, y, modifiers)`'s arguments.
pub fn pointer(
    kind_name: &str,
    button: u32,
    x: f64,
    y: f64,
    modifiers: u32,
) -> Result<PointerEvent, Error> {
    Ok(PointerEvent {
        kind: kind(kind_name)?,
        button,
        at: finite_point(x, y)?,
        modifiers: Modifiers(modifiers),
    })
}

/// `Scroll(dx, dy, modifiers)`'s arguments: the steps, finite.
pub fn scroll(dx: f64, dy: f64) -> Result<(f64, f64), Error> {
    finite_point(dx, dy).map(|p| (p.x, p.y))
}

/// `Seek(time)`'s argument: a finite time (the rendition clamps it to the scene's range).
pub fn seek_time(time: f64) -> Result<f64, Error> {
    if time.is_finite() {
        Ok(time)
    } else {
        Err(Error::InvalidArgument(format!(
            "seek to {time}: expected a finite time in seconds"
        )))
    }
}

/// A playing rate (`Rate`): a finite number; its range is the transport's to check.
pub fn playing_rate(rate: f64) -> Result<f64, Error> {
    if rate.is_finite() {
        Ok(rate)
    } else {
        Err(Error::InvalidArgument(format!(
            "rate {rate}: expected a finite number of simulated seconds per second"
        )))
    }
}

/// The object a path names: the subdocument, or rendition N (`…/Rendition/N`, N from 1 in
/// decimal without leading zeros, as the slave makes them).
pub fn object(path: &str) -> Result<Object, Error> {
    if path == SUBDOCUMENT_PATH {
        return Ok(Object::Subdocument);
    }
    let number = path
        .strip_prefix(RENDITION_PATH_PREFIX)
        .filter(|n| !n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse::<u32>().ok());
    match number {
        Some(n) => Ok(Object::Rendition(n)),
        None => Err(Error::InvalidArgument(format!(
            "no object at {}: expected {SUBDOCUMENT_PATH} or {RENDITION_PATH_PREFIX}N",
            shorten(path)
        ))),
    }
}

/// At most 60 characters of `text`, for messages that quote what a host sent.
fn shorten(text: &str) -> String {
    text.chars().take(60).collect()
}

impl Request {
    /// Decodes a method call as the slave's object server would dispatch it: the path names an
    /// object, the interface and member one of its methods, the body has that method's
    /// signature, and the arguments pass the checks above.
    pub fn decode(message: &Message) -> Result<Request, Error> {
        let header = message.header();
        if message.message_type() != Type::MethodCall {
            return Err(Error::InvalidArgument(format!(
                "a {:?} message: expected a method call",
                message.message_type()
            )));
        }
        let path = header.path().map(|p| p.as_str()).unwrap_or_default();
        let member = header.member().map(|m| m.as_str()).unwrap_or_default();
        let interface = header.interface().map(|i| i.as_str());
        let object = object(path)?;
        let body = message.body();
        let unpack = |e: zbus::Error| {
            Error::InvalidArgument(format!(
                "{member}: arguments of signature '{}' do not match the method's: {e}",
                body.signature().to_string_no_parens()
            ))
        };
        let request = match (interface, object) {
            (Some(PROPERTIES), _) => Request::Property(object, property(object, member, &body)?),
            (Some(INTROSPECTABLE), _) if member == "Introspect" => Request::Introspect(object),
            (Some(PEER), _) if member == "Ping" || member == "GetMachineId" => Request::Peer,
            (Some(SUBDOCUMENT_INTERFACE), Object::Subdocument) => {
                Request::Subdocument(subdocument(member, &body, unpack)?)
            }
            (Some(RENDITION_INTERFACE), Object::Rendition(n)) => {
                Request::Rendition(n, rendition(member, &body, unpack)?)
            }
            (Some(other), _) => {
                return Err(Error::InvalidArgument(format!(
                    "{path} has no interface {}",
                    shorten(other)
                )))
            }
            (None, _) => {
                return Err(Error::InvalidArgument(format!(
                    "{member} on {path}: expected the interface to be named"
                )))
            }
        };
        Ok(request)
    }
}

fn unknown_method(interface: &str, member: &str) -> Error {
    Error::InvalidArgument(format!("{interface} has no method {}", shorten(member)))
}

fn subdocument(
    member: &str,
    body: &zbus::message::Body,
    unpack: impl Fn(zbus::Error) -> Error,
) -> Result<SubdocumentCall, Error> {
    Ok(match member {
        "SetSceneText" => SubdocumentCall::SetSceneText(body.deserialize().map_err(unpack)?),
        "GetSceneText" => {
            body.deserialize::<()>().map_err(unpack)?;
            SubdocumentCall::GetSceneText
        }
        "Simulate" => {
            body.deserialize::<()>().map_err(unpack)?;
            SubdocumentCall::Simulate
        }
        "CreateRendition" => {
            let (width, height): (u32, u32) = body.deserialize().map_err(unpack)?;
            SubdocumentCall::CreateRendition(size(width, height)?)
        }
        "OpenEditor" => {
            let name: &str = body.deserialize().map_err(unpack)?;
            SubdocumentCall::OpenEditor(kind(name)?)
        }
        "SetHandlesVisible" => {
            let (name, visible): (&str, bool) = body.deserialize().map_err(unpack)?;
            SubdocumentCall::SetHandlesVisible(kind(name)?, visible)
        }
        other => return Err(unknown_method(SUBDOCUMENT_INTERFACE, other)),
    })
}

fn rendition(
    member: &str,
    body: &zbus::message::Body,
    unpack: impl Fn(zbus::Error) -> Error,
) -> Result<RenditionCall, Error> {
    let none = || body.deserialize::<()>().map_err(&unpack);
    Ok(match member {
        "Resize" => {
            let (width, height): (u32, u32) = body.deserialize().map_err(&unpack)?;
            RenditionCall::Resize(size(width, height)?)
        }
        "Play" => none().map(|()| RenditionCall::Play)?,
        "Pause" => none().map(|()| RenditionCall::Pause)?,
        "GetFrameBuffer" => none().map(|()| RenditionCall::GetFrameBuffer)?,
        "Close" => none().map(|()| RenditionCall::Close)?,
        "Seek" => RenditionCall::Seek(seek_time(body.deserialize().map_err(&unpack)?)?),
        "Step" => RenditionCall::Step(body.deserialize().map_err(&unpack)?),
        "Pointer" => {
            let (name, button, x, y, modifiers): (&str, u32, f64, f64, u32) =
                body.deserialize().map_err(&unpack)?;
            RenditionCall::Pointer(pointer(name, button, x, y, modifiers)?)
        }
        "Scroll" => {
            let (dx, dy, modifiers): (f64, f64, u32) = body.deserialize().map_err(&unpack)?;
            let (dx, dy) = scroll(dx, dy)?;
            RenditionCall::Scroll {
                dx,
                dy,
                modifiers: Modifiers(modifiers),
            }
        }
        "Key" => {
            let (name, pressed, modifiers): (String, bool, u32) =
                body.deserialize().map_err(&unpack)?;
            RenditionCall::Key {
                name,
                pressed,
                modifiers: Modifiers(modifiers),
            }
        }
        other => return Err(unknown_method(RENDITION_INTERFACE, other)),
    })
}

/// `Get(ss)`, `GetAll(s)` and `Set(ssv)` of the properties interface, on `object`.
fn property(
    object: Object,
    member: &str,
    body: &zbus::message::Body,
) -> Result<PropertyCall, Error> {
    let unpack = |e: zbus::Error| {
        Error::InvalidArgument(format!(
            "{PROPERTIES}.{member}: arguments of signature '{}' do not match: {e}",
            body.signature().to_string_no_parens()
        ))
    };
    let own = match object {
        Object::Subdocument => SUBDOCUMENT_INTERFACE,
        Object::Rendition(_) => RENDITION_INTERFACE,
    };
    let check_interface = |interface: &str| {
        if interface == own {
            Ok(interface.to_string())
        } else {
            Err(Error::InvalidArgument(format!(
                "no properties of interface {} here: expected {own}",
                shorten(interface)
            )))
        }
    };
    match member {
        "Get" => {
            let (interface, name): (&str, &str) = body.deserialize().map_err(unpack)?;
            Ok(PropertyCall::Get {
                interface: check_interface(interface)?,
                name: name.to_string(),
            })
        }
        "GetAll" => {
            let interface: &str = body.deserialize().map_err(unpack)?;
            Ok(PropertyCall::GetAll {
                interface: check_interface(interface)?,
            })
        }
        "Set" => {
            let (interface, name, value): (&str, &str, OwnedValue) =
                body.deserialize().map_err(unpack)?;
            check_interface(interface)?;
            let wrong = |expected: &str| {
                Error::InvalidArgument(format!(
                    "{own}.{name} set to a value of signature '{}': expected {expected}",
                    value.value_signature()
                ))
            };
            match (object, name) {
                (Object::Rendition(_), "Loop") => bool::try_from(&value)
                    .map(PropertyCall::SetLoop)
                    .map_err(|_| wrong("b")),
                (Object::Rendition(_), "Mode") => {
                    let mode = <&str>::try_from(&value).map_err(|_| wrong("s"))?;
                    Ok(PropertyCall::SetMode(kind(mode)?))
                }
                (Object::Rendition(_), "Rate") => {
                    let rate = f64::try_from(&value).map_err(|_| wrong("d"))?;
                    Ok(PropertyCall::SetRate(playing_rate(rate)?))
                }
                _ => Err(Error::InvalidArgument(format!(
                    "{own} has no writable property {}",
                    shorten(name)
                ))),
            }
        }
        other => Err(unknown_method(PROPERTIES, other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::names::{rendition_path, RENDITION_XML, SUBDOCUMENT_XML};
    use zbus::zvariant::{DynamicType, Value};

    fn call<B>(path: &str, interface: &str, member: &str, body: &B) -> Message
    where
        B: serde::Serialize + DynamicType,
    {
        Message::method_call(path, member)
            .unwrap()
            .interface(interface)
            .unwrap()
            .build(body)
            .unwrap()
    }

    fn sub<B: serde::Serialize + DynamicType>(member: &str, body: &B) -> Result<Request, Error> {
        Request::decode(&call(SUBDOCUMENT_PATH, SUBDOCUMENT_INTERFACE, member, body))
    }

    fn ren<B: serde::Serialize + DynamicType>(member: &str, body: &B) -> Result<Request, Error> {
        Request::decode(&call(&rendition_path(3), RENDITION_INTERFACE, member, body))
    }

    fn invalid(result: Result<Request, Error>) -> String {
        match result {
            Err(Error::InvalidArgument(m) | Error::InvalidSize(m)) => m,
            other => panic!("expected an invalid-argument error, got {other:?}"),
        }
    }

    /// Every method of the schemas with its input signature, read from the XML.
    fn schema_methods(xml: &str) -> Vec<(String, String)> {
        let mut methods = Vec::new();
        for part in xml.split("<method name=\"").skip(1) {
            let name = part.split('"').next().unwrap().to_string();
            let body = part.split("</method>").next().unwrap();
            let signature: String = body
                .split("<arg ")
                .skip(1)
                .filter(|arg| arg.contains("direction=\"in\""))
                .map(|arg| {
                    arg.split("type=\"")
                        .nth(1)
                        .unwrap()
                        .split('"')
                        .next()
                        .unwrap()
                })
                .collect();
            methods.push((name, signature));
        }
        methods
    }

    #[test]
    fn every_schema_method_decodes_with_its_signature_and_no_other() {
        for (xml, path, interface) in [
            (
                SUBDOCUMENT_XML,
                SUBDOCUMENT_PATH.to_string(),
                SUBDOCUMENT_INTERFACE,
            ),
            (RENDITION_XML, rendition_path(1), RENDITION_INTERFACE),
        ] {
            let methods = schema_methods(xml);
            assert!(methods.len() >= 6, "{methods:?}");
            for (member, signature) in methods {
                let good: Message = match signature.as_str() {
                    "" => call(&path, interface, &member, &()),
                    "s" => call(&path, interface, &member, &("graphical",)),
                    "uu" => call(&path, interface, &member, &(64u32, 48u32)),
                    "sb" => call(&path, interface, &member, &("force", true)),
                    "d" => call(&path, interface, &member, &(1.5f64,)),
                    "suddu" => call(&path, interface, &member, &("press", 1u32, 2.0, 3.0, 0u32)),
                    "ddu" => call(&path, interface, &member, &(1.0, -1.0, 0u32)),
                    "sbu" => call(&path, interface, &member, &("Home", true, 0u32)),
                    "i" => call(&path, interface, &member, &(-2i32,)),
                    other => panic!("{member}: no sample arguments for signature {other}"),
                };
                assert_eq!(
                    good.body().signature().to_string_no_parens(),
                    signature,
                    "{member}"
                );
                let decoded = Request::decode(&good);
                assert!(decoded.is_ok(), "{member}({signature}): {decoded:?}");
                let wrong = call(&path, interface, &member, &(7i64, 8i64, 9i64));
                let message = invalid(Request::decode(&wrong));
                assert!(message.contains("signature 'xxx'"), "{member}: {message}");
            }
        }
    }

    #[test]
    fn arguments_are_checked_as_the_service_checks_them() {
        assert_eq!(
            sub("CreateRendition", &(320u32, 240u32)).unwrap(),
            Request::Subdocument(SubdocumentCall::CreateRendition(
                RenditionSize::new(320, 240).unwrap()
            ))
        );
        assert!(invalid(sub("CreateRendition", &(0u32, 240u32))).contains("0×240"));
        assert!(invalid(sub("OpenEditor", &("spreadsheet",))).contains("expected one of"));
        assert!(
            invalid(ren("Pointer", &("press", 1u32, f64::NAN, 0.0, 0u32)))
                .contains("expected finite numbers")
        );
        assert!(invalid(ren("Pointer", &("tap", 1u32, 0.0, 0.0, 0u32))).contains("tap"));
        assert!(invalid(ren("Seek", &(f64::INFINITY,))).contains("finite time"));
        assert!(invalid(ren("Scroll", &(0.0, f64::NAN, 0u32))).contains("finite"));
        assert_eq!(
            ren("Key", &("space", true, 4u32)).unwrap(),
            Request::Rendition(
                3,
                RenditionCall::Key {
                    name: "space".into(),
                    pressed: true,
                    modifiers: Modifiers::ALT
                }
            )
        );
    }

    #[test]
    fn paths_interfaces_and_members_must_be_the_contracts() {
        let at = |path: &str| Request::decode(&call(path, RENDITION_INTERFACE, "Play", &()));
        assert_eq!(
            at("/org/asgard/Asgard1/Rendition/12").unwrap(),
            Request::Rendition(12, RenditionCall::Play)
        );
        for bad in [
            "/org/asgard/Asgard1/Rendition/0",
            "/org/asgard/Asgard1/Rendition/012",
            "/org/asgard/Asgard1/Rendition/99999999999",
            "/org/asgard/Asgard1/Rendition",
            "/",
        ] {
            assert!(invalid(at(bad)).contains("no object at"), "{bad}");
        }
        // A rendition method on the subdocument object, and the other way round.
        let crossed = call(SUBDOCUMENT_PATH, RENDITION_INTERFACE, "Play", &());
        assert!(invalid(Request::decode(&crossed)).contains("has no interface"));
        assert!(invalid(ren("SetSceneText", &("x",))).contains("no method SetSceneText"));
        let unnamed = Message::method_call(SUBDOCUMENT_PATH, "Simulate")
            .unwrap()
            .build(&())
            .unwrap();
        assert!(invalid(Request::decode(&unnamed)).contains("expected the interface"));
    }

    #[test]
    fn only_writable_properties_can_be_set_and_only_with_their_type() {
        let set = |path: &str, name: &str, value: Value<'_>| {
            Request::decode(&call(
                path,
                PROPERTIES,
                "Set",
                &(RENDITION_INTERFACE, name, value),
            ))
        };
        let r = rendition_path(2);
        assert_eq!(
            set(&r, "Loop", Value::Bool(false)).unwrap(),
            Request::Property(Object::Rendition(2), PropertyCall::SetLoop(false))
        );
        assert_eq!(
            set(&r, "Mode", Value::from("live")).unwrap(),
            Request::Property(
                Object::Rendition(2),
                PropertyCall::SetMode(PlaybackMode::Live)
            )
        );
        assert_eq!(
            set(&r, "Rate", Value::F64(-0.5)).unwrap(),
            Request::Property(Object::Rendition(2), PropertyCall::SetRate(-0.5))
        );
        assert!(invalid(set(&r, "Rate", Value::F64(f64::NAN))).contains("finite"));
        assert!(invalid(set(&r, "Loop", Value::U32(1))).contains("expected b"));
        assert!(invalid(set(&r, "Mode", Value::from("fast"))).contains("expected one of"));
        assert!(invalid(set(&r, "Time", Value::F64(1.0))).contains("no writable property Time"));
        // The subdocument's properties are all read-only, and each object has its own interface.
        let on_sub = Request::decode(&call(
            SUBDOCUMENT_PATH,
            PROPERTIES,
            "Get",
            &(RENDITION_INTERFACE, "Loop"),
        ));
        assert!(invalid(on_sub).contains("expected org.asgard.Subdocument1"));
    }
}
