//! `simulator ?start T? ?finish T? ?step DT? ?tolerance E? ?live_dt DT? ?collisions BOOL?`: the
//! time range and integration settings (chapter 5).

use super::args::{self, Options};
use super::Shared;
use crate::lang::{Arg, Exception, Interp, Value};

pub(super) const OPTIONS: &[&str] = &[
    "start",
    "finish",
    "step",
    "tolerance",
    "live_dt",
    "collisions",
];

pub(super) fn simulator(
    interp: &mut Interp,
    shared: &Shared,
    words: &[Arg],
) -> Result<Value, Exception> {
    let command = interp.current_span();
    let options = Options::parse(words, 1, "simulator", OPTIONS, &[])?;
    let mut settings = shared.borrow().scene.simulator.clone();
    if let Some(arg) = options.get("start") {
        settings.start = args::number(arg, "start")?.value;
    }
    if let Some(arg) = options.get("finish") {
        settings.finish = args::number(arg, "finish")?.value;
    }
    if settings.finish <= settings.start {
        let at = options
            .get("finish")
            .or(options.get("start"))
            .map_or(command, |a| a.span);
        return Err(Exception::error_at(
            format!(
                "finish ({}) must be later than start ({})",
                settings.finish, settings.start
            ),
            at,
        ));
    }
    if let Some(arg) = options.get("step") {
        settings.step = args::positive(arg, "step")?.value;
    }
    if let Some(arg) = options.get("tolerance") {
        settings.tolerance = args::positive(arg, "tolerance")?.value;
    }
    if let Some(arg) = options.get("live_dt") {
        settings.live_dt = args::positive(arg, "live_dt")?.value;
    }
    if let Some(arg) = options.get("collisions") {
        settings.collisions = args::boolean(arg, "collisions")?;
    }
    let mut builder = shared.borrow_mut();
    if let Some(existing) = &builder.scene.simulator_origin {
        let line = builder.line(existing.command);
        return Err(Exception::error_at(
            format!(
                "the simulator settings are already given on line {line}: give them all in one simulator command"
            ),
            words[0].span,
        ));
    }
    let origin = builder.origin(command);
    builder.scene.simulator = settings;
    builder.scene.simulator_origin = Some(origin);
    Ok(Value::empty())
}
