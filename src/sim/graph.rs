//! Partitioning (section 5.2.1): the state-variable reference graph, its strongly connected
//! components found by an iterative Tarjan, and the component DAG in topological order.
//!
//! Equations that depend on one another circularly must be solved together; equations that do
//! not must be solved apart so each can take its own timestep. The components of the reference
//! graph are exactly that split. They are numbered so that every component comes after all the
//! components it reads: component ids are a topological order.

use super::system::{System, VarId};

/// A directed graph on nodes `0..n` in compressed adjacency form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Digraph {
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

impl Digraph {
    /// The graph with an arc `v → w` for every `w` in `successors[v]`.
    pub fn from_successors(successors: &[Vec<u32>]) -> Digraph {
        let mut offsets = Vec::with_capacity(successors.len() + 1);
        offsets.push(0);
        let mut targets = Vec::new();
        for list in successors {
            targets.extend_from_slice(list);
            offsets.push(targets.len());
        }
        Digraph { offsets, targets }
    }

    /// The reference graph of `system`: an arc `i → j` when `f_i` reads `x_j`.
    pub fn of_system(system: &System) -> Digraph {
        let mut offsets = Vec::with_capacity(system.len() + 1);
        offsets.push(0);
        let mut targets = Vec::new();
        for v in system.variables() {
            targets.extend(v.reads().iter().map(|r| r.0));
            offsets.push(targets.len());
        }
        Digraph { offsets, targets }
    }

    pub fn node_count(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn successors(&self, node: usize) -> &[u32] {
        &self.targets[self.offsets[node]..self.offsets[node + 1]]
    }
}

/// The strongly connected components of `graph`: for each node its component number, and the
/// number of components. Components are numbered in the order Tarjan's algorithm completes
/// them, so every component is numbered after all components reachable from it.
///
/// Iterative (an explicit stack instead of recursion): graphs of millions of nodes in one long
/// chain do not overflow the thread's stack.
pub fn strongly_connected(graph: &Digraph) -> (Vec<u32>, usize) {
    const UNSEEN: u32 = u32::MAX;
    let n = graph.node_count();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut component = vec![UNSEEN; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    // Call frames: (node, position of the next successor to visit).
    let mut frames: Vec<(u32, usize)> = Vec::new();
    let mut next_index = 0u32;
    let mut count = 0u32;

    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root as u32);
        on_stack[root] = true;
        frames.push((root as u32, 0));

        while let Some(frame) = frames.last_mut() {
            let v = frame.0 as usize;
            let successors = graph.successors(v);
            if let Some(&w) = successors.get(frame.1) {
                frame.1 += 1;
                let w = w as usize;
                if index[w] == UNSEEN {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w as u32);
                    on_stack[w] = true;
                    frames.push((w as u32, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            frames.pop();
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    component[w as usize] = count;
                    if w as usize == v {
                        break;
                    }
                }
                count += 1;
            }
            if let Some(parent) = frames.last() {
                let p = parent.0 as usize;
                low[p] = low[p].min(low[v]);
            }
        }
    }
    (component, count as usize)
}

/// Identifies one component of a [`Partition`]. Ids are a topological order: a component's id
/// is larger than the ids of all the components it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComponentId(pub u32);

impl ComponentId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One list of `T` per item, stored contiguously.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Lists<T> {
    offsets: Vec<usize>,
    items: Vec<T>,
}

impl<T> Lists<T> {
    fn from_vecs(lists: Vec<Vec<T>>) -> Lists<T> {
        let mut offsets = Vec::with_capacity(lists.len() + 1);
        offsets.push(0);
        let mut items = Vec::with_capacity(lists.iter().map(Vec::len).sum());
        for list in lists {
            items.extend(list);
            offsets.push(items.len());
        }
        Lists { offsets, items }
    }

    fn with_capacity(lists: usize, items: usize) -> Lists<T> {
        let mut offsets = Vec::with_capacity(lists + 1);
        offsets.push(0);
        Lists {
            offsets,
            items: Vec::with_capacity(items),
        }
    }

