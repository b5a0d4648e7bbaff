//! The control panel (figure 4.1, upper left): the menus that manage the whole editor — File,
//! Edit, View, Create and Shapes — the Simulate button, the simulation settings
//! (`settings`), the scene's camera (`camera_fields`), and a status line with the simulation's progress, errors and prompts.

use super::create::{Creation, ForceCreation, LinkCreation, Prompt, TorqueCreation};
use super::editor::{Editor, EditorEvent};
use super::{camera_fields, export, files, settings, EditorKind};
use crate::scene::SceneError;
use crate::session::{Event, SimStatus};
use crate::window_picture;
use gtk::prelude::*;
use gtk::{gio, glib};
use gtk4 as gtk;
use std::cell::{Cell, RefCell};
use std::path::Path;
use std::rc::{Rc, Weak};

/// How the status line begins a message about an error in the text.
const TEXT_ERROR: &str = "The text has an error";

/// Opens the control panel of the editor's session. Closing it closes every window of the
/// session (asking first when the text is not saved).
pub fn open(editor: &Rc<Editor>) -> gtk::ApplicationWindow {
    let window = editor.window("Asgard");
    window.set_default_size(460, 150);
    editor.set_control_panel(&window);

    let shapes_for_bodies = gio::Menu::new();
    let shapes_to_edit = gio::Menu::new();
    let bar = menus(&shapes_for_bodies, &shapes_to_edit, editor.saved_by_host());
    actions(editor, &window);

    let simulate = gtk::Button::with_label("Simulate");
    simulate.set_action_name(Some("win.simulate"));
    simulate.add_css_class("suggested-action");
    let cancel = gtk::Button::with_label("Stop");
    cancel.set_action_name(Some("win.stop-simulation"));
    let progress = gtk::ProgressBar::new();
    progress.set_hexpand(true);
    progress.set_valign(gtk::Align::Center);
    progress.set_show_text(true);
    let row = gtk::Box::new(gtk::Orientation::Horizontal, 6);
    row.append(&simulate);
    row.append(&cancel);
    row.append(&progress);
    let status = gtk::Label::new(None);
    status.set_xalign(0.0);
    status.set_wrap(true);
    status.set_selectable(true);

    let column = gtk::Box::new(gtk::Orientation::Vertical, 6);
    let body = gtk::Box::new(gtk::Orientation::Vertical, 6);
    body.set_margin_start(8);
    body.set_margin_end(8);
    body.set_margin_bottom(8);
    body.append(&row);
    body.append(&settings::fields(editor, &window));
    body.append(&camera_fields::fields(editor, &window));
    body.append(&status);
    column.append(&gtk::PopoverMenuBar::from_model(Some(&bar)));
    column.append(&body);
    window.set_child(Some(&column));

    // The shape names the menus list; none before the first fill.
    let shown: RefCell<Option<Vec<String>>> = RefCell::new(None);
    let refresh_shapes = move |editor: &Editor| {
        let names: Vec<String> = editor
            .session
            .scene()
            .map(|s| s.shapes.iter().map(|s| s.name.clone()).collect())
            .unwrap_or_default();
        if shown.borrow().as_ref() != Some(&names) {
            fill_shapes(&shapes_for_bodies, "win.create-body", &names);
            if names.is_empty() {
                // A body needs a shape: lead there rather than hide Body.
                shapes_for_bodies.append(Some("No shapes yet: New shape…"), Some("win.new-shape"));
            }
            fill_shapes(&shapes_to_edit, "win.edit-shape", &names);
            *shown.borrow_mut() = Some(names);
        }
    };
    refresh_shapes(editor);
    show_status(editor, &progress, &status);
    if let Some(error) = editor.session.error() {
        status.set_text(&error_status(&error));
    }
    {
        let progress = progress.clone();
        let status = status.clone();
        let weak = Rc::downgrade(editor);
        let following = Rc::new(Cell::new(false));
        editor.observe(&window, move |editor, event| {
            match event {
                Event::SceneChanged => {
                    refresh_shapes(editor);
                    // The text evaluates again: the error shown is gone.
                    if status.text().starts_with(TEXT_ERROR) {
                        status.set_text("");
                    }
                }
                Event::SceneError(error) => status.set_text(&error_status(error)),
                _ => {}
            }
            if matches!(
                event,
                Event::TextChanged { .. }
                    | Event::SimulationStarted
                    | Event::SimulationProgress(_)
                    | Event::SimulationFinished
                    | Event::SimulationFailed(_)
            ) {
                show_status(editor, &progress, &status);
            }
            if matches!(event, Event::SimulationStarted) && !following.replace(true) {
                follow_run(weak.clone(), &progress, &status, following.clone());
            }
        });
    }
    editor.listen_while_open(&window, move |event| {
        if let EditorEvent::Status(message) = event {
            status.set_text(message);
        }
    });
    {
        let editor = Rc::downgrade(editor);
        // A host's document holds every edit already: closing loses nothing.
        window.connect_close_request(move |window| match editor.upgrade() {
            Some(editor) if editor.session.is_modified() && !editor.saved_by_host() => {
                confirm_close(&editor, window);
                glib::Propagation::Stop
            }
            Some(editor) => {
                editor.close_all();
                glib::Propagation::Proceed
            }
            None => glib::Propagation::Proceed,
        });
    }
    window.present();
    window
}

