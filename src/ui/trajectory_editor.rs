//! The trajectory editor (4.1.4, figure 4.4): the three components of a trajectory plotted
//! against time, one chart each, with its control points as dots to drag — up and down
//! changes the component, sideways the point's time — and zoom on the time axis. Useful where
//! a path is hard to edit in 3-space, such as a rotation trajectory. Under the charts, the
//! point clicked last (or stepped to with the arrows) shows its time and coordinates in fields
//! to type into; Enter or Set writes them into the text as one undo step.

use super::chart::Chart;
use super::editor::Editor;
use super::fields::{apply_button, labelled_entry, typed_number};
use crate::scene::model::{Trajectory, Vec3};
use crate::scene::{EditValue, Target};
use crate::session::Event;
use crate::view::camera::PICK_RADIUS;
use gtk::prelude::*;
use gtk4 as gtk;
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

/// Curve points drawn per Bézier segment.
const SAMPLES: usize = 32;

/// A control point being dragged in one component's chart.
#[derive(Clone, Copy, Debug)]
struct Dragged {
    piece: usize,
    point: usize,
    /// The chart as it was when the drag started: the pointer maps through it, so the chart
    /// does not rescale under the pointer.
    chart: Chart,
    start: (f64, f64),
}

/// The editor's state.
struct State {
    editor: Rc<Editor>,
    names: RefCell<Vec<String>>,
    choice: gtk::DropDown,
    /// The time range shown, when zoomed; `None` fits the trajectory.
    range: Cell<Option<(f64, f64)>>,
    dragged: Cell<Option<(usize, Dragged)>>,
    areas: RefCell<Vec<gtk::DrawingArea>>,
    /// The control point the fields show, counted over the trajectory's pieces in order.
    selected: Cell<usize>,
    fields: OnceCell<PointFields>,
}

/// The fields of the selected control point: which it is, its time and its three coordinates.
struct PointFields {
    which: gtk::Label,
    time: gtk::Entry,
    coordinates: [gtk::Entry; 3],
}

impl State {
    fn trajectory(&self) -> Option<(usize, Trajectory)> {
        let name = self
            .names
            .borrow()
            .get(self.choice.selected() as usize)
            .cloned()?;
        let scene = self.editor.session.scene()?;
        let index = scene.trajectories.iter().position(|t| t.name == name)?;
        Some((index, scene.trajectories[index].clone()))
    }

    /// The time range shown: the zoomed one, or the trajectory's with a margin.
    fn time_range(&self, trajectory: &Trajectory) -> (f64, f64) {
        self.range.get().unwrap_or_else(|| {
            let (a, b) = trajectory.time_range().unwrap_or((0.0, 1.0));
            let margin = ((b - a) * 0.05).max(0.05);
            (a - margin, b + margin)
        })
    }

    fn chart(&self, trajectory: &Trajectory, component: usize, area: &gtk::DrawingArea) -> Chart {
        if let Some((c, dragged)) = self.dragged.get() {
            if c == component {
                return dragged.chart;
            }
        }
        let range = self.time_range(trajectory);
        let values = curve(trajectory)
            .into_iter()
            .map(|(_, p)| p[component])
            .chain(
                trajectory
                    .pieces
                    .iter()
                    .flat_map(|p| &p.points)
                    .map(|p| p.pos[component]),
            );
        Chart::fitting(
            range,
            values,
            f64::from(area.width()),
            f64::from(area.height()),
        )
    }

    fn redraw(&self) {
        for area in self.areas.borrow().iter() {
            area.queue_draw();
        }
    }

    /// The selected point as (piece, point within it), and how many points there are.
    fn selected_point(&self, trajectory: &Trajectory) -> Option<((usize, usize), usize)> {
        let places: Vec<(usize, usize)> = trajectory
            .pieces
            .iter()
            .enumerate()
            .flat_map(|(p, piece)| (0..piece.points.len()).map(move |k| (p, k)))
            .collect();
        let index = self.selected.get().min(places.len().checked_sub(1)?);
        Some((places[index], places.len()))
    }

