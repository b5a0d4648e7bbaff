//! The bottom of a graphical viewer (figure 4.2): time controls (start, a step back, play,
//! stop, a step forward, end, reverse, the speed from 1/8× to 8×, loop), the time scrollbar whose slider's left edge is the current time and whose length is one
//! second, and above it, while a trajectory is edited, its control points' times as marks that
//! can be dragged, with zoom buttons for finer times (4.1.4).

use super::viewer::Viewer;
use crate::scene::{EditValue, Target};
use crate::view::camera::PICK_RADIUS;
use gtk::cairo;
use gtk::prelude::*;
use gtk4 as gtk;
use std::cell::Cell;
use std::rc::Rc;

/// A time range shown across a width of pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeScale {
    pub from: f64,
    pub to: f64,
}

impl TimeScale {
    /// The scale of the marks: at zoom 1 the scrollbar's (the animation plus the slider's one
    /// second), zoomed in around `centre`.
    pub fn zoomed(start: f64, finish: f64, centre: f64, zoom: f64) -> TimeScale {
        let full = (finish - start).max(0.0) + 1.0;
        let span = full / zoom.max(1.0);
        let from = (centre - span / 2.0).clamp(start, start + full - span);
        TimeScale {
            from,
            to: from + span,
        }
    }

    /// Where `time` is across `width` pixels.
    pub fn x(&self, time: f64, width: f64) -> f64 {
        (time - self.from) / (self.to - self.from) * width
    }

    /// The time at `x` of `width` pixels.
    pub fn time(&self, x: f64, width: f64) -> f64 {
        self.from + x / width.max(1.0) * (self.to - self.from)
    }
}

/// The time bar's widgets.
pub struct TimeBar {
    pub widget: gtk::Box,
    adjustment: gtk::Adjustment,
    scrollbar: gtk::Scrollbar,
    label: gtk::Label,
    marks_row: gtk::Box,
    marks: gtk::DrawingArea,
    zoom: Rc<Cell<f64>>,
    /// Set while the bar itself moves the adjustment, so that is not taken as the user's.
    updating: Rc<Cell<bool>>,
    /// The speed chosen, an index into [`SPEEDS`].
    speed: gtk::DropDown,
    reverse: gtk::ToggleButton,
}

/// The speeds offered, in simulated seconds per real second.
const SPEEDS: [(f64, &str); 7] = [
    (0.125, "⅛×"),
    (0.25, "¼×"),
    (0.5, "½×"),
    (1.0, "1×"),
    (2.0, "2×"),
    (4.0, "4×"),
    (8.0, "8×"),
];

/// Marks of the edited trajectory: (piece, point, time).
fn marks_of(viewer: &Viewer) -> Vec<(usize, usize, usize, f64)> {
    let Some(name) = viewer.editing_trajectory() else {
        return Vec::new();
    };
    let Some(scene) = viewer.editor.session.scene() else {
        return Vec::new();
    };
    let Some(t) = scene.trajectories.iter().position(|tr| tr.name == name) else {
        return Vec::new();
    };
    scene.trajectories[t]
        .pieces
        .iter()
        .enumerate()
        .flat_map(|(p, piece)| {
            piece
                .points
                .iter()
                .enumerate()
                .map(move |(k, point)| (t, p, k, point.time))
        })
        .collect()
}

