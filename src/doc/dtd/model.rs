//! Element content models (`(TO, FROM, CC*, SUBJECT, BODY)`, `(#PCDATA)`, `(A | B)+`) and the
//! automaton that checks a sequence of child elements against one.
//!
//! The model is compiled into a position automaton (Glushkov's construction): every element
//! name in the model is a position, and the automaton records which positions may come first,
//! which may follow each position and which may come last. Checking children is then a walk
//! over sets of positions that can also say, at any point, which names were expected.

use std::collections::BTreeSet;

/// How often a particle may occur: once, `?`, `*` or `+`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Occurrence {
    Once,
    Optional,
    ZeroOrMore,
    OneOrMore,
}

/// A piece of a content model as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Particle {
    Element(String, Occurrence),
    /// `#PCDATA`: character data, which the automaton does not see (text is checked apart).
    PcData,
    /// `(a, b, …)`: in this order.
    Seq(Vec<Particle>, Occurrence),
    /// `(a | b | …)`: one of them.
    Choice(Vec<Particle>, Occurrence),
}

/// A compiled content model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContentModel {
    /// Whether character data may appear among the children (`#PCDATA` in the model).
    pub mixed: bool,
    /// The element name at each position.
    names: Vec<String>,
    first: BTreeSet<usize>,
    follow: Vec<BTreeSet<usize>>,
    last: BTreeSet<usize>,
    nullable: bool,
}

/// The first, last and nullable facts of a sub-model, during compilation.
struct Fragment {
    first: BTreeSet<usize>,
    last: BTreeSet<usize>,
    nullable: bool,
}

impl ContentModel {
    pub fn compile(model: &Particle) -> ContentModel {
        let mut compiled = ContentModel {
            mixed: false,
            names: Vec::new(),
            first: BTreeSet::new(),
            follow: Vec::new(),
            last: BTreeSet::new(),
            nullable: false,
        };
        let fragment = compiled.fragment(model);
        compiled.first = fragment.first;
        compiled.last = fragment.last;
        compiled.nullable = fragment.nullable;
        compiled
    }

    fn fragment(&mut self, particle: &Particle) -> Fragment {
        let (fragment, occurrence) = match particle {
            Particle::PcData => {
                self.mixed = true;
                let empty = Fragment {
                    first: BTreeSet::new(),
                    last: BTreeSet::new(),
                    nullable: true,
                };
                return empty;
            }
            Particle::Element(name, occurrence) => {
                let position = self.names.len();
                self.names.push(name.clone());
                self.follow.push(BTreeSet::new());
                let only = BTreeSet::from([position]);
                let fragment = Fragment {
                    first: only.clone(),
                    last: only,
                    nullable: false,
                };
                (fragment, *occurrence)
            }
            Particle::Seq(items, occurrence) => {
                let mut items = items.iter();
                let mut acc = match items.next() {
                    Some(item) => self.fragment(item),
                    None => Fragment {
                        first: BTreeSet::new(),
                        last: BTreeSet::new(),
                        nullable: true,
                    },
                };
                for item in items {
                    let next = self.fragment(item);
                    for &p in &acc.last {
                        self.follow[p].extend(&next.first);
                    }
                    if acc.nullable {
                        acc.first.extend(&next.first);
                    }
                    let mut last = next.last;
                    if next.nullable {
                        last.extend(&acc.last);
                    }
                    acc.last = last;
                    acc.nullable &= next.nullable;
                }
                (acc, *occurrence)
            }
            Particle::Choice(items, occurrence) => {
                let mut acc = Fragment {
                    first: BTreeSet::new(),
                    last: BTreeSet::new(),
                    nullable: false,
                };
                for item in items {
                    let next = self.fragment(item);
                    acc.first.extend(next.first);
                    acc.last.extend(next.last);
                    acc.nullable |= next.nullable;
                }
                (acc, *occurrence)
            }
        };
        self.apply(fragment, occurrence)
    }

    fn apply(&mut self, mut fragment: Fragment, occurrence: Occurrence) -> Fragment {
        if matches!(occurrence, Occurrence::ZeroOrMore | Occurrence::OneOrMore) {
            for &p in &fragment.last {
                self.follow[p].extend(&fragment.first);
            }
        }
        if matches!(occurrence, Occurrence::Optional | Occurrence::ZeroOrMore) {
            fragment.nullable = true;
        }
        fragment
    }

    /// A matcher at the start of an element's content.
    pub fn matcher(&self) -> Matcher<'_> {
        Matcher {
            model: self,
            state: None,
        }
    }
}

/// Where a walk over an element's children stands in its content model.
pub struct Matcher<'a> {
    model: &'a ContentModel,
    /// The positions the last child may have matched; `None` before the first child.
    state: Option<BTreeSet<usize>>,
}