/// The status line for a text that does not evaluate.
fn error_status(error: &SceneError) -> String {
    format!(
        "{TEXT_ERROR} at line {}, column {}: {}",
        error.at.line, error.at.column, error.message
    )
}

/// Shows the simulation's state in the progress bar and the status line: a finished motion
/// of an older text is out of date until Simulate runs again.
fn show_status(editor: &Editor, progress: &gtk::ProgressBar, status: &gtk::Label) {
    match editor.session.status() {
        SimStatus::Idle => {
            progress.set_fraction(0.0);
            progress.set_text(Some("not simulated"));
        }
        SimStatus::Finished if editor.current_motion().is_none() => {
            progress.set_fraction(0.0);
            progress.set_text(Some("out of date: press Simulate"));
        }
        SimStatus::Running(p) => {
            // Progress reports come every so many steps; the growing motion says more.
            let computed = editor
                .current_motion()
                .map(|m| m.complete_until())
                .filter(|t| t.is_finite())
                .map_or(p.time, |t| t.max(p.time));
            let start = editor.session.simulator_settings().start;
            let done = (computed - start) / (p.end - start).max(f64::MIN_POSITIVE);
            progress.set_fraction(done.clamp(0.0, 1.0));
            progress.set_text(Some(&format!("simulating: t = {computed:.3} of {}", p.end)));
        }
        SimStatus::Finished => {
            progress.set_fraction(1.0);
            progress.set_text(Some("simulated"));
        }
        SimStatus::Failed(why) => {
            progress.set_text(Some("stopped"));
            status.set_text(&format!("The simulation stopped: {why}"));
        }
    }
}

/// Shows the run's progress at every frame of the progress bar while the simulation runs;
/// `following` is set while it does.
fn follow_run(
    editor: Weak<Editor>,
    progress: &gtk::ProgressBar,
    status: &gtk::Label,
    following: Rc<Cell<bool>>,
) {
    let status = status.downgrade();
    progress.add_tick_callback(move |progress, _| {
        let running = match (editor.upgrade(), status.upgrade()) {
            (Some(editor), Some(status)) => {
                show_status(&editor, progress, &status);
                matches!(editor.session.status(), SimStatus::Running(_))
            }
            _ => false,
        };
        following.set(running);
        if running {
            glib::ControlFlow::Continue
        } else {
            glib::ControlFlow::Break
        }
    });
}

fn fill_shapes(menu: &gio::Menu, action: &str, names: &[String]) {
    menu.remove_all();
    for name in names {
        let item = gio::MenuItem::new(Some(name), None);
        item.set_action_and_target_value(Some(action), Some(&name.to_variant()));
        menu.append_item(&item);
    }
}

