//! Input a host forwards to a rendition, queued while a call is in flight. Pointer motion
//! arrives far faster than a round trip, so consecutive motions collapse into the latest and
//! consecutive scrolls add up; the queue is bounded, so a stalled slave never makes the host
//! hoard events. Presses, releases and keys are kept in order (a drag must see its release).

use crate::ipc::{Modifiers, PointerKind};
use std::collections::VecDeque;

/// One event for `Pointer`, `Scroll` or `Key`, in rendition pixel coordinates.
#[derive(Clone, Debug, PartialEq)]
pub enum InputEvent {
    Pointer {
        kind: PointerKind,
        button: u32,
        x: f64,
        y: f64,
        modifiers: Modifiers,
    },
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
}

impl InputEvent {
    fn is_motion(&self) -> bool {
        matches!(
            self,
            InputEvent::Pointer {
                kind: PointerKind::Motion,
                ..
            }
        )
    }

    /// Motions and scrolls may be merged or dropped; the rest carry state the slave needs.
    fn is_droppable(&self) -> bool {
        self.is_motion() || matches!(self, InputEvent::Scroll { .. })
    }
}

/// Events waiting to be sent, oldest first.
#[derive(Debug)]
pub struct InputQueue {
    events: VecDeque<InputEvent>,
    capacity: usize,
}

impl InputQueue {
    /// A queue that holds at most `capacity` events (at least 2).
    pub fn new(capacity: usize) -> InputQueue {
        InputQueue {
            events: VecDeque::new(),
            capacity: capacity.max(2),
        }
    }

    /// Adds an event, merging it into the newest queued one when both are motions (the later
    /// position wins) or both are scrolls with the same modifiers (the deltas add). When the
    /// queue is full the oldest droppable event goes, or else the oldest of all.
    pub fn push(&mut self, event: InputEvent) {
        match (self.events.back_mut(), &event) {
            (Some(last), _) if last.is_motion() && event.is_motion() => {
                *last = event;
                return;
            }
            (
                Some(InputEvent::Scroll {
                    dx,
                    dy,
                    modifiers: queued,
                }),
                InputEvent::Scroll {
                    dx: more_x,
                    dy: more_y,
                    modifiers,
                },
            ) if queued == modifiers => {
                *dx += more_x;
                *dy += more_y;
                return;
            }
            _ => {}
        }
        if self.events.len() == self.capacity {
            let victim = self
                .events
                .iter()
                .position(InputEvent::is_droppable)
                .unwrap_or(0);
            self.events.remove(victim);
        }
        self.events.push_back(event);
    }

    pub fn pop(&mut self) -> Option<InputEvent> {
        self.events.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pointer(kind: PointerKind, x: f64) -> InputEvent {
        InputEvent::Pointer {
            kind,
            button: if kind == PointerKind::Motion { 0 } else { 1 },
            x,
            y: 0.0,
            modifiers: Modifiers::default(),
        }
    }

    fn scroll(dy: f64, modifiers: Modifiers) -> InputEvent {
        InputEvent::Scroll {
            dx: 0.0,
            dy,
            modifiers,
        }
    }

    fn drain(queue: &mut InputQueue) -> Vec<InputEvent> {
        std::iter::from_fn(|| queue.pop()).collect()
    }

    #[test]
    fn motions_collapse_to_the_latest_between_presses() {
        let mut q = InputQueue::new(16);
        q.push(pointer(PointerKind::Motion, 1.0));
        q.push(pointer(PointerKind::Motion, 2.0));
        q.push(pointer(PointerKind::Press, 2.0));
        q.push(pointer(PointerKind::Motion, 3.0));
        q.push(pointer(PointerKind::Motion, 4.0));
        q.push(pointer(PointerKind::Release, 4.0));
        assert_eq!(
            drain(&mut q),
            [
                pointer(PointerKind::Motion, 2.0),
                pointer(PointerKind::Press, 2.0),
                pointer(PointerKind::Motion, 4.0),
                pointer(PointerKind::Release, 4.0),
            ]
        );
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn scrolls_add_up_per_modifier_mask() {
        let mut q = InputQueue::new(16);
        q.push(scroll(1.0, Modifiers::default()));
        q.push(scroll(2.0, Modifiers::default()));
        q.push(scroll(1.0, Modifiers::SHIFT));
        assert_eq!(
            drain(&mut q),
            [
                scroll(3.0, Modifiers::default()),
                scroll(1.0, Modifiers::SHIFT)
            ]
        );
    }

    #[test]
    fn a_full_queue_drops_motion_before_presses() {
        let mut q = InputQueue::new(3);
        q.push(pointer(PointerKind::Press, 0.0));
        q.push(pointer(PointerKind::Motion, 1.0));
        q.push(pointer(PointerKind::Release, 1.0));
        q.push(pointer(PointerKind::Press, 5.0));
        assert_eq!(
            drain(&mut q),
            [
                pointer(PointerKind::Press, 0.0),
                pointer(PointerKind::Release, 1.0),
                pointer(PointerKind::Press, 5.0),
            ]
        );
    }

    proptest! {
        /// Whatever arrives, the queue stays within its bound and keeps the relative order of
        /// the presses and releases it keeps; with room enough, it keeps every one of them.
        #[test]
        fn bounded_and_ordered(kinds in proptest::collection::vec(0u8..4, 0..200), capacity in 2usize..40) {
            let mut q = InputQueue::new(capacity);
            let mut sent = Vec::new();
            for (i, k) in kinds.iter().enumerate() {
                let event = match k {
                    0 => pointer(PointerKind::Motion, i as f64),
                    1 => pointer(PointerKind::Press, i as f64),
                    2 => pointer(PointerKind::Release, i as f64),
                    _ => scroll(1.0, Modifiers::default()),
                };
                if !event.is_droppable() {
                    sent.push(i as f64);
                }
                q.push(event);
                prop_assert!(q.events.len() <= capacity);
            }
            let kept: Vec<f64> = drain(&mut q)
                .into_iter()
                .filter(|e| !e.is_droppable())
                .map(|e| match e { InputEvent::Pointer { x, .. } => x, _ => unreachable!() })
                .collect();
            prop_assert!(kept.windows(2).all(|w| w[0] < w[1]));
            if sent.len() <= capacity / 2 {
                prop_assert_eq!(kept, sent);
            }
        }
    }
}
