//! The graphical viewer (4.1, figure 4.2): the scene drawn at one time from one viewpoint,
//! with handles to drag.
//!
//! The window has a menu bar, the picture, the element-type check buttons at the right that
//! show or hide each kind of handle, a status line, and the time bar at the bottom. The mouse
//! and keys mean what they mean in every view (`crate::view::gesture`, `crate::view::keys`):
//! unshifted buttons position the view and the wheel zooms; with Shift held the left button
//! drags handles and selects bodies, the middle button makes a new trajectory point next to
//! one, and the right button deletes one. Keys: `c` sets the centre of rotation under the
//! pointer, `z` and `x` push the dragged handle into or out of the screen, `a` (held) drags
//! link ends in the screen plane instead of on the surface, `v` resets the view, Escape
//! cancels a Create command; the transport keys are those of every player: space plays or
//! stops, Left and Right step a frame, Home and End go to the start and the finish, `r`
//! reverses, `[` and `]` halve and double the speed.
//!
//! The **Live** toggle beside the time controls (Ctrl+L) runs the scene in real time: the left
//! button on a body then pulls it by the point under the pointer, the arrow keys push the body
//! pulled last, and playback is off. **Keep as trajectory** (Ctrl+K) appends the last live
//! run's path of every pulled body to the text as `trajectory` commands.

use gtk4 as gtk;
mod time_bar;
mod viewer;

use crate::scene::handles::HandleKind;
use crate::session::Event;
use crate::ui::editor::{Editor, EditorEvent};
use crate::ui::gl_view::GlView;
use crate::view::keys::KeyAction;
use crate::view::transport::Direction;
use crate::window_picture;
use gtk::prelude::*;
use gtk::{gdk, gio, glib};
use std::rc::Rc;
use time_bar::TimeBar;
use viewer::{LiveStatus, Viewer, Widgets};

pub use time_bar::TimeScale;
pub use viewer::{initial_options, initial_view, INITIAL_HANDLES};

/// The check buttons at the right: handle kinds shown together.
const HANDLE_GROUPS: [(&str, &[HandleKind]); 10] = [
    ("Position", &[HandleKind::BodyPosition]),
    ("Rotation", &[HandleKind::BodyRotation]),
    ("Velocity", &[HandleKind::Velocity]),
    ("Angular velocity", &[HandleKind::AngularVelocity]),
    ("Forces", &[HandleKind::ForceBase, HandleKind::ForceHead]),
    ("Torques", &[HandleKind::TorqueHead]),
    ("Links", &[HandleKind::LinkEnd]),
    ("Trajectory points", &[HandleKind::TrajectoryPoint]),
    (
        "Lights",
        &[HandleKind::LightPosition, HandleKind::LightDirection],
    ),
    (
        "Camera",
        &[HandleKind::CameraPosition, HandleKind::CameraTarget],
    ),
];