    /// Selects the point `step` places on from the selected one (within the trajectory).
    fn step_selection(&self, step: isize) {
        let count = self
            .trajectory()
            .and_then(|(_, t)| self.selected_point(&t))
            .map_or(0, |(_, count)| count);
        let index = self.selected.get().min(count.saturating_sub(1)) as isize + step;
        self.selected
            .set(index.clamp(0, count.saturating_sub(1) as isize) as usize);
        self.show_selected();
    }

    /// Fills the fields with the selected point's values.
    fn show_selected(&self) {
        let Some(fields) = self.fields.get() else {
            return;
        };
        let point = self.trajectory().and_then(|(_, trajectory)| {
            let ((piece, k), count) = self.selected_point(&trajectory)?;
            let index = self.selected.get().min(count - 1);
            Some((index, count, trajectory.pieces[piece].points[k].clone()))
        });
        let sensitive = point.is_some();
        for entry in fields.coordinates.iter().chain([&fields.time]) {
            entry.set_sensitive(sensitive);
        }
        let Some((index, count, point)) = point else {
            fields.which.set_text("No point");
            return;
        };
        fields
            .which
            .set_text(&format!("Point {} of {count}", index + 1));
        fields.time.set_text(&format_number(point.time));
        for (entry, value) in fields.coordinates.iter().zip(point.pos.iter()) {
            entry.set_text(&format_number(*value));
        }
    }

    /// Writes the fields' values into the selected point, as one undo step.
    fn set_selected(&self) {
        let (Some(fields), Some((index, trajectory))) = (self.fields.get(), self.trajectory())
        else {
            return;
        };
        let Some(((piece, point), _)) = self.selected_point(&trajectory) else {
            return;
        };
        let read = typed_number;
        let values = (|| {
            Ok::<_, String>((
                read("Time", &fields.time)?,
                Vec3::new(
                    read("x", &fields.coordinates[0])?,
                    read("y", &fields.coordinates[1])?,
                    read("z", &fields.coordinates[2])?,
                ),
            ))
        })();
        let (time, pos) = match values {
            Ok(values) => values,
            Err(message) => return self.editor.status(message),
        };
        let old = &trajectory.pieces[piece].points[point];
        let session = &self.editor.session;
        session.begin_drag();
        let mut result = Ok(());
        if pos != old.pos {
            let target = Target::ControlPoint {
                trajectory: index,
                piece,
                point,
            };
            result = session.edit(target, EditValue::Vector(pos), None);
        }
        if result.is_ok() && time != old.time {
            let target = Target::ControlTime {
                trajectory: index,
                piece,
                point,
            };
            result = session.edit(target, EditValue::Number(time), None);
        }
        session.end_drag();
        match result {
            Ok(()) => self.editor.status(format!(
                "Point {} of {} set.",
                self.selected.get() + 1,
                trajectory.name
            )),
            Err(e) => self.editor.status(e.reason),
        }
        self.show_selected();
    }

    fn zoom(&self, factor: f64) {
        let Some((_, trajectory)) = self.trajectory() else {
            return;
        };
        let (a, b) = self.time_range(&trajectory);
        let (middle, half) = ((a + b) / 2.0, (b - a) / 2.0 * factor);
        self.range.set(Some((middle - half, middle + half)));
        self.redraw();
    }
}

/// A number as a field shows it: the shortest text that reads back as the same number.
fn format_number(value: f64) -> String {
    format!("{value}")
}

/// Points along the trajectory's curve, (time, position).
fn curve(trajectory: &Trajectory) -> Vec<(f64, Vec3)> {
    let mut points = Vec::new();
    for piece in &trajectory.pieces {
        for segment in piece.segments() {
            points.extend((0..=SAMPLES).map(|k| {
                let t = segment.t0 + (segment.t1 - segment.t0) * k as f64 / SAMPLES as f64;
                (t, segment.position(t))
            }));
        }
        // A break between pieces.
        points.push((f64::NAN, Vec3::repeat(f64::NAN)));
    }
    points
}