    /// Appends one more list.
    fn push(&mut self, list: &[T])
    where
        T: Clone,
    {
        self.items.extend_from_slice(list);
        self.offsets.push(self.items.len());
    }

    fn get(&self, k: usize) -> &[T] {
        &self.items[self.offsets[k]..self.offsets[k + 1]]
    }
}

/// The split of a system into components that are integrated separately, and the dependencies
/// between them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    component_of: Vec<ComponentId>,
    local_index: Vec<u32>,
    members: Lists<VarId>,
    inputs: Lists<VarId>,
    depends_on: Lists<ComponentId>,
    dependents: Lists<ComponentId>,
}

impl Partition {
    /// The strongly connected components of `system`'s reference graph. The system must be
    /// valid ([`System::validate`]).
    pub fn of_system(system: &System) -> Partition {
        let (component_of, count) = strongly_connected(&Digraph::of_system(system));
        Partition::from_assignment(system, &component_of, count, None)
    }

    /// The partition of `system`, an edit of the system this partition is of in which only
    /// the variables `changed` (and the new ones, past this partition's) have new equations or
    /// read other variables: equal, component for component, to [`Partition::of_system`]
    /// of `system`, at a cost that follows the edit.
    ///
    /// Only components that can change are computed again: a component none of whose
    /// variables changed keeps its members (its edges are the same, so it cannot split, and a
    /// merger would close a cycle through a changed variable, which puts it among the
    /// recomputed). Tarjan's algorithm runs over what the changed variables and the other
    /// members of their old components reach, a set closed under reads, so its components
    /// there are exact. The recomputed components come first, in Tarjan's order, then the
    /// kept ones in their old order: neither reads a later one, so the ids stay a topological
    /// order (they need not be the ids a fresh partition would give). A system with fewer
    /// variables than before is partitioned anew.
    pub fn after_edit(&self, system: &System, changed: &[VarId]) -> Partition {
        let (n, n_old) = (system.len(), self.variable_count());
        if n < n_old {
            return Partition::of_system(system);
        }
        // The region: changed and new variables, the other members of the changed ones' old
        // components, and everything they read, transitively.
        const OUTSIDE: u32 = u32::MAX;
        let mut local = vec![OUTSIDE; n];
        let mut region: Vec<VarId> = Vec::new();
        let add = |v: VarId, local: &mut Vec<u32>, region: &mut Vec<VarId>| {
            if local[v.index()] == OUTSIDE {
                local[v.index()] = region.len() as u32;
                region.push(v);
            }
        };
        let mut touched: Vec<ComponentId> = changed
            .iter()
            .filter(|v| v.index() < n_old)
            .map(|&v| self.component_of(v))
            .collect();
        touched.sort_unstable();
        touched.dedup();
        for &c in &touched {
            for &v in self.members(c) {
                add(v, &mut local, &mut region);
            }
        }
        for &v in changed {
            add(v, &mut local, &mut region);
        }
        for v in n_old..n {
            add(VarId(v as u32), &mut local, &mut region);
        }
        let mut next = 0;
        while next < region.len() {
            let v = region[next];
            next += 1;
            for &r in system.variable(v).reads() {
                add(r, &mut local, &mut region);
            }
        }
        // Tarjan over the region alone.
        let mut offsets = Vec::with_capacity(region.len() + 1);
        offsets.push(0);
        let mut targets = Vec::new();
        for &v in &region {
            targets.extend(system.variable(v).reads().iter().map(|r| local[r.index()]));
            offsets.push(targets.len());
        }
        let (found, count) = strongly_connected(&Digraph { offsets, targets });
        // Old components left whole outside the region keep their members, numbered after
        // the region's in their old order.
        let mut renumbered = vec![OUTSIDE; self.len()];
        let mut kept = Vec::new();
        for c in self.ids() {
            if local[self.members(c)[0].index()] == OUTSIDE {
                renumbered[c.index()] = (count + kept.len()) as u32;
                kept.push(c);
            }
        }
        let assignment: Vec<u32> = (0..n)
            .map(|v| match local[v] {
                OUTSIDE => renumbered[self.component_of[v].index()],
                l => found[l as usize],
            })
            .collect();
        Partition::from_assignment(
            system,
            &assignment,
            count + kept.len(),
            Some((self, &kept[..])),
        )
    }

