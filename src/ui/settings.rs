//! The simulation settings in the control panel (4.3): the simulator's `finish`, `step` and
//! `tolerance`, and live mode's `live_dt` and real-time factor (`live_rate`), each a field
//! whose value, on Enter, is written into the text's `simulator` command
//! (`scene_text::write_simulator`) as one undoable change, like any other edit of the text.

use super::editor::Editor;
use super::scene_text::{number, write_simulator};
use crate::scene::model::Simulator;
use crate::session::Event;
use gtk::prelude::*;
use gtk4 as gtk;
use std::rc::Rc;

/// One setting: its label (with a mnemonic), its `simulator` option, and its value.
struct Setting {
    label: &'static str,
    option: &'static str,
    value: fn(&Simulator) -> f64,
}

const SETTINGS: [Setting; 5] = [
    Setting {
        label: "Fi_nish (s)",
        option: "finish",
        value: |s| s.finish,
    },
    Setting {
        label: "St_ep (s)",
        option: "step",
        value: |s| s.step,
    },
    Setting {
        label: "_Tolerance",
        option: "tolerance",
        value: |s| s.tolerance,
    },
    Setting {
        label: "Live _dt (s)",
        option: "live_dt",
        value: |s| s.live_dt,
    },
    Setting {
        label: "Live _rate (×)",
        option: "live_rate",
        value: |s| s.live_rate,
    },
];

/// The settings' fields for the control panel `window`, showing the scene's values and
/// following the scene.
pub fn fields(editor: &Rc<Editor>, window: &gtk::ApplicationWindow) -> gtk::Grid {
    let grid = gtk::Grid::builder()
        .column_spacing(6)
        .row_spacing(4)
        .build();
    let mut entries = Vec::with_capacity(SETTINGS.len());
    for (i, setting) in SETTINGS.iter().enumerate() {
        let label = gtk::Label::with_mnemonic(setting.label);
        label.set_xalign(0.0);
        let entry = gtk::Entry::builder().width_chars(8).build();
        label.set_mnemonic_widget(Some(&entry));
        let (column, row) = (2 * (i as i32 % 3), i as i32 / 3);
        grid.attach(&label, column, row, 1, 1);
        grid.attach(&entry, column + 1, row, 1, 1);
        let weak = Rc::downgrade(editor);
        let option = setting.option;
        entry.connect_activate(move |entry| {
            if let Some(editor) = weak.upgrade() {
                apply(&editor, option, &entry.text());
            }
        });
        entries.push(entry);
    }
    let show = move |editor: &Editor| {
        let settings = editor.session.simulator_settings();
        for (entry, setting) in entries.iter().zip(&SETTINGS) {
            entry.set_text(&number((setting.value)(&settings)));
        }
    };
    show(editor);
    editor.observe(window, move |editor, event| {
        if matches!(event, Event::SceneChanged) {
            show(editor);
        }
    });
    grid
}

/// Writes `typed` as the value of the `simulator` option `option`, or says why not.
fn apply(editor: &Editor, option: &str, typed: &str) {
    let Some(value) = typed.trim().parse::<f64>().ok().filter(|v| v.is_finite()) else {
        editor.status(format!("{option}: “{typed}” is not a number."));
        return;
    };
    let written = {
        let Some(scene) = editor.session.scene() else {
            editor.status("The text has an error: correct it, then change the settings.");
            return;
        };
        if value == setting_now(&scene.simulator, option) {
            return;
        }
        write_simulator(&editor.session.text(), &scene, option, value)
    };
    let text = match written {
        Ok(text) => text,
        Err(e) => return editor.status(format!("Cannot set {option}: {}", e.reason)),
    };
    // A value the scene refuses (a finish before the start) is not written: the text stays.
    match crate::scene::evaluate(&text) {
        Ok(_) => {
            editor.session.set_text(text, None);
            editor.status(format!("Set {option} to {value}."));
        }
        Err(error) => editor.status(format!("Cannot set {option} to {value}: {}", error.message)),
    }
}

/// The value of `option` in `settings`.
fn setting_now(settings: &Simulator, option: &str) -> f64 {
    SETTINGS
        .iter()
        .find(|s| s.option == option)
        .map_or(f64::NAN, |s| (s.value)(settings))
}