impl Matcher<'_> {
    fn candidates(&self) -> BTreeSet<usize> {
        match &self.state {
            None => self.model.first.clone(),
            Some(positions) => positions
                .iter()
                .flat_map(|&p| self.model.follow[p].iter().copied())
                .collect(),
        }
    }

    /// Takes a child element named `name`; false (and no step) when the model does not allow
    /// it here.
    pub fn step(&mut self, name: &str) -> bool {
        let next: BTreeSet<usize> = self
            .candidates()
            .into_iter()
            .filter(|&p| self.model.names[p].eq_ignore_ascii_case(name))
            .collect();
        if next.is_empty() {
            return false;
        }
        self.state = Some(next);
        true
    }

    /// After `step` refused `name`, moves on as if the elements missing before it had been
    /// there, when `name` can come later in the model; else stays put, as if `name` were
    /// absent. Either way one misplaced or missing element yields one error, not a cascade.
    pub fn recover(&mut self, name: &str) {
        let mut reachable = self.candidates();
        let mut frontier: Vec<usize> = reachable.iter().copied().collect();
        while let Some(p) = frontier.pop() {
            for &q in &self.model.follow[p] {
                if reachable.insert(q) {
                    frontier.push(q);
                }
            }
        }
        let matching: BTreeSet<usize> = reachable
            .into_iter()
            .filter(|&p| self.model.names[p].eq_ignore_ascii_case(name))
            .collect();
        if !matching.is_empty() {
            self.state = Some(matching);
        }
    }

    /// Whether the content may end here.
    pub fn accepts_end(&self) -> bool {
        match &self.state {
            None => self.model.nullable,
            Some(positions) => positions.iter().any(|p| self.model.last.contains(p)),
        }
    }

    /// The element names that may come next, in model order without repeats.
    pub fn expected(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for p in self.candidates() {
            let name = &self.model.names[p];
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Occurrence::*;

    fn el(name: &str, occurrence: Occurrence) -> Particle {
        Particle::Element(name.to_string(), occurrence)
    }

    fn accepts(model: &ContentModel, children: &[&str]) -> bool {
        let mut m = model.matcher();
        children.iter().all(|c| m.step(c)) && m.accepts_end()
    }

    #[test]
    fn sequence_with_optional_and_repeated_parts() {
        // (TO, FROM, CC*, DATE?, SUBJECT, BODY)
        let model = ContentModel::compile(&Particle::Seq(
            vec![
                el("TO", Once),
                el("FROM", Once),
                el("CC", ZeroOrMore),
                el("DATE", Optional),
                el("SUBJECT", Once),
                el("BODY", Once),
            ],
            Once,
        ));
        assert!(!model.mixed);
        assert!(accepts(&model, &["TO", "FROM", "SUBJECT", "BODY"]));
        assert!(accepts(
            &model,
            &["TO", "FROM", "CC", "CC", "DATE", "SUBJECT", "BODY"]
        ));
        assert!(!accepts(
            &model,
            &["TO", "FROM", "DATE", "CC", "SUBJECT", "BODY"]
        ));
        assert!(!accepts(&model, &["TO", "FROM", "SUBJECT"]));

        let mut m = model.matcher();
        assert!(m.step("to") && m.step("FROM"));
        assert_eq!(m.expected(), ["CC", "DATE", "SUBJECT"]);
        assert!(!m.step("BODY"));
        assert!(!m.accepts_end());
        m.recover("BODY");
        assert!(m.accepts_end());

        let mut m = model.matcher();
        assert!(m.step("TO"));
        assert!(!m.step("MISC"));
        m.recover("MISC");
        assert!(m.step("FROM"));
    }

    #[test]
    fn repeated_choices_and_mixed_content() {
        // (HEADING | PARAGRAPH)+
        let body = ContentModel::compile(&Particle::Choice(
            vec![el("HEADING", Once), el("PARAGRAPH", Once)],
            OneOrMore,
        ));
        assert!(!accepts(&body, &[]));
        assert!(accepts(&body, &["PARAGRAPH", "HEADING", "PARAGRAPH"]));

        // (#PCDATA)
        let text = ContentModel::compile(&Particle::Seq(vec![Particle::PcData], Once));
        assert!(text.mixed);
        assert!(accepts(&text, &[]));
        assert!(!accepts(&text, &["B"]));

        // (#PCDATA | EMPH)*
        let mixed = ContentModel::compile(&Particle::Choice(
            vec![Particle::PcData, el("EMPH", Once)],
            ZeroOrMore,
        ));
        assert!(mixed.mixed);
        assert!(accepts(&mixed, &["EMPH", "EMPH"]));
    }

    #[test]
    fn nested_groups() {
        // ((A, B)+, C?)
        let model = ContentModel::compile(&Particle::Seq(
            vec![
                Particle::Seq(vec![el("A", Once), el("B", Once)], OneOrMore),
                el("C", Optional),
            ],
            Once,
        ));
        assert!(accepts(&model, &["A", "B", "A", "B", "C"]));
        assert!(accepts(&model, &["A", "B"]));
        assert!(!accepts(&model, &["A", "B", "A"]));
        assert!(!accepts(&model, &["C"]));
        let mut m = model.matcher();
        assert!(m.step("A") && m.step("B"));
        assert_eq!(m.expected(), ["A", "C"]);
        assert!(m.accepts_end());
    }
}