/// Opens a new graphical viewer on the editor's session.
pub fn open(editor: &Rc<Editor>) -> gtk::ApplicationWindow {
    let number = editor.next_viewer_number(true);
    let window = editor.window(&format!("Graphical viewer {number}"));
    window.set_default_size(860, 640);
    let viewer = Viewer::new(editor.clone());

    let gl = {
        let scenery: Rc<dyn crate::ui::gl_view::Scenery> = viewer.clone();
        let editor = Rc::downgrade(editor);
        GlView::new(scenery, move |e| {
            if let Some(editor) = editor.upgrade() {
                editor.status(format!("The graphical viewer cannot draw: {e}"));
            }
        })
    };
    gl.area.set_focusable(true);

    let overlay_labels = gtk::DrawingArea::new();
    overlay_labels.set_can_target(false);
    {
        let viewer = Rc::downgrade(&viewer);
        overlay_labels.set_draw_func(move |area, cr, _, _| {
            if let Some(viewer) = viewer.upgrade() {
                let scale = f64::from(area.scale_factor().max(1));
                draw_labels(cr, &viewer.labels(), scale);
            }
        });
    }
    let value = gtk::Label::new(None);
    value.set_halign(gtk::Align::End);
    value.set_valign(gtk::Align::Start);
    value.set_margin_top(6);
    value.set_margin_end(6);
    value.add_css_class("osd");
    value.set_visible(false);
    value.set_can_target(false);
    let prompt = gtk::Label::new(None);
    prompt.set_halign(gtk::Align::Start);
    prompt.set_valign(gtk::Align::Start);
    prompt.set_margin_top(6);
    prompt.set_margin_start(6);
    prompt.add_css_class("osd");
    prompt.set_visible(false);
    prompt.set_can_target(false);
    let picture = gtk::Overlay::new();
    picture.set_child(Some(&gl.area));
    picture.add_overlay(&overlay_labels);
    picture.add_overlay(&value);
    picture.add_overlay(&prompt);

    let status = gtk::Label::new(None);
    status.set_xalign(0.0);
    status.set_wrap(true);
    status.set_margin_start(6);

    let time_bar = Rc::new(TimeBar::new(&viewer));
    let on_time = {
        let time_bar = time_bar.clone();
        let window = window.downgrade();
        Box::new(move |time: f64, range| {
            time_bar.show_time(time, range);
            show_state(&window, "time", time);
        })
    };
    let on_rate = {
        let time_bar = time_bar.clone();
        let window = window.downgrade();
        Box::new(move |rate: f64| {
            time_bar.show_rate(rate);
            show_state(&window, "rate", rate);
        })
    };
    let on_trajectory = {
        let time_bar = time_bar.clone();
        let viewer = Rc::downgrade(&viewer);
        Box::new(move || {
            if let Some(viewer) = viewer.upgrade() {
                time_bar.show_marks(viewer.editing_trajectory().is_some());
            }
        })
    };
    let on_live = {
        let time_bar = time_bar.clone();
        let window = window.downgrade();
        Box::new(move |status: LiveStatus| {
            time_bar.show_live(status.live);
            if let Some(window) = window.upgrade() {
                show_live(&window, status);
            }
        })
    };
    viewer.attach(
        gl.clone(),
        Widgets {
            value,
            status: status.clone(),
            overlay: overlay_labels,
            on_time,
            on_rate,
            on_trajectory,
            on_live,
        },
    );
    time_bar.show_time(viewer.time(), viewer.time_range());
    viewer.tell_text_error();

    let body = gtk::Box::new(gtk::Orientation::Horizontal, 0);
    body.append(&picture);
    body.append(&side_panel(&viewer));
    let column = gtk::Box::new(gtk::Orientation::Vertical, 2);
    column.append(&menu_bar(&window, &viewer));
    column.append(&body);
    column.append(&status);
    column.append(&time_bar.widget);
    window.set_child(Some(&column));

    mouse(&viewer, &gl.area);
    keys(&viewer, &window);
    {
        let viewer = viewer.clone();
        editor.observe(&window, move |_, event| {
            viewer.on_session(event);
            if let Event::SimulationFailed(why) = event {
                viewer.say(&format!("The simulation failed: {why}"));
            }
        });
    }
    {
        let viewer = Rc::downgrade(&viewer);
        let prompt = prompt.clone();
        editor.listen_while_open(&window, move |event| {
            let Some(viewer) = viewer.upgrade() else {
                return;
            };
            match event {
                EditorEvent::Prompt => {
                    let instruction = viewer.editor.prompt_instruction();
                    prompt.set_text(instruction.as_deref().unwrap_or(""));
                    prompt.set_visible(instruction.is_some());
                }
                EditorEvent::Selection => viewer.redraw(),
                EditorEvent::Status(_) => {}
            }
        });
    }
    {
        let viewer = viewer.clone();
        window.connect_destroy(move |_| {
            viewer.stop();
            viewer.stop_live();
        });
    }
    show_live(
        &window,
        LiveStatus {
            live: false,
            keepable: false,
        },
    );
    window.present();
    window
}