    /// All variables in one component (the "combined" strategy of figure 5.7).
    pub fn combined(system: &System) -> Partition {
        let count = usize::from(!system.is_empty());
        Partition::from_assignment(system, &vec![0; system.len()], count, None)
    }

    /// The partition with component `assignment[v]` for each variable, numbered so that every
    /// component's dependencies have smaller numbers. With `earlier`, a partition and some of
    /// its components, the last of the `count` components are those, in that order, and their
    /// members, local indices and inputs are copied rather than derived; the others are
    /// derived from the system.
    fn from_assignment(
        system: &System,
        assignment: &[u32],
        count: usize,
        earlier: Option<(&Partition, &[ComponentId])>,
    ) -> Partition {
        let (earlier, kept) = earlier.map_or((None, &[][..]), |(p, kept)| (Some(p), kept));
        let fresh = count - kept.len();
        let mut members: Vec<Vec<VarId>> = vec![Vec::new(); fresh];
        let mut local_index = vec![0u32; system.len()];
        for (v, &c) in assignment.iter().enumerate() {
            match members.get_mut(c as usize) {
                Some(own) => {
                    local_index[v] = own.len() as u32;
                    own.push(VarId(v as u32));
                }
                None => local_index[v] = earlier.map_or(0, |p| p.local_index[v]),
            }
        }
        let mut all_members = Lists::with_capacity(count, system.len());
        let mut inputs = Lists::with_capacity(count, 0);
        let mut depends_on = Lists::with_capacity(count, 0);
        let mut list: Vec<VarId> = Vec::new();
        let mut deps: Vec<ComponentId> = Vec::new();
        let copied = kept
            .iter()
            .filter_map(|&old| Some((earlier?.members(old), Some(earlier?.inputs(old)))));
        let derived = members.iter().map(|own| (own.as_slice(), None));
        for (c, (own, known)) in derived.chain(copied).enumerate() {
            list.clear();
            match known {
                Some(known) => list.extend_from_slice(known),
                None => {
                    for &v in own {
                        list.extend(
                            system
                                .variable(v)
                                .reads()
                                .iter()
                                .filter(|r| assignment[r.index()] as usize != c),
                        );
                    }
                    list.sort_unstable();
                    list.dedup();
                }
            }
            all_members.push(own);
            inputs.push(&list);
            deps.clear();
            deps.extend(list.iter().map(|v| ComponentId(assignment[v.index()])));
            deps.sort_unstable();
            deps.dedup();
            depends_on.push(&deps);
        }
        let mut dependents: Vec<Vec<ComponentId>> = vec![Vec::new(); count];
        for c in 0..count {
            for d in depends_on.get(c) {
                debug_assert!(d.index() < c, "components must be in topological order");
                dependents[d.index()].push(ComponentId(c as u32));
            }
        }
        Partition {
            component_of: assignment.iter().map(|&c| ComponentId(c)).collect(),
            local_index,
            members: all_members,
            inputs,
            depends_on,
            dependents: Lists::from_vecs(dependents),
        }
    }