/// The menu bar. For a scene of a host's document (`in_host`), File saves the document and
/// has no scene file to open, save as or revert to.
fn menus(shapes_for_bodies: &gio::Menu, shapes_to_edit: &gio::Menu, in_host: bool) -> gio::Menu {
    let section = |items: &[(&str, &str)]| {
        let menu = gio::Menu::new();
        for (label, action) in items {
            menu.append(Some(label), Some(action));
        }
        menu
    };
    let file = gio::Menu::new();
    let files: &[(&str, &str)] = if in_host {
        &[("Save the document", "win.save")]
    } else {
        &[
            ("Open…", "win.open"),
            ("Save", "win.save"),
            ("Save as…", "win.save-as"),
            ("Revert", "win.revert"),
        ]
    };
    file.append_section(None, &section(files));
    file.append_section(
        None,
        &section(&[
            ("Export picture…", "win.export-picture"),
            ("Export movie…", "win.export-movie"),
            ("Export glTF…", "win.export-gltf"),
            (window_picture::MENU_LABEL, "win.export-window"),
        ]),
    );
    file.append_section(None, &section(&[("Close", "win.close")]));
    let edit = section(&[("Undo", "win.undo"), ("Redo", "win.redo")]);
    let view = section(&[
        ("New graphical viewer", "win.new-graphical"),
        ("New language viewer", "win.new-language"),
        ("Trajectory editor", "win.trajectory-editor"),
        ("Plot a state variable", "win.plot"),
    ]);
    // Sections with headings rather than submenus: GTK 4.8's menu bar opens its first menu
    // again after an item of a nested submenu is chosen.
    let create = gio::Menu::new();
    create.append_section(Some("Body of shape"), shapes_for_bodies);
    create.append_section(
        Some("Force"),
        &section(&[
            ("Constant force", "win.create-force::constant"),
            ("Gravitational force", "win.create-force::gravitational"),
            ("Trajectory force", "win.create-force::trajectory"),
        ]),
    );
    create.append_section(
        Some("Torque"),
        &section(&[
            ("Constant torque", "win.create-torque::constant"),
            ("Trajectory torque", "win.create-torque::trajectory"),
        ]),
    );
    create.append_section(
        Some("Link"),
        &section(&[
            ("Object to object", "win.create-link::object"),
            ("Object to point", "win.create-link::point"),
            ("Object to trajectory", "win.create-link::trajectory"),
        ]),
    );
    create.append_section(
        None,
        &section(&[
            ("Trajectory", "win.create-trajectory"),
            ("Light source", "win.create-light"),
        ]),
    );
    let shapes = gio::Menu::new();
    shapes.append_section(None, &section(&[("New shape", "win.new-shape")]));
    shapes.append_section(Some("Edit shape"), shapes_to_edit);
    let bar = gio::Menu::new();
    bar.append_submenu(Some("File"), &file);
    bar.append_submenu(Some("Edit"), &edit);
    bar.append_submenu(Some("View"), &view);
    bar.append_submenu(Some("Create"), &create);
    bar.append_submenu(Some("Shapes"), &shapes);
    bar
}

