//! Fields for typed values in the editors' windows (the shape editor's point and radius, the
//! trajectory editor's point): a labelled entry whose Enter applies what was typed, and the
//! button that applies it too, and the number typed into an entry.

use gtk::prelude::*;
use gtk4 as gtk;

/// Appends to `row` the label `label` (with its mnemonic) and an entry `width` characters wide
/// that it names; Enter in the entry calls `apply`.
pub fn labelled_entry(
    row: &gtk::Box,
    label: &str,
    width: i32,
    apply: impl Fn() + 'static,
) -> gtk::Entry {
    let entry = gtk::Entry::new();
    entry.set_width_chars(width);
    let label = gtk::Label::with_mnemonic(label);
    label.set_mnemonic_widget(Some(&entry));
    row.append(&label);
    row.append(&entry);
    entry.connect_activate(move |_| apply());
    entry
}

/// Appends to `row` a button labelled `label` (with its mnemonic) that calls `apply`.
pub fn apply_button(row: &gtk::Box, label: &str, apply: impl Fn() + 'static) {
    let button = gtk::Button::with_mnemonic(label);
    button.connect_clicked(move |_| apply());
    row.append(&button);
}

/// The number typed into `entry`, or an error that names the field `name` and what it holds.
pub fn typed_number(name: &str, entry: &gtk::Entry) -> Result<f64, String> {
    let text = entry.text();
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("{name}: `{text}` is not a number."))
}
