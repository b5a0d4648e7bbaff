//! Call frames and variables: scalars, arrays, and the links `upvar` and `global` make.

use super::{Exception, Interp};
use crate::lang::fxhash::FxHashMap;
use crate::lang::value::Value;
use std::rc::Rc;

/// One frame of variables: the global frame (level 0) or one proc call.
pub(super) struct Frame {
    pub vars: FxHashMap<Rc<str>, Var>,
    /// `info level` number of this frame.
    pub level: usize,
    /// The frame of the caller (for `uplevel` and `upvar`); the global frame is its own.
    pub parent: usize,
    /// The words of the proc call that made this frame (`info level N`).
    pub call: Value,
}

impl Frame {
    pub fn new(level: usize, parent: usize, call: Value) -> Frame {
        Frame {
            vars: FxHashMap::default(),
            level,
            parent,
            call,
        }
    }
}

pub(super) enum Var {
    Scalar(Value),
    Array(FxHashMap<String, Value>),
    /// An alias for variable `name` of frame `frame` (made by `upvar`/`global`).
    Link {
        frame: usize,
        name: Rc<str>,
    },
}

/// Splits `a(i)` into the array name and the index; other names have no index.
pub fn split_name(name: &str) -> (&str, Option<&str>) {
    if let (Some(open), true) = (name.find('('), name.ends_with(')')) {
        (&name[..open], Some(&name[open + 1..name.len() - 1]))
    } else {
        (name, None)
    }
}

/// `a` or `a(i)` as tclsh quotes it in messages.
fn full_name(name: &str, index: Option<&str>) -> String {
    match index {
        Some(i) => format!("{name}({i})"),
        None => name.to_string(),
    }
}

/// The name a variable is stored under after following links: the name as written (no
/// allocation on the common path) or the target name of a link.
pub(in crate::lang) enum Resolved<'n> {
    Written(&'n str),
    Linked(Rc<str>),
}

impl Resolved<'_> {
    fn as_str(&self) -> &str {
        match self {
            Resolved::Written(s) => s,
            Resolved::Linked(s) => s,
        }
    }

    fn to_rc(&self) -> Rc<str> {
        match self {
            Resolved::Written(s) => Rc::from(*s),
            Resolved::Linked(s) => s.clone(),
        }
    }
}

/// Looks `key` up in `map`, inserting `make()` under a newly allocated key only if missing.
fn slot_in<'m, K, V>(
    map: &'m mut FxHashMap<K, V>,
    key: &str,
    owned: impl FnOnce() -> K,
    make: impl FnOnce() -> V,
) -> &'m mut V
where
    K: std::borrow::Borrow<str> + std::hash::Hash + Eq,
{
    if !map.contains_key(key) {
        map.insert(owned(), make());
    }
    map.get_mut(key).expect("present")
}

