use super::*;
use proptest::prelude::*;
use std::sync::mpsc::{channel, Receiver};
use std::sync::Mutex;
use std::time::Duration;

const BALL: &str = "simulator finish 1 step 0.1
shape_set ball desc {sub pos {0 0 0} sphere 0.5}
body b shape ball init_pos {0 10 0} init_dpos {1 0 0} mass 2
force body b x 0 y {-9.81 * [b mass]} z 0
";

/// A session whose waker signals a channel, so tests wait for the simulator on a condition.
fn session(text: &str) -> (Rc<Session>, Receiver<()>) {
    let (tx, rx) = channel();
    let tx = Mutex::new(tx);
    let waker: Waker = Arc::new(move || {
        let _ = tx.lock().unwrap().send(());
    });
    (Session::new(text, waker), rx)
}

use std::sync::Arc;

/// Polls the session whenever the simulator reports, until `done` holds.
fn wait_until(session: &Session, wakes: &Receiver<()>, done: impl Fn(&Session) -> bool) {
    while !done(session) {
        wakes
            .recv_timeout(Duration::from_secs(60))
            .expect("the simulator went quiet before the condition held");
        session.poll();
    }
}

fn finished(s: &Session) -> bool {
    matches!(s.status(), SimStatus::Finished | SimStatus::Failed(_))
}

fn record(session: &Session) -> Rc<RefCell<Vec<Event>>> {
    let events = Rc::new(RefCell::new(Vec::new()));
    let sink = events.clone();
    session.subscribe(move |_, e| sink.borrow_mut().push(e.clone()));
    events
}

#[test]
fn a_text_with_an_error_is_kept_and_the_last_good_scene_stays() {
    let (s, _wakes) = session(BALL);
    assert!(s.scene().is_some());
    let events = record(&s);
    let broken = format!("{BALL}body c shape nothing\n");
    s.set_text(broken.clone(), None);
    assert_eq!(&*s.text(), broken);
    let error = s.error().expect("the text has an error");
    assert!(error.message.contains("nothing"), "{}", error.message);
    assert_eq!(s.scene().unwrap().bodies.len(), 1);
    assert!(events
        .borrow()
        .iter()
        .any(|e| matches!(e, Event::SceneError(_))));
}

#[test]
fn a_graphical_edit_rewrites_only_its_literal_and_undoes() {
    let (s, _wakes) = session(BALL);
    let view = s.new_view_id();
    let events = record(&s);
    s.edit(
        Target::BodyInit {
            body: 0,
            var: InitVar::Pos,
        },
        EditValue::Vector(nalgebra::Vector3::new(0.0, 12.5, 0.0)),
        Some(view),
    )
    .unwrap();
    let expected = BALL.replace("init_pos {0 10 0}", "init_pos {0 12.5 0}");
    assert_eq!(&*s.text(), expected);
    assert_eq!(s.scene().unwrap().bodies[0].init_pos.value.y, 12.5);
    let changed = events.borrow().iter().find_map(|e| match e {
        Event::TextChanged { edit, by } => Some((edit.clone(), *by)),
        _ => None,
    });
    let (edit, by) = changed.expect("a TextChanged event");
    assert_eq!(by, Some(view));
    assert_eq!(edit.apply(BALL), expected);
    assert!(s.is_modified());

    assert!(s.undo());
    assert_eq!(&*s.text(), BALL);
    assert!(!s.is_modified());
    assert!(s.redo());
    assert_eq!(&*s.text(), expected);
}

#[test]
fn a_drag_undoes_as_one_step() {
    let (s, _wakes) = session(BALL);
    s.begin_drag();
    for y in [11.0, 12.0, 13.0] {
        s.edit(
            Target::BodyInit {
                body: 0,
                var: InitVar::Pos,
            },
            EditValue::Vector(nalgebra::Vector3::new(0.0, y, 0.0)),
            None,
        )
        .unwrap();
    }
    s.end_drag();
    assert!(s.text().contains("init_pos {0 13 0}"));
    assert!(s.undo());
    assert_eq!(&*s.text(), BALL);
}

#[test]
fn simulation_runs_on_the_worker_and_its_motion_is_readable() {
    let (s, wakes) = session(BALL);
    let events = record(&s);
    wait_until(&s, &wakes, finished);
    assert_eq!(s.status(), SimStatus::Finished);
    let state = s.motion().unwrap().state(0, 1.0).unwrap();
    assert!((state.position.y - (10.0 - 9.81 / 2.0)).abs() < 1e-9);
    assert!((state.position.x - 1.0).abs() < 1e-12);
    let events = events.borrow();
    assert!(events.contains(&Event::SimulationStarted));
    assert!(events.contains(&Event::SimulationFinished));
}

