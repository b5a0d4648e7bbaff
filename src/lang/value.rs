//! Values: Tcl's "everything is a string", with cheap clones and cached interpretations.
//!
//! A [`Value`] is a reference-counted cell holding a string and, computed on first use, its
//! interpretation as a list, a number and (for bodies) compiled code. Any of them may be the
//! primary form: `list a b` makes a value that is a list until someone asks for its string;
//! `expr` results are numbers until printed. Clones share everything, so looping over a list
//! or re-running a cached `proc` body never re-parses.
//!
//! A value that is an unmodified literal of the scene text remembers where it came from
//! ([`Value::origin`]): braced words, plain words and the elements of lists parsed from such
//! values. When such a value is evaluated as a script its commands are located in the text,
//! however it travelled (a variable, a proc argument, a list element).

use super::code::Compiled;
use super::list;
use super::number::{self, Number};
use super::span::Span;
use std::cell::OnceCell;
use std::fmt;
use std::rc::Rc;

/// Heap bytes one new value takes beyond its text and elements: the shared cell with its
/// reference counts, as the allocator rounds it. Built-ins multiply it by the number of values
/// they are about to make, to refuse a result that would not fit in the memory limit.
pub const VALUE_COST: usize =
    (std::mem::size_of::<Repr>() + 2 * std::mem::size_of::<usize>() + 8).next_multiple_of(16);

/// A Tcl value. Cloning is a reference-count increment.
#[derive(Clone)]
pub struct Value(Rc<Repr>);

struct Repr {
    text: OnceCell<String>,
    list: OnceCell<Result<Vec<Value>, String>>,
    number: OnceCell<Option<Number>>,
    code: OnceCell<Compiled>,
    origin: Option<Span>,
}

impl Repr {
    fn new(origin: Option<Span>) -> Repr {
        Repr {
            text: OnceCell::new(),
            list: OnceCell::new(),
            number: OnceCell::new(),
            code: OnceCell::new(),
            origin,
        }
    }
}

impl Drop for Repr {
    /// Drops nested lists iteratively: a list nested a million deep (`while 1 {lappend l $l}`)
    /// must not overflow the stack when it goes away.
    fn drop(&mut self) {
        let Some(Ok(items)) = self.list.take() else {
            return;
        };
        let mut pending = items;
        while let Some(Value(rc)) = pending.pop() {
            if let Ok(mut inner) = Rc::try_unwrap(rc) {
                if let Some(Ok(children)) = inner.list.take() {
                    pending.extend(children);
                }
            }
        }
    }
}

impl Value {
    /// The empty string.
    pub fn empty() -> Value {
        Value::from("")
    }

    /// A string that is an unmodified literal of the scene text at `origin`.
    pub fn literal(text: impl Into<String>, origin: Span) -> Value {
        let repr = Repr::new(Some(origin));
        let _ = repr.text.set(text.into());
        Value(Rc::new(repr))
    }

    pub fn from_int(i: i64) -> Value {
        let repr = Repr::new(None);
        let _ = repr.number.set(Some(Number::Int(i)));
        Value(Rc::new(repr))
    }

    pub fn from_float(f: f64) -> Value {
        let repr = Repr::new(None);
        let _ = repr.number.set(Some(Number::Float(f)));
        Value(Rc::new(repr))
    }

    pub fn from_number(n: Number) -> Value {
        match n {
            Number::Int(i) => Value::from_int(i),
            Number::Float(f) => Value::from_float(f),
        }
    }

    pub fn from_bool(b: bool) -> Value {
        Value::from_int(i64::from(b))
    }

    /// A list of the given elements.
    pub fn from_list(items: Vec<Value>) -> Value {
        let repr = Repr::new(None);
        let _ = repr.list.set(Ok(items));
        Value(Rc::new(repr))
    }

    /// The string form.
    pub fn as_str(&self) -> &str {
        self.0.text.get_or_init(|| {
            if let Some(Some(n)) = self.0.number.get() {
                return number::format_number(*n);
            }
            match self.0.list.get() {
                Some(Ok(items)) => list::format(items),
                _ => unreachable!("a value always has a string, number or list form"),
            }
        })
    }

    /// The list interpretation, or tclsh's message for why the string is not a list.
    pub fn as_list(&self) -> Result<&[Value], &str> {
        let parsed = self
            .0
            .list
            .get_or_init(|| list::parse(self.as_str(), self.0.origin));
        match parsed {
            Ok(items) => Ok(items),
            Err(message) => Err(message),
        }
    }

    /// The numeric interpretation, if the string is a Tcl number.
    pub fn as_number(&self) -> Option<Number> {
        *self
            .0
            .number
            .get_or_init(|| number::parse_number(self.as_str()))
    }

    pub fn as_int(&self) -> Option<i64> {
        match self.as_number()? {
            Number::Int(i) => Some(i),
            Number::Float(_) => None,
        }
    }

    pub fn as_float(&self) -> Option<f64> {
        self.as_number().map(Number::as_f64)
    }