/// The element-type check buttons: which handles show, and what else the picture shows.
fn side_panel(viewer: &Rc<Viewer>) -> gtk::Box {
    let panel = gtk::Box::new(gtk::Orientation::Vertical, 2);
    panel.set_margin_start(6);
    panel.set_margin_end(6);
    let heading = |text: &str| {
        let label = gtk::Label::new(Some(text));
        label.set_xalign(0.0);
        label.add_css_class("heading");
        label.set_margin_top(6);
        label
    };
    panel.append(&heading("Handles"));
    for (name, kinds) in HANDLE_GROUPS {
        let check = gtk::CheckButton::with_label(name);
        check.set_active(kinds.iter().all(|k| INITIAL_HANDLES.contains(k)));
        let viewer = Rc::downgrade(viewer);
        check.connect_toggled(move |check| {
            let Some(viewer) = viewer.upgrade() else {
                return;
            };
            {
                let mut options = viewer.options.borrow_mut();
                options.handles.retain(|k| !kinds.contains(k));
                if check.is_active() {
                    options.handles.extend_from_slice(kinds);
                }
                options.highlighted_handle = None;
            }
            viewer.redraw();
        });
        panel.append(&check);
    }
    panel.append(&heading("Show"));
    type Flag = fn(&mut crate::render::scene_frame::FrameOptions) -> &mut bool;
    let flags: [(&str, Flag); 5] = [
        ("Trajectories", |o| &mut o.trajectories),
        ("Vectors", |o| &mut o.vectors),
        ("Links", |o| &mut o.links),
        ("Grid", |o| &mut o.looks.grid),
        ("Wireframe", |o| &mut o.wireframe),
    ];
    for (name, flag) in flags {
        let check = gtk::CheckButton::with_label(name);
        check.set_active(*flag(&mut viewer.options.borrow_mut()));
        let viewer = Rc::downgrade(viewer);
        check.connect_toggled(move |check| {
            if let Some(viewer) = viewer.upgrade() {
                *flag(&mut viewer.options.borrow_mut()) = check.is_active();
                viewer.redraw();
            }
        });
        panel.append(&check);
    }
    panel
}

/// The looks the View menu turns on and off (the grid is in the side panel): label, action
/// name, the flag in the options.
type LookFlag = fn(&mut crate::render::frame::Looks) -> &mut bool;
const LOOKS: [(&str, &str, LookFlag); 4] = [
    ("Shadows", "look-shadows", |l| &mut l.shadows),
    ("Ground", "look-ground", |l| &mut l.ground),
    ("Smooth edges", "look-antialias", |l| &mut l.antialias),
    ("Axes", "look-gizmo", |l| &mut l.gizmo),
];

/// A check item per look, for the View menu (printing, slow machines, tests).
fn look_actions(window: &gtk::ApplicationWindow, viewer: &Rc<Viewer>) {
    for (_, name, flag) in LOOKS {
        let on = *flag(&mut viewer.options.borrow_mut().looks);
        let action = gio::SimpleAction::new_stateful(name, None, &on.to_variant());
        let viewer = Rc::downgrade(viewer);
        action.connect_change_state(move |action, state| {
            let (Some(viewer), Some(on)) = (viewer.upgrade(), state.and_then(|s| s.get())) else {
                return;
            };
            *flag(&mut viewer.options.borrow_mut().looks) = on;
            action.set_state(&on.to_variant());
            viewer.redraw();
        });
        window.add_action(&action);
    }
}

