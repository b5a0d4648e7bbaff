//! Plots of any state variable of any body against time, from the computed motion, growing
//! while the simulation runs — the dissertation's teaching use: watch the energy of a pendulum
//! or the speed of a falling ball as it is computed.

use super::chart::Chart;
use super::editor::Editor;
use crate::session::Event;
use crate::sim::physics::BodyState;
use gtk::prelude::*;
use gtk4 as gtk;
use std::cell::RefCell;
use std::rc::Rc;

/// A quantity of a body's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateVariable {
    X,
    Y,
    Z,
    Dx,
    Dy,
    Dz,
    /// Angular velocity about the world axes.
    Wx,
    Wy,
    Wz,
    /// The length of the velocity.
    Speed,
    /// The angle of the body's rotation from its initial axes (radians).
    Angle,
}

impl StateVariable {
    pub const ALL: [StateVariable; 11] = [
        StateVariable::X,
        StateVariable::Y,
        StateVariable::Z,
        StateVariable::Dx,
        StateVariable::Dy,
        StateVariable::Dz,
        StateVariable::Wx,
        StateVariable::Wy,
        StateVariable::Wz,
        StateVariable::Speed,
        StateVariable::Angle,
    ];

    /// The name the menu shows (as the scene language names body attributes where it can).
    pub fn name(self) -> &'static str {
        match self {
            StateVariable::X => "x",
            StateVariable::Y => "y",
            StateVariable::Z => "z",
            StateVariable::Dx => "dx",
            StateVariable::Dy => "dy",
            StateVariable::Dz => "dz",
            StateVariable::Wx => "angular velocity x",
            StateVariable::Wy => "angular velocity y",
            StateVariable::Wz => "angular velocity z",
            StateVariable::Speed => "speed",
            StateVariable::Angle => "rotation angle",
        }
    }

    /// Its value in `state`.
    pub fn of(self, state: &BodyState) -> f64 {
        match self {
            StateVariable::X => state.position.x,
            StateVariable::Y => state.position.y,
            StateVariable::Z => state.position.z,
            StateVariable::Dx => state.velocity.x,
            StateVariable::Dy => state.velocity.y,
            StateVariable::Dz => state.velocity.z,
            StateVariable::Wx => state.angular_velocity.x,
            StateVariable::Wy => state.angular_velocity.y,
            StateVariable::Wz => state.angular_velocity.z,
            StateVariable::Speed => state.velocity.norm(),
            StateVariable::Angle => state.rotation.angle(),
        }
    }
}