/// Opens the trajectory editor on the editor's session.
pub fn open(editor: &Rc<Editor>) -> gtk::ApplicationWindow {
    let window = editor.window("Trajectory editor");
    window.set_default_size(640, 560);
    let list = gtk::StringList::new(&[]);
    let choice = gtk::DropDown::new(Some(list.clone()), None::<gtk::Expression>);
    let state = Rc::new(State {
        editor: editor.clone(),
        names: RefCell::new(Vec::new()),
        choice: choice.clone(),
        range: Cell::new(None),
        dragged: Cell::new(None),
        areas: RefCell::new(Vec::new()),
        selected: Cell::new(0),
        fields: OnceCell::new(),
    });
    let refresh = {
        let state = state.clone();
        move || {
            let now: Vec<String> = state
                .editor
                .session
                .scene()
                .map(|s| s.trajectories.iter().map(|t| t.name.clone()).collect())
                .unwrap_or_default();
            if *state.names.borrow() != now {
                *state.names.borrow_mut() = now.clone();
                let shown: Vec<&str> = now.iter().map(String::as_str).collect();
                list.splice(0, list.n_items(), &shown);
            }
            state.redraw();
            state.show_selected();
        }
    };
    refresh();
    {
        let state = Rc::downgrade(&state);
        choice.connect_selected_notify(move |_| {
            if let Some(state) = state.upgrade() {
                state.range.set(None);
                state.selected.set(0);
                state.redraw();
                state.show_selected();
            }
        });
    }
    editor.observe(&window, move |_, event| {
        if matches!(event, Event::SceneChanged) {
            refresh();
        }
    });

    let top = gtk::Box::new(gtk::Orientation::Horizontal, 6);
    top.set_margin_start(6);
    top.set_margin_top(6);
    top.append(&gtk::Label::new(Some("Trajectory")));
    top.append(&choice);
    for (icon, tip, factor) in [
        ("zoom-out-symbolic", "Longer times", 2.0),
        ("zoom-in-symbolic", "Shorter times", 0.5),
    ] {
        let button = gtk::Button::from_icon_name(icon);
        button.set_tooltip_text(Some(tip));
        let state = Rc::downgrade(&state);
        button.connect_clicked(move |_| {
            if let Some(state) = state.upgrade() {
                state.zoom(factor);
            }
        });
        top.append(&button);
    }
    let fit = gtk::Button::with_label("Fit");
    {
        let state = Rc::downgrade(&state);
        fit.connect_clicked(move |_| {
            if let Some(state) = state.upgrade() {
                state.range.set(None);
                state.redraw();
            }
        });
    }
    top.append(&fit);

    let column = gtk::Box::new(gtk::Orientation::Vertical, 4);
    column.append(&top);
    for component in 0..3 {
        let area = component_chart(&state, component);
        column.append(&area);
        state.areas.borrow_mut().push(area);
    }
    column.append(&point_fields(&state));
    state.show_selected();
    window.set_child(Some(&column));
    window.present();
    window
}

/// The row of the selected point's fields: previous and next point, time, x, y, z, Set.
fn point_fields(state: &Rc<State>) -> gtk::Box {
    let row = gtk::Box::new(gtk::Orientation::Horizontal, 4);
    row.set_margin_start(6);
    row.set_margin_bottom(6);
    let step = |icon: &str, tip: &str, by: isize| {
        let button = gtk::Button::from_icon_name(icon);
        button.set_tooltip_text(Some(tip));
        let state = Rc::downgrade(state);
        button.connect_clicked(move |_| {
            if let Some(state) = state.upgrade() {
                state.step_selection(by);
            }
        });
        button
    };
    row.append(&step("go-previous-symbolic", "The point before", -1));
    let which = gtk::Label::new(None);
    which.set_width_chars(12);
    row.append(&which);
    row.append(&step("go-next-symbolic", "The point after", 1));
    let apply = {
        let state = Rc::downgrade(state);
        move || {
            if let Some(state) = state.upgrade() {
                state.set_selected();
            }
        }
    };
    let field = |label: &str| labelled_entry(&row, label, 8, apply.clone());
    let time = field("_Time");
    let coordinates = [field("_x"), field("_y"), field("_z")];
    apply_button(&row, "_Set", apply);
    let _ = state.fields.set(PointFields {
        which,
        time,
        coordinates,
    });
    row
}