impl Interp {
    /// The frame and name a variable name refers to from the current frame, following links
    /// (a link's target may itself have become a link later, through `uplevel` + `global`).
    pub(in crate::lang) fn resolve<'n>(&self, name: &'n str) -> (usize, Resolved<'n>) {
        let (mut frame, name) = match name.strip_prefix("::") {
            Some(global) => (0, global),
            None => (self.current, name),
        };
        let mut resolved = Resolved::Written(name);
        // Links only point at frames further out, so chains are short; the bound only
        // guards against a cycle made through `uplevel`.
        for _ in 0..self.frames.len() + 1 {
            match self.frames[frame].vars.get(resolved.as_str()) {
                Some(Var::Link { frame: f, name: n }) => {
                    frame = *f;
                    resolved = Resolved::Linked(n.clone());
                }
                _ => break,
            }
        }
        (frame, resolved)
    }

    /// The variable a name refers to from the current frame, following links: one hash
    /// lookup per hop, for the frequent read path.
    fn lookup(&self, name: &str) -> Option<&Var> {
        let (frame, name) = match name.strip_prefix("::") {
            Some(global) => (0, global),
            None => (self.current, name),
        };
        let mut var = self.frames[frame].vars.get(name);
        for _ in 0..self.frames.len() {
            match var {
                Some(Var::Link { frame, name }) => var = self.frames[*frame].vars.get(&**name),
                _ => break,
            }
        }
        var
    }

    /// Reads a variable (`index` given: an array element).
    pub(in crate::lang) fn read_var(
        &self,
        name: &str,
        index: Option<&str>,
    ) -> Result<Value, Exception> {
        let fail = |why: &str| {
            Exception::error(format!("can't read \"{}\": {why}", full_name(name, index)))
        };
        match (self.lookup(name), index) {
            (Some(Var::Scalar(v)), None) => Ok(v.clone()),
            (Some(Var::Array(_)), None) => Err(fail("variable is array")),
            (Some(Var::Scalar(_)), Some(_)) => Err(fail("variable isn't array")),
            (Some(Var::Array(map)), Some(i)) => match map.get(i) {
                Some(v) => Ok(v.clone()),
                None => Err(fail("no such element in array")),
            },
            (None | Some(Var::Link { .. }), _) => Err(fail("no such variable")),
        }
    }

    /// The slot of a variable for writing, created empty if missing.
    pub(in crate::lang) fn var_slot(
        &mut self,
        name: &str,
        index: Option<&str>,
    ) -> Result<&mut Value, Exception> {
        let fail = |why: &str| {
            Exception::error(format!("can't set \"{}\": {why}", full_name(name, index)))
        };
        let (frame, resolved) = self.resolve(name);
        let vars = &mut self.frames[frame].vars;
        let var = slot_in(
            vars,
            resolved.as_str(),
            || resolved.to_rc(),
            || match index {
                Some(_) => Var::Array(FxHashMap::default()),
                None => Var::Scalar(Value::empty()),
            },
        );
        match (var, index) {
            (Var::Scalar(v), None) => Ok(v),
            (Var::Array(_), None) => Err(fail("variable is array")),
            (Var::Scalar(_), Some(_)) => Err(fail("variable isn't array")),
            (Var::Array(map), Some(i)) => Ok(slot_in(map, i, || i.to_string(), Value::empty)),
            (Var::Link { .. }, _) => Err(fail("circular variable links")),
        }
    }

    pub(in crate::lang) fn write_var(
        &mut self,
        name: &str,
        index: Option<&str>,
        value: Value,
    ) -> Result<Value, Exception> {
        *self.var_slot(name, index)? = value.clone();
        Ok(value)
    }

    /// Whether the variable (or element) exists.
    pub(in crate::lang) fn var_exists(&self, name: &str, index: Option<&str>) -> bool {
        let (frame, resolved) = self.resolve(name);
        match (self.frames[frame].vars.get(resolved.as_str()), index) {
            (Some(Var::Scalar(_) | Var::Array(_)), None) => true,
            (Some(Var::Array(map)), Some(i)) => map.contains_key(i),
            _ => false,
        }
    }

    pub(in crate::lang) fn unset_var(
        &mut self,
        name: &str,
        index: Option<&str>,
    ) -> Result<(), Exception> {
        let fail = |why: &str| {
            Exception::error(format!("can't unset \"{}\": {why}", full_name(name, index)))
        };
        let (frame, resolved) = self.resolve(name);
        let vars = &mut self.frames[frame].vars;
        match (vars.get_mut(resolved.as_str()), index) {
            (Some(Var::Scalar(_) | Var::Array(_)), None) => {
                vars.remove(resolved.as_str());
                Ok(())
            }
            (Some(Var::Array(map)), Some(i)) => match map.remove(i) {
                Some(_) => Ok(()),
                None => Err(fail("no such element in array")),
            },
            (Some(Var::Scalar(_)), Some(_)) => Err(fail("variable isn't array")),
            _ => Err(fail("no such variable")),
        }
    }

    /// The array a name refers to, if it is one.
    pub(in crate::lang) fn array(&self, name: &str) -> Option<&FxHashMap<String, Value>> {
        let (frame, resolved) = self.resolve(name);
        match self.frames[frame].vars.get(resolved.as_str()) {
            Some(Var::Array(map)) => Some(map),
            _ => None,
        }
    }

    /// The array a name refers to for modification, created if the variable does not exist.
    pub(in crate::lang) fn array_mut(
        &mut self,
        name: &str,
    ) -> Result<&mut FxHashMap<String, Value>, Exception> {
        let (frame, resolved) = self.resolve(name);
        let var = slot_in(
            &mut self.frames[frame].vars,
            resolved.as_str(),
            || resolved.to_rc(),
            || Var::Array(FxHashMap::default()),
        );
        match var {
            Var::Array(map) => Ok(map),
            _ => Err(Exception::error(format!(
                "can't set \"{name}(...)\": variable isn't array"
            ))),
        }
    }

    /// Makes `local` in the current frame an alias for `target` in frame `frame`.
    pub(in crate::lang) fn link_var(
        &mut self,
        frame: usize,
        target: &str,
        local: &str,
    ) -> Result<(), Exception> {
        if split_name(local).1.is_some() {
            return Err(Exception::error(format!(
                "bad variable name \"{local}\": can't create a scalar variable that looks like \
                 an array element"
            )));
        }
        let saved = self.current;
        self.current = frame;
        let (to_frame, to_name) = self.resolve(target);
        self.current = saved;
        if to_frame == self.current && to_name.as_str() == local {
            return Err(Exception::error("can't upvar from variable to itself"));
        }
        match self.frames[self.current].vars.get(local) {
            Some(Var::Scalar(_) | Var::Array(_)) => Err(Exception::error(format!(
                "variable \"{local}\" already exists"
            ))),
            _ => {
                self.frames[self.current].vars.insert(
                    Rc::from(local),
                    Var::Link {
                        frame: to_frame,
                        name: to_name.to_rc(),
                    },
                );
                Ok(())
            }
        }
    }

    /// Names of the variables visible in the current frame (including links to existing ones).
    pub(in crate::lang) fn var_names(&self) -> Vec<String> {
        let frame = &self.frames[self.current];
        frame
            .vars
            .iter()
            .filter(|(name, var)| match var {
                Var::Link { .. } => self.var_exists(name, None),
                _ => true,
            })
            .map(|(name, _)| name.to_string())
            .collect()
    }
}