fn menu_bar(window: &gtk::ApplicationWindow, viewer: &Rc<Viewer>) -> gtk::PopoverMenuBar {
    let action = |name: &str, run: fn(&Viewer)| {
        let viewer = Rc::downgrade(viewer);
        let action = gio::SimpleAction::new(name, None);
        action.connect_activate(move |_, _| {
            if let Some(viewer) = viewer.upgrade() {
                run(&viewer);
            }
        });
        window.add_action(&action);
    };
    action("reset-view", Viewer::reset_view);
    action("keep-view", Viewer::keep_view);
    action("initial-selected", |v| set_initial_state(v, true));
    action("initial-all", |v| set_initial_state(v, false));
    action("play", Viewer::play);
    action("stop", Viewer::stop);
    action("rewind", Viewer::rewind);
    action("step", |v| v.step(1));
    action("step-back", |v| v.step(-1));
    action("go-end", |v| v.go_to(Direction::Forward));
    // The time shown and the playing rate, as window actions with a state, so scripts and
    // tests read them over D-Bus (org.gtk.Actions) and set them by activating them.
    let valued = |name: &str, value: f64, set: fn(&Viewer, f64)| {
        let action = gio::SimpleAction::new_stateful(
            name,
            Some(glib::VariantTy::DOUBLE),
            &value.to_variant(),
        );
        let viewer = Rc::downgrade(viewer);
        action.connect_activate(move |_, parameter| {
            if let (Some(viewer), Some(value)) =
                (viewer.upgrade(), parameter.and_then(|p| p.get::<f64>()))
            {
                set(&viewer, value);
            }
        });
        window.add_action(&action);
    };
    valued("time", viewer.time(), Viewer::set_time);
    valued("rate", viewer.rate(), Viewer::set_rate);
    let looping = gio::SimpleAction::new_stateful("loop", None, &false.to_variant());
    {
        let viewer = Rc::downgrade(viewer);
        looping.connect_change_state(move |action, state| {
            let (Some(viewer), Some(on)) = (viewer.upgrade(), state.and_then(|s| s.get())) else {
                return;
            };
            viewer.set_looping(on);
            action.set_state(&on.to_variant());
        });
    }
    window.add_action(&looping);
    action("keep-trajectory", Viewer::keep_trajectory);
    let live = gio::SimpleAction::new_stateful("live", None, &false.to_variant());
    {
        let viewer = Rc::downgrade(viewer);
        live.connect_change_state(move |_, state| {
            let (Some(viewer), Some(on)) = (viewer.upgrade(), state.and_then(|s| s.get())) else {
                return;
            };
            if on {
                viewer.start_live();
            } else {
                viewer.stop_live();
            }
        });
    }
    window.add_action(&live);
    look_actions(window, viewer);

    let edit = gio::Menu::new();
    edit.append(Some("Undo"), Some("win.undo"));
    edit.append(Some("Redo"), Some("win.redo"));
    let view = gio::Menu::new();
    view.append(Some("Reset view"), Some("win.reset-view"));
    let looks = gio::Menu::new();
    for (label, name, _) in LOOKS {
        looks.append(Some(label), Some(&format!("win.{name}")));
    }
    view.append_section(None, &looks);
    let keep = gio::Menu::new();
    keep.append(
        Some("Keep this view (the scene's camera)"),
        Some("win.keep-view"),
    );
    view.append_section(None, &keep);
    view.append(Some(window_picture::MENU_LABEL), Some("win.export-window"));
    let motion = gio::Menu::new();
    motion.append(Some("Simulate"), Some("win.simulate"));
    motion.append(Some("Play"), Some("win.play"));
    motion.append(Some("Stop"), Some("win.stop"));
    motion.append(Some("Rewind"), Some("win.rewind"));
    motion.append(Some("Step"), Some("win.step"));
    motion.append(Some("Step back"), Some("win.step-back"));
    motion.append(Some("Go to the end"), Some("win.go-end"));
    motion.append(Some("Loop"), Some("win.loop"));
    let live = gio::Menu::new();
    live.append(Some("Live"), Some("win.live"));
    live.append(Some("Keep as trajectory"), Some("win.keep-trajectory"));
    motion.append_section(None, &live);
    let initial = gio::Menu::new();
    initial.append(
        Some("Set initial state from here (selected bodies)"),
        Some("win.initial-selected"),
    );
    initial.append(
        Some("Set initial state from here (all bodies)"),
        Some("win.initial-all"),
    );
    motion.append_section(None, &initial);
    let bar = gio::Menu::new();
    bar.append_submenu(Some("Edit"), &edit);
    bar.append_submenu(Some("View"), &view);
    bar.append_submenu(Some("Motion"), &motion);
    gtk::PopoverMenuBar::from_model(Some(&bar))
}

