//! `simulator ?start T? ?finish T? ?step DT? ?tolerance E? ?live_dt DT? ?live_rate R?
//! ?collisions BOOL?`: the time range and integration settings (chapter 5), and live mode's.

use super::args::{self, Options};
use super::Shared;
use crate::lang::{Arg, Exception, Interp, Value};

pub(super) const OPTIONS: &[&str] = &[
    "start",
    "finish",
    "step",
    "tolerance",
    "live_dt",
    "live_rate",
    "collisions",
];

/// The slowest and fastest real-time factors live mode takes: a thousandth shows a
/// millisecond's motion over a second; a thousand, seventeen minutes a second.
const MIN_LIVE_RATE: f64 = 1e-3;
const MAX_LIVE_RATE: f64 = 1e3;

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
    if let Some(arg) = options.get("live_rate") {
        let rate = args::positive(arg, "live_rate")?.value;
        if !(MIN_LIVE_RATE..=MAX_LIVE_RATE).contains(&rate) {
            return Err(Exception::error_at(
                format!(
                    "live_rate {rate} is outside {MIN_LIVE_RATE} to {MAX_LIVE_RATE} (simulated \
                     seconds per real second)"
                ),
                arg.span,
            ));
        }
        settings.live_rate = rate;
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

#[cfg(test)]
mod tests {
    use crate::scene::evaluate;

    #[test]
    fn live_rate_is_read_within_its_range() {
        let scene = evaluate("simulator live_rate 0.25").unwrap();
        assert_eq!(scene.simulator.live_rate, 0.25);
        assert_eq!(evaluate("").unwrap().simulator.live_rate, 1.0);
        let error = evaluate("simulator live_rate 1e9").unwrap_err();
        assert!(error.message.contains("outside 0.001 to 1000"), "{error}");
    }
}