impl TimeBar {
    pub fn new(viewer: &Rc<Viewer>) -> TimeBar {
        let (start, finish) = viewer.time_range();
        let adjustment = gtk::Adjustment::new(viewer.time(), start, finish + 1.0, 0.1, 1.0, 1.0);
        let scrollbar = gtk::Scrollbar::new(gtk::Orientation::Horizontal, Some(&adjustment));
        scrollbar.set_hexpand(true);
        let updating = Rc::new(Cell::new(false));
        {
            let viewer = Rc::downgrade(viewer);
            let updating = updating.clone();
            adjustment.connect_value_changed(move |adj| {
                if updating.get() {
                    return;
                }
                if let Some(viewer) = viewer.upgrade() {
                    viewer.stop();
                    viewer.set_time(adj.value());
                }
            });
        }
        let controls = gtk::Box::new(gtk::Orientation::Horizontal, 2);
        // The window's actions: disabling one (while live) disables its button.
        let button = |icon: &str, tip: &str, action: &str| {
            let b = gtk::Button::from_icon_name(icon);
            b.set_tooltip_text(Some(tip));
            b.set_action_name(Some(action));
            controls.append(&b);
        };
        button("media-skip-backward-symbolic", "Start (Home)", "win.rewind");
        button("go-previous-symbolic", "Step back (Left)", "win.step-back");
        button("media-playback-start-symbolic", "Play (space)", "win.play");
        button("media-playback-stop-symbolic", "Stop (space)", "win.stop");
        button("go-next-symbolic", "Step (Right)", "win.step");
        button("media-skip-forward-symbolic", "End (End)", "win.go-end");
        let reverse = gtk::ToggleButton::new();
        reverse.set_icon_name("media-playlist-repeat-symbolic");
        reverse.set_tooltip_text(Some("Play backwards (r)"));
        controls.append(&reverse);
        let speed = gtk::DropDown::from_strings(&SPEEDS.map(|(_, label)| label));
        speed.set_tooltip_text(Some("Speed ([ slower, ] faster)"));
        speed.set_selected(3);
        controls.append(&speed);
        {
            let viewer = Rc::downgrade(viewer);
            let updating = updating.clone();
            let apply = move |speed: &gtk::DropDown, reverse: &gtk::ToggleButton| {
                if updating.get() {
                    return;
                }
                let Some(viewer) = viewer.upgrade() else {
                    return;
                };
                let size = SPEEDS.get(speed.selected() as usize).map_or(1.0, |s| s.0);
                viewer.set_rate(if reverse.is_active() { -size } else { size });
            };
            let r = reverse.clone();
            let a = apply.clone();
            speed.connect_selected_notify(move |speed| a(speed, &r));
            let s = speed.clone();
            reverse.connect_toggled(move |reverse| apply(&s, reverse));
        }
        let looping = gtk::ToggleButton::with_label("Loop");
        looping.set_tooltip_text(Some("Start again from the other end"));
        looping.set_action_name(Some("win.loop"));
        controls.append(&looping);
        let live = gtk::ToggleButton::with_label("Live");
        live.set_tooltip_text(Some(
            "Run the scene in real time; the left button on a body pulls it (Ctrl+L)",
        ));
        live.set_action_name(Some("win.live"));
        controls.append(&live);
        let keep = gtk::Button::with_label("Keep as trajectory");
        keep.set_tooltip_text(Some(
            "Append the last live run's path of every pulled body to the text (Ctrl+K)",
        ));
        keep.set_action_name(Some("win.keep-trajectory"));
        controls.append(&keep);
        let label = gtk::Label::new(None);
        label.set_width_chars(12);
        label.set_xalign(1.0);
        controls.append(&label);
        controls.append(&scrollbar);

        let marks = gtk::DrawingArea::new();
        marks.set_content_height(22);
        marks.set_hexpand(true);
        let zoom = Rc::new(Cell::new(1.0));
        let marks_row = gtk::Box::new(gtk::Orientation::Horizontal, 2);
        let zoom_button = |icon: &str, tip: &str, factor: f64| {
            let b = gtk::Button::from_icon_name(icon);
            b.set_tooltip_text(Some(tip));
            let zoom = zoom.clone();
            let marks = marks.clone();
            b.connect_clicked(move |_| {
                zoom.set((zoom.get() * factor).clamp(1.0, 1024.0));
                marks.queue_draw();
            });
            marks_row.append(&b);
        };
        zoom_button("zoom-out-symbolic", "Coarser times", 0.5);
        zoom_button("zoom-in-symbolic", "Finer times", 2.0);
        marks_row.append(&marks);
        marks_row.set_visible(false);

        let scale_of = {
            let zoom = zoom.clone();
            move |viewer: &Viewer| {
                let (start, finish) = viewer.time_range();
                TimeScale::zoomed(start, finish, viewer.time(), zoom.get())
            }
        };
        {
            let viewer = Rc::downgrade(viewer);
            let scale_of = scale_of.clone();
            marks.set_draw_func(move |area, cr, width, height| {
                if let Some(viewer) = viewer.upgrade() {
                    draw_marks(&viewer, &scale_of(&viewer), area, cr, width, height);
                }
            });
        }
        drag_marks(viewer, &marks, scale_of);

        let widget = gtk::Box::new(gtk::Orientation::Vertical, 2);
        widget.append(&marks_row);
        widget.append(&controls);
        TimeBar {
            widget,
            adjustment,
            scrollbar,
            label,
            marks_row,
            marks,
            zoom,
            updating,
            speed,
            reverse,
        }
    }

    /// Shows the playing rate `rate` (negative: backwards) in the speed and reverse controls.
    pub fn show_rate(&self, rate: f64) {
        self.updating.set(true);
        self.reverse.set_active(rate < 0.0);
        if let Some(i) = SPEEDS.iter().position(|(size, _)| *size == rate.abs()) {
            self.speed.set_selected(i as u32);
        }
        self.updating.set(false);
    }

    /// Shows `time` within the animation's range `(start, finish)`.
    pub fn show_time(&self, time: f64, (start, finish): (f64, f64)) {
        self.updating.set(true);
        self.adjustment.set_lower(start);
        self.adjustment.set_upper(finish.max(start) + 1.0);
        self.adjustment.set_value(time);
        self.updating.set(false);
        self.label.set_text(&format!("t = {time:.3} s"));
        self.marks.queue_draw();
    }