fn actions(editor: &Rc<Editor>, window: &gtk::ApplicationWindow) {
    let add = |name: &str, run: fn(&Rc<Editor>, &gtk::Window)| {
        let action = gio::SimpleAction::new(name, None);
        let editor = Rc::downgrade(editor);
        let weak = window.downgrade();
        action.connect_activate(move |_, _| {
            if let (Some(editor), Some(window)) = (editor.upgrade(), weak.upgrade()) {
                run(&editor, window.upcast_ref());
            }
        });
        window.add_action(&action);
    };
    add("save", files::save);
    if !editor.saved_by_host() {
        add("open", files::open);
        add("save-as", files::save_as);
        add("revert", |e, _| files::revert(e));
    }
    add("close", |_, w| w.close());
    add("stop-simulation", |e, _| e.session.cancel_simulation());
    add("export-picture", |e, w| {
        ask_export(e, w, "Export a picture", "scene.png", |e, p| {
            export::picture(e, p).map(|()| format!("Wrote {}.", p.display()))
        })
    });
    add("export-movie", |e, w| {
        ask_export(e, w, "Export a movie", "scene.gif", |e, p| {
            export::movie(e, p).map(|()| "Writing the movie…".to_string())
        })
    });
    add("export-gltf", |e, w| {
        ask_export(e, w, "Export glTF", "scene.glb", |e, p| {
            export::gltf(e, p).map(|()| format!("Wrote {}.", p.display()))
        })
    });
    add("new-graphical", |e, _| {
        super::open_editor(&e.app, &e.session, EditorKind::Graphical)
    });
    add("new-language", |e, _| {
        super::open_editor(&e.app, &e.session, EditorKind::Language)
    });
    add("trajectory-editor", |e, _| {
        super::open_editor(&e.app, &e.session, EditorKind::Trajectory)
    });
    add("plot", |e, _| {
        super::open_editor(&e.app, &e.session, EditorKind::Plot)
    });
    add("new-shape", |e, _| super::shape_editor::open(e, None));
    add("create-trajectory", |e, _| {
        e.start_prompt(Prompt::new(Creation::Trajectory))
    });
    add("create-light", |e, _| {
        e.start_prompt(Prompt::new(Creation::Light))
    });

    let with_string = |name: &str, run: fn(&Rc<Editor>, &str)| {
        let action = gio::SimpleAction::new(name, Some(glib::VariantTy::STRING));
        let editor = Rc::downgrade(editor);
        action.connect_activate(move |_, parameter| {
            let value = parameter.and_then(|p| p.get::<String>());
            if let (Some(editor), Some(value)) = (editor.upgrade(), value) {
                run(&editor, &value);
            }
        });
        window.add_action(&action);
    };
    with_string("create-body", |e, shape| {
        e.start_prompt(Prompt::new(Creation::Body {
            shape: shape.to_owned(),
        }))
    });
    with_string("edit-shape", |e, shape| {
        super::shape_editor::open(e, Some(shape));
    });
    with_string("create-force", |e, kind| {
        let how = match kind {
            "gravitational" => ForceCreation::Gravitational,
            "trajectory" => ForceCreation::Trajectory,
            _ => ForceCreation::Constant,
        };
        e.start_prompt(Prompt::new(Creation::Force(how)));
    });
    with_string("create-torque", |e, kind| {
        let how = match kind {
            "trajectory" => TorqueCreation::Trajectory,
            _ => TorqueCreation::Constant,
        };
        e.start_prompt(Prompt::new(Creation::Torque(how)));
    });
    with_string("create-link", |e, kind| {
        let how = match kind {
            "point" => LinkCreation::ObjectPoint,
            "trajectory" => LinkCreation::ObjectTrajectory,
            _ => LinkCreation::ObjectObject,
        };
        e.start_prompt(Prompt::new(Creation::Link(how)));
    });
}

/// Asks for a file name, then exports there with `write`, reporting in the status line.
fn ask_export(
    editor: &Rc<Editor>,
    window: &gtk::Window,
    title: &str,
    suggested: &str,
    write: fn(&Rc<Editor>, &Path) -> Result<String, String>,
) {
    let editor = Rc::downgrade(editor);
    files::choose(
        window,
        title,
        gtk::FileChooserAction::Save,
        Some(suggested),
        move |path| {
            if let Some(editor) = editor.upgrade() {
                match write(&editor, &path) {
                    Ok(done) => editor.status(done),
                    Err(why) => editor.status(format!("Cannot export: {why}")),
                }
            }
        },
    );
}

/// Closing with unsaved changes: save, discard, or stay.
fn confirm_close(editor: &Rc<Editor>, window: &gtk::ApplicationWindow) {
    let dialog = gtk::MessageDialog::new(
        Some(window),
        gtk::DialogFlags::MODAL | gtk::DialogFlags::DESTROY_WITH_PARENT,
        gtk::MessageType::Question,
        gtk::ButtonsType::None,
        "The scene has changes that are not saved.",
    );
    dialog.add_buttons(&[
        ("Save", gtk::ResponseType::Accept),
        ("Close without saving", gtk::ResponseType::Reject),
        ("Cancel", gtk::ResponseType::Cancel),
    ]);
    let editor = Rc::downgrade(editor);
    let weak = window.downgrade();
    dialog.connect_response(move |dialog, response| {
        dialog.destroy();
        let (Some(editor), Some(window)) = (editor.upgrade(), weak.upgrade()) else {
            return;
        };
        match response {
            gtk::ResponseType::Accept => {
                files::save(&editor, window.upcast_ref());
                if !editor.session.is_modified() {
                    editor.close_all();
                }
            }
            gtk::ResponseType::Reject => editor.close_all(),
            _ => {}
        }
    });
    dialog.present();
}