/// Writes the state at the viewer's time into the initial values of the selected bodies (or
/// all), so a new run starts from this moment.
fn set_initial_state(viewer: &Viewer, selected_only: bool) {
    let editor = &viewer.editor;
    let bodies: Vec<usize> = {
        let Some(scene) = editor.session.scene() else {
            return;
        };
        let selection = editor.selection();
        scene
            .bodies
            .iter()
            .enumerate()
            .filter(|(_, b)| !selected_only || selection.contains(&b.name))
            .map(|(i, _)| i)
            .collect()
    };
    if bodies.is_empty() {
        viewer.say("No body is selected (Shift and the left button select bodies).");
        return;
    }
    match editor
        .session
        .set_initial_state_from(viewer.time(), &bodies)
    {
        Ok(n) => editor.status(format!(
            "The initial state of {n} bodies is now their state at t = {:.3}.",
            viewer.time()
        )),
        Err(e) => viewer.say(&e.reason),
    }
}

/// The mouse on the picture: all buttons through one drag gesture.
fn mouse(viewer: &Rc<Viewer>, area: &gtk::GLArea) {
    let drag = gtk::GestureDrag::new();
    drag.set_button(0);
    let start = Rc::new(std::cell::Cell::new((0.0, 0.0)));
    {
        let viewer = Rc::downgrade(viewer);
        let start = start.clone();
        let area = area.clone();
        drag.connect_drag_begin(move |gesture, x, y| {
            let Some(viewer) = viewer.upgrade() else {
                return;
            };
            area.grab_focus();
            start.set((x, y));
            let shift = gesture
                .current_event_state()
                .contains(gdk::ModifierType::SHIFT_MASK);
            let at = viewer.gl().picture_point(x, y);
            viewer.press(gesture.current_button(), shift, at);
        });
    }
    {
        let viewer = Rc::downgrade(viewer);
        let start = start.clone();
        drag.connect_drag_update(move |_, dx, dy| {
            if let Some(viewer) = viewer.upgrade() {
                let (x, y) = start.get();
                let at = viewer.gl().picture_point(x + dx, y + dy);
                viewer.drag_to(at);
            }
        });
    }
    {
        let viewer = Rc::downgrade(viewer);
        drag.connect_drag_end(move |gesture, dx, dy| {
            if let Some(viewer) = viewer.upgrade() {
                let (x, y) = start.get();
                let at = viewer.gl().picture_point(x + dx, y + dy);
                viewer.release(gesture.current_button(), at);
            }
        });
    }
    area.add_controller(drag);
    let wheel = gtk::EventControllerScroll::new(gtk::EventControllerScrollFlags::VERTICAL);
    {
        let viewer = Rc::downgrade(viewer);
        wheel.connect_scroll(move |_, _, dy| match viewer.upgrade() {
            Some(viewer) => {
                // GTK's steps are positive away from the user.
                viewer.scroll(-dy);
                glib::Propagation::Stop
            }
            None => glib::Propagation::Proceed,
        });
    }
    area.add_controller(wheel);
    let motion = gtk::EventControllerMotion::new();
    {
        let viewer = Rc::downgrade(viewer);
        motion.connect_motion(move |_, x, y| {
            if let Some(viewer) = viewer.upgrade() {
                let at = viewer.gl().picture_point(x, y);
                viewer.pointer_moved(at);
            }
        });
    }
    {
        let viewer = Rc::downgrade(viewer);
        motion.connect_leave(move |_| {
            if let Some(viewer) = viewer.upgrade() {
                viewer.pointer_left();
            }
        });
    }
    area.add_controller(motion);
}

