//! The small control bar over an embedded animation, shown while the pointer is over it or
//! it has the focus: start, a frame back, play or pause, a frame forward, end, reverse, slower,
//! the rate, faster, and loop.
//!
//! Its buttons press the keys the contract gives these meanings (`Home`, `Left`, `space`,
//! `Right`, `End`, `r`, `bracketleft`, `bracketright`; see `Key` in
//! `schemas/org.asgard.Rendition1.xml`), so a button does exactly what its key does over the
//! animation and the rate's steps are the slave's; Loop sets the rendition's `Loop`. What it
//! shows (playing or not, the rate) follows the rendition's `Playing` and `Rate` properties.

use gtk::prelude::*;
use gtk4 as gtk;
use std::cell::Cell;
use std::rc::Rc;

/// The bar's widgets that show the rendition's state.
pub struct ControlBar {
    pub widget: gtk::Box,
    play: gtk::Button,
    rate: gtk::Label,
    looping: gtk::ToggleButton,
    /// Set while the bar shows a state, so that is not taken as the reader's click.
    quiet: Rc<Cell<bool>>,
}

/// What a button of the bar does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Presses the key of this name.
    Key(&'static str),
    /// Sets `Loop`.
    Loop(bool),
}

impl ControlBar {
    /// A bar whose buttons call `act`.
    pub fn new(act: impl Fn(Control) + Clone + 'static) -> ControlBar {
        let widget = gtk::Box::new(gtk::Orientation::Horizontal, 2);
        widget.add_css_class("asgard-controls");
        widget.set_halign(gtk::Align::Center);
        widget.set_valign(gtk::Align::End);
        widget.set_margin_bottom(6);
        let button = |icon: &str, tip: &str, key: &'static str| {
            let b = gtk::Button::from_icon_name(icon);
            b.set_tooltip_text(Some(tip));
            b.set_focus_on_click(false);
            let act = act.clone();
            b.connect_clicked(move |_| act(Control::Key(key)));
            widget.append(&b);
            b
        };
        button("media-skip-backward-symbolic", "Start (Home)", "Home");
        button("go-previous-symbolic", "A frame back (Left)", "Left");
        let play = button("media-playback-start-symbolic", "Play (space)", "space");
        button("go-next-symbolic", "A frame forward (Right)", "Right");
        button("media-skip-forward-symbolic", "End (End)", "End");
        button("object-flip-horizontal-symbolic", "Reverse (r)", "r");
        button("go-down-symbolic", "Slower ([)", "bracketleft");
        let rate = gtk::Label::new(Some("1×"));
        rate.set_width_chars(5);
        widget.append(&rate);
        button("go-up-symbolic", "Faster (])", "bracketright");
        let looping = gtk::ToggleButton::with_label("Loop");
        looping.set_tooltip_text(Some("Start again from the other end"));
        looping.set_focus_on_click(false);
        let quiet = Rc::new(Cell::new(false));
        let q = quiet.clone();
        looping.connect_toggled(move |b| {
            if !q.get() {
                act(Control::Loop(b.is_active()));
            }
        });
        widget.append(&looping);
        ControlBar {
            widget,
            play,
            rate,
            looping,
            quiet,
        }
    }

    pub fn show_playing(&self, playing: bool) {
        let (icon, tip) = if playing {
            ("media-playback-pause-symbolic", "Pause (space)")
        } else {
            ("media-playback-start-symbolic", "Play (space)")
        };
        self.play.set_icon_name(icon);
        self.play.set_tooltip_text(Some(tip));
    }

    pub fn show_rate(&self, rate: f64) {
        self.rate.set_text(&rate_label(rate));
    }

    /// Shows whether playback loops.
    pub fn show_looping(&self, looping: bool) {
        self.quiet.set(true);
        self.looping.set_active(looping);
        self.quiet.set(false);
    }
}

/// "2×", "½×", "◀ ⅛×": the rate as the bar shows it.
pub fn rate_label(rate: f64) -> String {
    let size = rate.abs();
    let number = match size {
        0.125 => "⅛".to_string(),
        0.25 => "¼".to_string(),
        0.5 => "½".to_string(),
        s => format!("{s}"),
    };
    let way = if rate < 0.0 { "◀ " } else { "" };
    format!("{way}{number}×")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_as_fractions_and_reverse_is_marked() {
        assert_eq!(rate_label(1.0), "1×");
        assert_eq!(rate_label(-0.125), "◀ ⅛×");
        assert_eq!(rate_label(8.0), "8×");
    }
}