/// The chart of one component, with its control points to drag.
fn component_chart(state: &Rc<State>, component: usize) -> gtk::DrawingArea {
    let area = gtk::DrawingArea::new();
    area.set_hexpand(true);
    area.set_vexpand(true);
    {
        let state = Rc::downgrade(state);
        area.set_draw_func(move |area, cr, _, _| {
            let Some(state) = state.upgrade() else {
                return;
            };
            let name = ["x", "y", "z"][component];
            let Some((_, trajectory)) = state.trajectory() else {
                let chart = Chart::fitting(
                    (0.0, 1.0),
                    [],
                    f64::from(area.width()),
                    f64::from(area.height()),
                );
                chart.draw_axes(cr, &format!("{name}: no trajectory"));
                return;
            };
            let chart = state.chart(&trajectory, component, area);
            chart.draw_axes(cr, &format!("{} {name}", trajectory.name));
            cr.set_source_rgb(0.55, 0.20, 0.75);
            chart.draw_curve(
                cr,
                curve(&trajectory)
                    .into_iter()
                    .map(|(t, p)| (t, p[component])),
            );
            for point in trajectory.pieces.iter().flat_map(|p| &p.points) {
                cr.arc(
                    chart.x(point.time),
                    chart.y(point.pos[component]),
                    4.0,
                    0.0,
                    std::f64::consts::TAU,
                );
                let _ = cr.fill();
            }
        });
    }
    let drag = gtk::GestureDrag::new();
    {
        let state = Rc::downgrade(state);
        let area = area.clone();
        drag.connect_drag_begin(move |_, x, y| {
            let Some(state) = state.upgrade() else { return };
            let Some((_, trajectory)) = state.trajectory() else {
                return;
            };
            let chart = state.chart(&trajectory, component, &area);
            let nearest = trajectory
                .pieces
                .iter()
                .enumerate()
                .flat_map(|(p, piece)| {
                    piece.points.iter().enumerate().map(move |(k, point)| {
                        let d = (chart.x(point.time) - x).hypot(chart.y(point.pos[component]) - y);
                        (p, k, d)
                    })
                })
                .filter(|(_, _, d)| *d <= PICK_RADIUS)
                .min_by(|a, b| a.2.total_cmp(&b.2));
            if let Some((piece, point, _)) = nearest {
                let before: usize = trajectory.pieces[..piece]
                    .iter()
                    .map(|p| p.points.len())
                    .sum();
                state.selected.set(before + point);
                state.show_selected();
                state.editor.session.begin_drag();
                state.dragged.set(Some((
                    component,
                    Dragged {
                        piece,
                        point,
                        chart,
                        start: (x, y),
                    },
                )));
            }
        });
    }
    {
        let state = Rc::downgrade(state);
        drag.connect_drag_update(move |_, dx, dy| {
            let Some(state) = state.upgrade() else { return };
            let (Some((index, trajectory)), Some((_, dragged))) =
                (state.trajectory(), state.dragged.get())
            else {
                return;
            };
            let (x, y) = (dragged.start.0 + dx, dragged.start.1 + dy);
            let Some(point) = trajectory
                .pieces
                .get(dragged.piece)
                .and_then(|p| p.points.get(dragged.point))
            else {
                return;
            };
            let mut pos = point.pos;
            pos[component] = dragged.chart.value(y);
            let place = |point| Target::ControlPoint {
                trajectory: index,
                piece: dragged.piece,
                point,
            };
            let session = &state.editor.session;
            let mut result = session.edit(place(dragged.point), EditValue::Vector(pos), None);
            let time = dragged.chart.time(x);
            if result.is_ok() && (time - point.time).abs() > f64::EPSILON {
                let target = Target::ControlTime {
                    trajectory: index,
                    piece: dragged.piece,
                    point: dragged.point,
                };
                result = session.edit(target, EditValue::Number(time), None);
            }
            if let Err(e) = result {
                state.editor.status(e.reason);
            }
        });
    }
    {
        let state = Rc::downgrade(state);
        drag.connect_drag_end(move |_, _, _| {
            let Some(state) = state.upgrade() else { return };
            if state.dragged.take().is_some() {
                state.editor.session.end_drag();
                state.redraw();
            }
        });
    }
    area.add_controller(drag);
    area
}