/// The viewer's keys (4.1.3, 4.1.6, 4.1.7), with the meanings of `crate::view::keys`. The
/// arrow keys are seen before the focused widget sees them (which would move the focus) and
/// taken only when they push a body, live; the others come after the focused widget, so a
/// text field still gets its letters.
fn keys(viewer: &Rc<Viewer>, window: &gtk::ApplicationWindow) {
    for phase in [
        gtk::PropagationPhase::Capture,
        gtk::PropagationPhase::Bubble,
    ] {
        let arrows = phase == gtk::PropagationPhase::Capture;
        let action = move |key: gdk::Key, state: gdk::ModifierType| {
            if state.intersects(gdk::ModifierType::CONTROL_MASK | gdk::ModifierType::ALT_MASK) {
                return None;
            }
            KeyAction::of_key(&key.name()?)
                .filter(|action| matches!(action, KeyAction::Push(_)) == arrows)
        };
        let keys = gtk::EventControllerKey::new();
        keys.set_propagation_phase(phase);
        {
            let viewer = Rc::downgrade(viewer);
            keys.connect_key_pressed(move |_, key, _, state| {
                match (viewer.upgrade(), action(key, state)) {
                    (Some(viewer), Some(action)) if viewer.key(action, true) => {
                        glib::Propagation::Stop
                    }
                    _ => glib::Propagation::Proceed,
                }
            });
        }
        {
            let viewer = Rc::downgrade(viewer);
            keys.connect_key_released(move |_, key, _, state| {
                if let (Some(viewer), Some(action)) = (viewer.upgrade(), action(key, state)) {
                    viewer.key(action, false);
                }
            });
        }
        window.add_controller(keys);
    }
}

/// Sets the state of `window`'s action `name` (the time or the rate) to `value`.
fn show_state(window: &glib::WeakRef<gtk::ApplicationWindow>, name: &str, value: f64) {
    let action = window
        .upgrade()
        .and_then(|w| w.lookup_action(name))
        .and_then(|a| a.downcast::<gio::SimpleAction>().ok());
    if let Some(action) = action {
        action.set_state(&value.to_variant());
    }
}

/// Shows Live on or off in the window's actions: the Live toggle's state, playback off while
/// live, Keep as trajectory while there is a run to keep.
fn show_live(window: &gtk::ApplicationWindow, status: LiveStatus) {
    let set = |name: &str, enabled: bool| {
        if let Some(action) = window
            .lookup_action(name)
            .and_then(|a| a.downcast::<gio::SimpleAction>().ok())
        {
            action.set_enabled(enabled);
        }
    };
    for name in ["play", "stop", "rewind", "step", "step-back", "go-end"] {
        set(name, !status.live);
    }
    set("keep-trajectory", status.keepable);
    if let Some(live) = window
        .lookup_action("live")
        .and_then(|a| a.downcast::<gio::SimpleAction>().ok())
    {
        live.set_state(&status.live.to_variant());
    }
}

/// Text next to handles, on a pale box so it reads over any picture.
fn draw_labels(cr: &gtk::cairo::Context, labels: &[(nalgebra::Point2<f64>, String)], scale: f64) {
    cr.set_font_size(11.0);
    for (at, text) in labels {
        let (x, y) = (at.x / scale + 8.0, at.y / scale - 8.0);
        let Ok(extents) = cr.text_extents(text) else {
            continue;
        };
        cr.set_source_rgba(1.0, 1.0, 1.0, 0.75);
        cr.rectangle(
            x - 2.0,
            y - extents.height() - 2.0,
            extents.x_advance() + 4.0,
            extents.height() + 5.0,
        );
        let _ = cr.fill();
        cr.set_source_rgb(0.1, 0.1, 0.1);
        cr.move_to(x, y);
        let _ = cr.show_text(text);
    }
}
