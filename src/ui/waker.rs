//! Sessions whose simulator news is taken in on the GTK main loop.
//!
//! A [`Session`]'s simulator thread calls its waker when it has news; the news must then be
//! taken in on the thread that owns the session ([`Session::poll`]). The sessions made here
//! have a waker that schedules that poll as an idle callback of GLib's default main context,
//! which the GTK main loop runs. Wakes that come while a poll is already scheduled are folded
//! into it, so a simulator reporting progress quickly does not flood the main loop.

use crate::session::{Session, Waker};
use gtk::glib;
use gtk4 as gtk;
use std::cell::RefCell;
use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::rc::{Rc, Weak};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

thread_local! {
    /// The sessions made on this (the main) thread, by waker id.
    static SESSIONS: RefCell<HashMap<u64, Weak<Session>>> = RefCell::new(HashMap::new());
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A waker that polls session `id` on the main loop, and the flag folding wakes together.
fn main_loop_waker(id: u64) -> Waker {
    let scheduled = Arc::new(AtomicBool::new(false));
    Arc::new(move || {
        if scheduled.swap(true, Ordering::AcqRel) {
            return;
        }
        let scheduled = scheduled.clone();
        glib::idle_add_once(move || {
            scheduled.store(false, Ordering::Release);
            let session = SESSIONS.with(|s| s.borrow().get(&id).and_then(Weak::upgrade));
            if let Some(session) = session {
                session.poll();
            }
        });
    })
}

fn register(make: impl FnOnce(Waker) -> io::Result<Rc<Session>>) -> io::Result<Rc<Session>> {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let session = make(main_loop_waker(id))?;
    SESSIONS.with(|s| {
        let mut sessions = s.borrow_mut();
        sessions.retain(|_, weak| weak.strong_count() > 0);
        sessions.insert(id, Rc::downgrade(&session));
    });
    Ok(session)
}

/// A session on `text` (no file yet) whose simulator reports on the GTK main loop. Call on the
/// main thread.
pub fn session_for_text(text: impl Into<String>) -> Rc<Session> {
    let text = text.into();
    register(|waker| Ok(Session::new(text, waker))).expect("a new session cannot fail")
}

/// A session on the scene file at `path` whose simulator reports on the GTK main loop. Call
/// on the main thread.
pub fn session_for_file(path: &Path) -> io::Result<Rc<Session>> {
    register(|waker| Session::open(path, waker))
}