impl Interp {
    /// Runs `f` with the current frame set to `frame` (for `uplevel`).
    pub(in crate::lang) fn in_frame<T>(
        &mut self,
        frame: usize,
        f: impl FnOnce(&mut Interp) -> T,
    ) -> T {
        let saved = std::mem::replace(&mut self.current, frame);
        let result = f(self);
        self.current = saved;
        result
    }

    /// The frame `level` designates from the current one: `N` levels up, or `#N` absolute.
    pub(in crate::lang) fn frame_at(&self, level: &str) -> Option<usize> {
        let current_level = self.frames[self.current].level;
        let target = match level.strip_prefix('#') {
            Some(abs) => abs.parse::<usize>().ok()?,
            None => current_level.checked_sub(level.parse::<usize>().ok()?)?,
        };
        if target > current_level {
            return None;
        }
        let mut frame = self.current;
        while self.frames[frame].level > target {
            frame = self.frames[frame].parent;
        }
        Some(frame)
    }

    pub(in crate::lang) fn frame_level(&self, frame: usize) -> usize {
        self.frames[frame].level
    }

    pub(in crate::lang) fn frame_call(&self, frame: usize) -> Value {
        self.frames[frame].call.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::split_name;

    #[test]
    fn element_names_split_at_the_first_parenthesis() {
        assert_eq!(split_name("a(b)"), ("a", Some("b")));
        assert_eq!(split_name("a(b(c))"), ("a", Some("b(c)")));
        assert_eq!(split_name("a"), ("a", None));
        assert_eq!(split_name("a(b"), ("a(b", None));
    }
}