/// Opens a plot window on the editor's session.
pub fn open(editor: &Rc<Editor>) -> gtk::ApplicationWindow {
    let window = editor.window("Plot");
    window.set_default_size(640, 360);
    let names: Rc<RefCell<Vec<String>>> = Rc::new(RefCell::new(Vec::new()));
    let bodies = gtk::StringList::new(&[]);
    let body_choice = gtk::DropDown::new(Some(bodies.clone()), None::<gtk::Expression>);
    let variables: Vec<&str> = StateVariable::ALL.iter().map(|v| v.name()).collect();
    let variable_choice = gtk::DropDown::from_strings(&variables);
    variable_choice.set_selected(1);
    let area = gtk::DrawingArea::new();
    area.set_hexpand(true);
    area.set_vexpand(true);
    {
        let editor = Rc::downgrade(editor);
        let body_choice = body_choice.clone();
        let variable_choice = variable_choice.clone();
        let names = names.clone();
        area.set_draw_func(move |_, cr, width, height| {
            let Some(editor) = editor.upgrade() else {
                return;
            };
            let body = names.borrow().get(body_choice.selected() as usize).cloned();
            let variable = StateVariable::ALL
                .get(variable_choice.selected() as usize)
                .copied()
                .unwrap_or(StateVariable::Y);
            draw(&editor, body.as_deref(), variable, cr, width, height);
        });
    }
    let refresh_bodies = {
        let names = names.clone();
        let bodies = bodies.clone();
        move |editor: &Editor| {
            let now: Vec<String> = editor
                .session
                .scene()
                .map(|s| s.bodies.iter().map(|b| b.name.clone()).collect())
                .unwrap_or_default();
            if *names.borrow() != now {
                let shown: Vec<&str> = now.iter().map(String::as_str).collect();
                bodies.splice(0, bodies.n_items(), &shown);
                *names.borrow_mut() = now;
            }
        }
    };
    refresh_bodies(editor);
    for choice in [&body_choice, &variable_choice] {
        let area = area.clone();
        choice.connect_selected_notify(move |_| area.queue_draw());
    }
    {
        let area = area.clone();
        editor.observe(&window, move |editor, event| match event {
            Event::SceneChanged => {
                refresh_bodies(editor);
                area.queue_draw();
            }
            Event::TextChanged { .. }
            | Event::SimulationStarted
            | Event::SimulationProgress(_)
            | Event::SimulationFinished
            | Event::SimulationFailed(_) => area.queue_draw(),
            Event::SceneError(_) | Event::FileChanged => {}
        });
    }
    let choices = gtk::Box::new(gtk::Orientation::Horizontal, 6);
    choices.set_margin_start(6);
    choices.set_margin_top(6);
    choices.append(&gtk::Label::new(Some("Body")));
    choices.append(&body_choice);
    choices.append(&gtk::Label::new(Some("Variable")));
    choices.append(&variable_choice);
    let column = gtk::Box::new(gtk::Orientation::Vertical, 6);
    column.append(&choices);
    column.append(&area);
    window.set_child(Some(&column));
    window.present();
    window
}

fn draw(
    editor: &Editor,
    body: Option<&str>,
    variable: StateVariable,
    cr: &gtk::cairo::Context,
    width: i32,
    height: i32,
) {
    let (start, finish) = {
        let s = editor.session.simulator_settings();
        (s.start, s.finish)
    };
    let index = body.and_then(|name| {
        editor
            .session
            .scene()
            .and_then(|s| s.bodies.iter().position(|b| b.name == name))
    });
    let motion = editor.current_motion();
    let track = match (motion, index) {
        (Some(motion), Some(b)) if b < motion.bodies().len() => Some(motion.track(b, start)),
        _ => None,
    };
    let values: Vec<(f64, f64)> = track
        .iter()
        .flat_map(|t| t.times.iter().zip(&t.states))
        .map(|(&t, s)| (t, variable.of(s)))
        .collect();
    let chart = Chart::fitting(
        (start, finish),
        values.iter().map(|(_, v)| *v),
        f64::from(width),
        f64::from(height),
    );
    let title = match body {
        Some(name) => format!("{name} {}", variable.name()),
        None => "no body".into(),
    };
    chart.draw_axes(cr, &title);
    if values.is_empty() {
        cr.set_source_rgb(0.4, 0.4, 0.4);
        cr.move_to(chart.x(start) + 6.0, f64::from(height) / 2.0);
        let _ = cr.show_text("not simulated (press Simulate)");
        return;
    }
    cr.set_source_rgb(0.15, 0.35, 0.75);
    chart.draw_curve(cr, values);
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{UnitQuaternion, Vector3};

    #[test]
    fn variables_read_the_state() {
        let state = BodyState {
            position: Vector3::new(1.0, 2.0, 3.0),
            rotation: UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 0.5),
            velocity: Vector3::new(3.0, 4.0, 0.0),
            angular_velocity: Vector3::new(0.0, 0.0, 7.0),
        };
        assert_eq!(StateVariable::Y.of(&state), 2.0);
        assert_eq!(StateVariable::Speed.of(&state), 5.0);
        assert_eq!(StateVariable::Wz.of(&state), 7.0);
        assert!((StateVariable::Angle.of(&state) - 0.5).abs() < 1e-12);
    }
}