#[test]
fn an_edit_restarts_the_simulation_of_the_new_scene() {
    let (s, wakes) = session(BALL);
    wait_until(&s, &wakes, finished);
    s.edit(
        Target::BodyInit {
            body: 0,
            var: InitVar::Dpos,
        },
        EditValue::Vector(nalgebra::Vector3::new(2.0, 0.0, 0.0)),
        None,
    )
    .unwrap();
    assert!(matches!(s.status(), SimStatus::Running(_)));
    wait_until(&s, &wakes, finished);
    let state = s.motion().unwrap().state(0, 1.0).unwrap();
    assert!((state.position.x - 2.0).abs() < 1e-12);
}

#[test]
fn initial_state_from_a_moment_of_the_last_run() {
    let (s, wakes) = session(BALL);
    wait_until(&s, &wakes, finished);
    let at = s.motion().unwrap().state(0, 0.5).unwrap();
    assert_eq!(s.set_initial_state_from(0.5, &[0]).unwrap(), 1);
    let scene = s.scene().unwrap();
    let body = &scene.bodies[0];
    assert!((body.init_pos.value - at.position).norm() < 1e-4);
    assert!((body.init_dpos.value - at.velocity).norm() < 1e-4);
    drop(scene);
    assert!(s.undo());
    assert_eq!(&*s.text(), BALL);
}

#[test]
fn observers_may_call_back_into_the_session() {
    let (s, _wakes) = session(BALL);
    let seen = Rc::new(RefCell::new(Vec::new()));
    let sink = seen.clone();
    s.subscribe(move |session, event| {
        if let Event::TextChanged { .. } = event {
            // Reading and even changing the session from an observer is allowed.
            sink.borrow_mut().push(session.text().len());
            if session.text().contains("init_pos {0 11 0}") {
                session
                    .edit(
                        Target::BodyInit {
                            body: 0,
                            var: InitVar::Pos,
                        },
                        EditValue::Vector(nalgebra::Vector3::new(0.0, 12.0, 0.0)),
                        None,
                    )
                    .unwrap();
            }
        }
    });
    s.edit(
        Target::BodyInit {
            body: 0,
            var: InitVar::Pos,
        },
        EditValue::Vector(nalgebra::Vector3::new(0.0, 11.0, 0.0)),
        None,
    )
    .unwrap();
    assert!(s.text().contains("init_pos {0 12 0}"));
    assert_eq!(seen.borrow().len(), 2);
}

#[test]
fn save_revert_and_the_modified_flag() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ball.asg");
    std::fs::write(&path, BALL).unwrap();
    let (tx, _rx) = channel::<()>();
    let tx = Mutex::new(tx);
    let s = Session::open(
        &path,
        Arc::new(move || {
            let _ = tx.lock().unwrap().send(());
        }),
    )
    .unwrap();
    assert!(!s.is_modified());
    s.set_text(format!("# edited\n{BALL}"), None);
    assert!(s.is_modified());
    s.save(ReadOnly::Refuse).unwrap();
    assert!(!s.is_modified());
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        format!("# edited\n{BALL}")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("ball.asg~")).unwrap(),
        BALL
    );
    std::fs::write(&path, BALL).unwrap();
    s.revert().unwrap();
    assert_eq!(&*s.text(), BALL);
    assert!(!s.is_modified());
}

#[test]
fn a_session_without_a_file_refuses_save() {
    let (s, _wakes) = session(BALL);
    assert!(s.save(ReadOnly::Refuse).is_err());
}

proptest! {
    #[test]
    fn the_minimal_edit_turns_old_into_new(old in "[a-cé{} ]{0,20}", new in "[a-cé{} ]{0,20}") {
        let edit = minimal_edit(&old, &new);
        prop_assert_eq!(edit.apply(&old), new.clone());
        if old == new {
            prop_assert!(edit.is_empty());
        }
    }
}

#[test]
fn a_file_that_is_not_utf8_is_refused_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("latin1.asg");
    std::fs::write(&path, b"shape_set ball desc {sphere 1}\n# caf\xe9\n").unwrap();
    let error = read_scene_text(&path).unwrap_err();
    let found = error
        .get_ref()
        .and_then(|e| e.downcast_ref::<NotUtf8>())
        .copied();
    assert_eq!(
        found,
        Some(NotUtf8 {
            at: LineCol { line: 2, column: 6 },
            byte: 0xE9
        })
    );
}