    /// While live the time is the live scene's: the scrollbar cannot move it.
    pub fn show_live(&self, live: bool) {
        self.scrollbar.set_sensitive(!live);
    }

    /// Shows or hides the marks of the edited trajectory.
    pub fn show_marks(&self, visible: bool) {
        self.marks_row.set_visible(visible);
        if !visible {
            self.zoom.set(1.0);
        }
        self.marks.queue_draw();
    }
}

fn draw_marks(
    viewer: &Viewer,
    scale: &TimeScale,
    area: &gtk::DrawingArea,
    cr: &cairo::Context,
    width: i32,
    height: i32,
) {
    let (w, h) = (f64::from(width), f64::from(height));
    let colour = area.style_context().color();
    cr.set_source_rgba(
        f64::from(colour.red()),
        f64::from(colour.green()),
        f64::from(colour.blue()),
        0.8,
    );
    cr.set_line_width(1.0);
    cr.move_to(0.0, h - 0.5);
    cr.line_to(w, h - 0.5);
    let now = scale.x(viewer.time(), w);
    cr.move_to(now, 0.0);
    cr.line_to(now, h);
    let _ = cr.stroke();
    cr.set_source_rgb(0.55, 0.20, 0.75);
    cr.set_font_size(10.0);
    for (_, _, _, time) in marks_of(viewer) {
        let x = scale.x(time, w);
        cr.rectangle(x - 2.0, h / 2.0, 4.0, h / 2.0);
        let _ = cr.fill();
        cr.move_to(x + 3.0, h / 2.0 - 1.0);
        let _ = cr.show_text(&format!("{time:.3}"));
    }
}

/// Dragging a mark changes the time of its control point.
fn drag_marks(
    viewer: &Rc<Viewer>,
    marks: &gtk::DrawingArea,
    scale_of: impl Fn(&Viewer) -> TimeScale + Clone + 'static,
) {
    let drag = gtk::GestureDrag::new();
    let dragged: Rc<Cell<Option<(Target, f64)>>> = Rc::new(Cell::new(None));
    {
        let viewer = Rc::downgrade(viewer);
        let dragged = dragged.clone();
        let scale_of = scale_of.clone();
        let marks = marks.clone();
        drag.connect_drag_begin(move |_, x, _| {
            let Some(viewer) = viewer.upgrade() else {
                return;
            };
            let width = f64::from(marks.width());
            let scale = scale_of(&viewer);
            let nearest = marks_of(&viewer)
                .into_iter()
                .map(|(t, p, k, time)| ((t, p, k), (scale.x(time, width) - x).abs()))
                .filter(|(_, d)| *d <= PICK_RADIUS)
                .min_by(|a, b| a.1.total_cmp(&b.1));
            if let Some(((trajectory, piece, point), _)) = nearest {
                viewer.editor.session.begin_drag();
                let target = Target::ControlTime {
                    trajectory,
                    piece,
                    point,
                };
                dragged.set(Some((target, x)));
            }
        });
    }
    {
        let viewer = Rc::downgrade(viewer);
        let dragged = dragged.clone();
        let marks = marks.clone();
        drag.connect_drag_update(move |_, dx, _| {
            let (Some(viewer), Some((target, x0))) = (viewer.upgrade(), dragged.get()) else {
                return;
            };
            let time = scale_of(&viewer).time(x0 + dx, f64::from(marks.width()));
            let session = &viewer.editor.session;
            if let Err(e) = session.edit(target, EditValue::Number(time), Some(viewer.view_id)) {
                viewer.say(&e.reason);
            }
            marks.queue_draw();
        });
    }
    {
        let viewer = Rc::downgrade(viewer);
        drag.connect_drag_end(move |_, _, _| {
            if let (Some(viewer), Some(_)) = (viewer.upgrade(), dragged.take()) {
                viewer.editor.session.end_drag();
            }
        });
    }
    marks.add_controller(drag);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_zoom_one_the_marks_follow_the_scrollbar() {
        let scale = TimeScale::zoomed(0.0, 9.0, 4.0, 1.0);
        assert_eq!(
            scale,
            TimeScale {
                from: 0.0,
                to: 10.0
            }
        );
        // The slider's left edge for t = 4 is 40% along: so is the mark.
        assert!((scale.x(4.0, 500.0) - 200.0).abs() < 1e-9);
        assert!((scale.time(200.0, 500.0) - 4.0).abs() < 1e-9);
    }

    #[test]
    fn zooming_in_centres_on_the_time_and_stays_in_range() {
        let scale = TimeScale::zoomed(0.0, 9.0, 5.0, 4.0);
        assert_eq!(
            scale,
            TimeScale {
                from: 3.75,
                to: 6.25
            }
        );
        let edge = TimeScale::zoomed(0.0, 9.0, 0.1, 4.0);
        assert_eq!(edge, TimeScale { from: 0.0, to: 2.5 });
    }
}
