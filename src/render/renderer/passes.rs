//! Timing a frame pass by pass, for the render benchmark: which of the shadow map, the
//! bodies (both culling passes), the ground (with the highlighted bodies' outlines), the aids
//! (markers, arrowheads, lines, handles), the smoothing and the gizmo a frame's time goes to.
//!
//! Off by default. When on ([`super::Renderer::time_passes`]), the renderer waits for GL to
//! finish each pass (`glFinish`) and adds the wall time and the process's processor time
//! (every thread's, llvmpipe's rasteriser threads included) since the previous pass to that
//! pass's total. Waiting serialises what GL would overlap with the next pass's CPU work, so
//! the frame is slower while timed; the processor time each pass takes is what it tells.

use glow::HasContext;
use std::time::{Duration, Instant};

/// What the passes of the frames drawn since timing was turned on took.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PassTimes {
    /// Per pass, in the order first met: its name, how many times it ran, wall time and
    /// processor time in all.
    pub passes: Vec<(&'static str, u32, Duration, Duration)>,
}

/// The clock of the pass being drawn.
pub(super) struct PassClock {
    since: Option<(Instant, Duration)>,
    times: PassTimes,
}

impl PassClock {
    pub fn new() -> PassClock {
        PassClock {
            since: None,
            times: PassTimes::default(),
        }
    }

    /// Starts timing a frame's first pass, once GL finished what came before.
    pub fn start(&mut self, gl: &glow::Context) {
        // SAFETY: the renderer's context is current whenever it draws.
        unsafe { gl.finish() };
        self.since = Some((Instant::now(), processor_time()));
    }

    /// Ends pass `name` once GL finished it; the next pass starts.
    pub fn end(&mut self, gl: &glow::Context, name: &'static str) {
        // SAFETY: as in `start`.
        unsafe { gl.finish() };
        let now = (Instant::now(), processor_time());
        if let Some((wall, processor)) = self.since {
            let (wall, processor) = (now.0 - wall, now.1.saturating_sub(processor));
            let passes = &mut self.times.passes;
            match passes.iter_mut().find(|p| p.0 == name) {
                Some(p) => {
                    p.1 += 1;
                    p.2 += wall;
                    p.3 += processor;
                }
                None => passes.push((name, 1, wall, processor)),
            }
        }
        self.since = Some(now);
    }

    /// The totals so far, which start again from nothing.
    pub fn take(&mut self) -> PassTimes {
        std::mem::take(&mut self.times)
    }
}

/// The processor time this process has taken so far, every thread's.
fn processor_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write; the clock id is a constant Linux knows.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } == 0;
    if ok {
        Duration::new(
            t.tv_sec.max(0) as u64,
            t.tv_nsec.clamp(0, 999_999_999) as u32,
        )
    } else {
        Duration::ZERO
    }
}