    /// Number of components.
    pub fn len(&self) -> usize {
        self.members.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of variables partitioned.
    pub fn variable_count(&self) -> usize {
        self.component_of.len()
    }

    /// All component ids, dependencies first.
    pub fn ids(&self) -> impl Iterator<Item = ComponentId> {
        (0..self.len() as u32).map(ComponentId)
    }

    pub fn component_of(&self, var: VarId) -> ComponentId {
        self.component_of[var.index()]
    }

    /// Position of `var` among its component's members.
    pub fn local_index(&self, var: VarId) -> usize {
        self.local_index[var.index()] as usize
    }

    /// The variables `c` integrates, in increasing id order.
    pub fn members(&self, c: ComponentId) -> &[VarId] {
        self.members.get(c.index())
    }

    /// The variables of other components that `c`'s equations read, in increasing id order.
    pub fn inputs(&self, c: ComponentId) -> &[VarId] {
        self.inputs.get(c.index())
    }

    /// The components `c` reads, in increasing order.
    pub fn depends_on(&self, c: ComponentId) -> &[ComponentId] {
        self.depends_on.get(c.index())
    }

    /// The components that read `c`, in increasing order.
    pub fn dependents(&self, c: ComponentId) -> &[ComponentId] {
        self.dependents.get(c.index())
    }

    /// `roots` and every component that depends on one of them directly or transitively, in
    /// increasing (topological) order.
    pub fn downstream(&self, roots: &[ComponentId]) -> Vec<ComponentId> {
        let mut seen = vec![false; self.len()];
        let mut work: Vec<ComponentId> = roots.to_vec();
        for r in roots {
            seen[r.index()] = true;
        }
        let mut out = Vec::new();
        while let Some(c) = work.pop() {
            out.push(c);
            for &d in self.dependents(c) {
                if !std::mem::replace(&mut seen[d.index()], true) {
                    work.push(d);
                }
            }
        }
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Reachability by brute force: `reach[v][w]` when there is a path from `v` to `w`.
    fn reachability(successors: &[Vec<u32>]) -> Vec<Vec<bool>> {
        let n = successors.len();
        let mut reach = vec![vec![false; n]; n];
        for (v, row) in reach.iter_mut().enumerate() {
            let mut work = vec![v];
            row[v] = true;
            while let Some(u) = work.pop() {
                for &w in &successors[u] {
                    if !row[w as usize] {
                        row[w as usize] = true;
                        work.push(w as usize);
                    }
                }
            }
        }
        reach
    }

    fn graphs() -> impl Strategy<Value = Vec<Vec<u32>>> {
        (1usize..24).prop_flat_map(|n| {
            proptest::collection::vec(proptest::collection::vec(0..n as u32, 0..4), n)
        })
    }

    proptest! {
        #[test]
        fn components_are_mutual_reachability_classes_in_topological_order(g in graphs()) {
            let (component, count) = strongly_connected(&Digraph::from_successors(&g));
            let reach = reachability(&g);
            let n = g.len();
            prop_assert!(component.iter().all(|&c| (c as usize) < count));
            for v in 0..n {
                for w in 0..n {
                    let same = reach[v][w] && reach[w][v];
                    prop_assert_eq!(component[v] == component[w], same);
                    if reach[v][w] {
                        prop_assert!(component[w] <= component[v]);
                    }
                }
            }
        }
    }

    /// The system whose variable `v` reads the variables `reads[v]`.
    fn system_of(reads: &[Vec<u32>]) -> System {
        let mut s = System::new(0.0, 1.0);
        let vars: Vec<VarId> = (0..reads.len())
            .map(|v| s.add_variable(format!("v{v}"), 0.0))
            .collect();
        for (v, list) in reads.iter().enumerate() {
            let list: Vec<VarId> = list.iter().map(|&w| vars[w as usize]).collect();
            s.set_reads(vars[v], &list);
        }
        s
    }

    proptest! {
        /// An edit's partition has the fresh partition's components (members, local
        /// indices, inputs, dependencies), numbered in some topological order.
        #[test]
        fn an_edit_partitions_as_partitioning_anew(
            g in graphs(),
            edits in proptest::collection::vec(
                (0usize..32, proptest::collection::vec(0u32..32, 0..4)), 0..4),
            extra in 0usize..4,
        ) {
            let n = g.len();
            let before = Partition::of_system(&system_of(&g));
            let total = n + extra;
            let mut h = g.clone();
            h.resize(total, Vec::new());
            let mut changed = Vec::new();
            for (v, reads) in edits {
                let v = v % total;
                h[v] = reads.into_iter().map(|w| w % total as u32).collect();
                changed.push(VarId(v as u32));
            }
            let system = system_of(&h);
            let after = before.after_edit(&system, &changed);
            let fresh = Partition::of_system(&system);
            prop_assert_eq!(after.len(), fresh.len());
            prop_assert_eq!(after.variable_count(), total);
            for c in after.ids() {
                let members = after.members(c);
                let twin = fresh.component_of(members[0]);
                prop_assert_eq!(members, fresh.members(twin));
                prop_assert_eq!(after.inputs(c), fresh.inputs(twin));
                let mut deps: Vec<ComponentId> = after
                    .depends_on(c)
                    .iter()
                    .map(|&d| fresh.component_of(after.members(d)[0]))
                    .collect();
                deps.sort_unstable();
                prop_assert_eq!(&deps[..], fresh.depends_on(twin));
                prop_assert!(after.depends_on(c).iter().all(|&d| d < c));
                for &d in after.depends_on(c) {
                    prop_assert!(after.dependents(d).contains(&c));
                }
                prop_assert_eq!(
                    after.dependents(c).len(),
                    fresh.dependents(twin).len()
                );
            }
            for v in 0..total {
                let v = VarId(v as u32);
                prop_assert_eq!(after.local_index(v), fresh.local_index(v));
                prop_assert_eq!(after.members(after.component_of(v))[after.local_index(v)], v);
            }
        }
    }

    #[test]
    fn a_million_node_chain_and_cycle_do_not_overflow_the_stack() {
        let n = 1_000_000u32;
        let chain: Vec<Vec<u32>> = (0..n)
            .map(|v| if v + 1 < n { vec![v + 1] } else { vec![] })
            .collect();
        let (component, count) = strongly_connected(&Digraph::from_successors(&chain));
        assert_eq!(count, n as usize);
        assert_eq!(component[0], n - 1);
        assert_eq!(component[(n - 1) as usize], 0);

        let cycle: Vec<Vec<u32>> = (0..n).map(|v| vec![(v + 1) % n]).collect();
        let (component, count) = strongly_connected(&Digraph::from_successors(&cycle));
        assert_eq!(count, 1);
        assert!(component.iter().all(|&c| c == 0));
    }

    /// Figure 5.8: two objects attracting each other along X; Y independent.
    #[test]
    fn figure_5_8_partition() {
        let mut s = System::new(0.0, 1.0);
        let x1 = s.add_variable("o1.x", 0.0);
        let dx1 = s.add_variable("o1.dx", 0.0);
        let x2 = s.add_variable("o2.x", 1.0);
        let dx2 = s.add_variable("o2.dx", 0.0);
        let y1 = s.add_variable("o1.y", 0.0);
        let dy1 = s.add_variable("o1.dy", 0.0);
        let probe = s.add_variable("probe", 0.0);
        s.set_reads(x1, &[dx1]);
        s.set_reads(dx1, &[x1, x2]);
        s.set_reads(x2, &[dx2]);
        s.set_reads(dx2, &[x1, x2]);
        s.set_reads(y1, &[dy1]);
        s.set_reads(probe, &[y1, x2]);
        let p = Partition::of_system(&s);
        let x = p.component_of(x1);
        assert_eq!(p.members(x), &[x1, dx1, x2, dx2]);
        assert_eq!(p.inputs(x), &[] as &[VarId]);
        assert_eq!(p.members(p.component_of(dy1)), &[dy1]);
        let y = p.component_of(y1);
        assert_eq!(p.depends_on(y), &[p.component_of(dy1)]);
        let pr = p.component_of(probe);
        assert_eq!(p.inputs(pr), &[x2, y1]);
        let mut deps = vec![x, y];
        deps.sort();
        assert_eq!(p.depends_on(pr), deps.as_slice());
        assert!(p.ids().all(|c| p.depends_on(c).iter().all(|d| *d < c)));
        assert_eq!(p.local_index(x2), 2);
        assert_eq!(
            p.downstream(&[p.component_of(dy1)]),
            vec![p.component_of(dy1), y, pr]
        );
        assert_eq!(p.len(), 4);

        let combined = Partition::combined(&s);
        assert_eq!(combined.len(), 1);
        assert_eq!(combined.members(ComponentId(0)).len(), 7);
    }
}