    /// Tcl's boolean reading: numbers (non-zero is true) and `true false yes no on off` in any
    /// case, or an unambiguous prefix of them.
    pub fn as_bool(&self) -> Option<bool> {
        if let Some(n) = self.as_number() {
            return Some(n.as_f64() != 0.0);
        }
        number::parse_boolean(self.as_str())
    }

    /// Where in the scene text this value was written, if it is an unmodified literal.
    pub fn origin(&self) -> Option<Span> {
        self.0.origin
    }

    /// The compiled form cached on this value (see [`super::code`]).
    pub(super) fn compiled(&self) -> &OnceCell<Compiled> {
        &self.0.code
    }

    /// Whether the string form has already been computed (so `len` is cheap).
    pub fn has_text(&self) -> bool {
        self.0.text.get().is_some()
    }

    /// The list held by this value, made unique for in-place modification (`lappend`, `lset`):
    /// shared only with nobody else, with its other forms dropped since they are about to be
    /// stale. Fails with tclsh's message if the value is not a list.
    pub fn list_mut(&mut self) -> Result<&mut Vec<Value>, String> {
        if let Err(e) = self.as_list() {
            return Err(e.to_string());
        }
        if Rc::get_mut(&mut self.0).is_none() {
            let items = self.as_list().map(<[Value]>::to_vec).unwrap_or_default();
            *self = Value::from_list(items);
        }
        let repr = Rc::get_mut(&mut self.0).expect("unique");
        repr.text.take();
        repr.number.take();
        repr.code.take();
        repr.origin = None;
        match repr.list.get_mut() {
            Some(Ok(items)) => Ok(items),
            _ => unreachable!("checked to be a list above"),
        }
    }

    /// The string held by this value, made unique for in-place appending (`append`).
    pub fn string_mut(&mut self) -> &mut String {
        if Rc::get_mut(&mut self.0).is_none() || self.0.text.get().is_none() {
            *self = Value::from(self.as_str().to_string());
        }
        let repr = Rc::get_mut(&mut self.0).expect("unique");
        repr.list.take();
        repr.number.take();
        repr.code.take();
        repr.origin = None;
        repr.text.get_mut().expect("has text")
    }

    /// Whether other handles share this value, so that modifying it in place would copy it.
    pub fn is_shared(&self) -> bool {
        Rc::strong_count(&self.0) > 1
    }

    /// Whether two handles are the same value object (not merely equal strings).
    pub fn ptr_eq(&self, other: &Value) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::from(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        let repr = Repr::new(None);
        let _ = repr.text.set(s);
        Value(Rc::new(repr))
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::from_int(i)
    }
}

impl From<f64> for Value {
    fn from(f: f64) -> Value {
        Value::from_float(f)
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for Value {
    /// String equality, as Tcl compares values.
    fn eq(&self, other: &Value) -> bool {
        self.ptr_eq(other) || self.as_str() == other.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_convert_lazily_and_consistently() {
        let l = Value::from_list(vec![Value::from("a b"), Value::from_int(3)]);
        assert_eq!(l.as_str(), "{a b} 3");
        let n = Value::from_float(0.5);
        assert_eq!(n.as_str(), "0.5");
        let s = Value::from(" 0x10 ");
        assert_eq!(s.as_int(), Some(16));
        assert_eq!(Value::from("a {b c}").as_list().unwrap().len(), 2);
        assert!(Value::from("a {b").as_list().is_err());
    }

    #[test]
    fn literals_give_their_list_elements_origins() {
        let v = Value::literal("x {a b} \"c\" d\\ne", Span::new(10, 26));
        let items = v.as_list().unwrap();
        assert_eq!(items[0].origin(), Some(Span::new(10, 11)));
        assert_eq!(items[1].origin(), Some(Span::new(13, 16)));
        assert_eq!(items[2].origin(), Some(Span::new(19, 20)));
        // An element with a backslash sequence is not the text as written.
        assert_eq!(items[3].origin(), None);
    }

    #[test]
    fn in_place_edits_do_not_touch_shared_copies() {
        let mut a = Value::from_list(vec![Value::from("x")]);
        let b = a.clone();
        a.list_mut().unwrap().push(Value::from("y"));
        assert_eq!(a.as_str(), "x y");
        assert_eq!(b.as_str(), "x");
        let mut s = Value::literal("ab", Span::new(0, 2));
        s.string_mut().push('c');
        assert_eq!(s.as_str(), "abc");
        assert_eq!(s.origin(), None);
    }

    #[test]
    fn booleans_accept_words_and_prefixes() {
        assert_eq!(Value::from("Yes").as_bool(), Some(true));
        assert_eq!(Value::from("of").as_bool(), Some(false));
        assert_eq!(Value::from("o").as_bool(), None);
        assert_eq!(Value::from("0.0").as_bool(), Some(false));
        assert_eq!(Value::from("maybe").as_bool(), None);
    }
}
