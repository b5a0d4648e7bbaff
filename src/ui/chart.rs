//! Value-against-time charts drawn with cairo, shared by the trajectory editor (4.1.4, figure
//! 4.4) and the state-variable plots: the mapping between chart pixels and (time, value), round
//! tick values, and the axes.

use gtk::cairo;
use gtk4 as gtk;

/// Pixels left free for the value labels at the left and the time labels at the bottom.
const LEFT_MARGIN: f64 = 56.0;
const BOTTOM_MARGIN: f64 = 18.0;
const TOP_MARGIN: f64 = 8.0;
const RIGHT_MARGIN: f64 = 8.0;

/// A chart of `width` × `height` pixels showing times `t0..t1` across and values `v0..v1` up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chart {
    pub t0: f64,
    pub t1: f64,
    pub v0: f64,
    pub v1: f64,
    pub width: f64,
    pub height: f64,
}

impl Chart {
    /// A chart of the given size fitting `times` and `values`, with a little room around the
    /// values (and a unit range around a constant).
    pub fn fitting(
        (t0, t1): (f64, f64),
        values: impl IntoIterator<Item = f64>,
        width: f64,
        height: f64,
    ) -> Chart {
        let (mut v0, mut v1) = values
            .into_iter()
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        if v0 > v1 {
            (v0, v1) = (-1.0, 1.0);
        }
        let pad = if v1 - v0 > 1e-12 {
            (v1 - v0) * 0.08
        } else {
            0.5 * v0.abs().max(1.0)
        };
        let t1 = if t1 > t0 { t1 } else { t0 + 1.0 };
        Chart {
            t0,
            t1,
            v0: v0 - pad,
            v1: v1 + pad,
            width,
            height,
        }
    }

    fn plot_width(&self) -> f64 {
        (self.width - LEFT_MARGIN - RIGHT_MARGIN).max(1.0)
    }

    fn plot_height(&self) -> f64 {
        (self.height - TOP_MARGIN - BOTTOM_MARGIN).max(1.0)
    }

    pub fn x(&self, t: f64) -> f64 {
        LEFT_MARGIN + (t - self.t0) / (self.t1 - self.t0) * self.plot_width()
    }

    pub fn y(&self, v: f64) -> f64 {
        TOP_MARGIN + (self.v1 - v) / (self.v1 - self.v0) * self.plot_height()
    }

    pub fn time(&self, x: f64) -> f64 {
        self.t0 + (x - LEFT_MARGIN) / self.plot_width() * (self.t1 - self.t0)
    }

    pub fn value(&self, y: f64) -> f64 {
        self.v1 - (y - TOP_MARGIN) / self.plot_height() * (self.v1 - self.v0)
    }

    /// Draws the frame, the grid lines at round values and their labels, and the name of the
    /// value at the upper left.
    pub fn draw_axes(&self, cr: &cairo::Context, name: &str) {
        cr.set_source_rgb(1.0, 1.0, 1.0);
        cr.rectangle(
            LEFT_MARGIN,
            TOP_MARGIN,
            self.plot_width(),
            self.plot_height(),
        );
        let _ = cr.fill();
        cr.set_line_width(1.0);
        cr.set_font_size(10.0);
        for v in ticks(self.v0, self.v1, 5) {
            let y = self.y(v).round() + 0.5;
            cr.set_source_rgb(0.88, 0.88, 0.88);
            cr.move_to(LEFT_MARGIN, y);
            cr.line_to(LEFT_MARGIN + self.plot_width(), y);
            let _ = cr.stroke();
            cr.set_source_rgb(0.25, 0.25, 0.25);
            cr.move_to(4.0, y + 3.0);
            let _ = cr.show_text(&tick_label(v));
        }
        for t in ticks(self.t0, self.t1, 8) {
            let x = self.x(t).round() + 0.5;
            cr.set_source_rgb(0.88, 0.88, 0.88);
            cr.move_to(x, TOP_MARGIN);
            cr.line_to(x, TOP_MARGIN + self.plot_height());
            let _ = cr.stroke();
            cr.set_source_rgb(0.25, 0.25, 0.25);
            cr.move_to(x - 8.0, self.height - 4.0);
            let _ = cr.show_text(&tick_label(t));
        }
        cr.set_source_rgb(0.4, 0.4, 0.4);
        cr.rectangle(
            LEFT_MARGIN + 0.5,
            TOP_MARGIN + 0.5,
            self.plot_width(),
            self.plot_height(),
        );
        let _ = cr.stroke();
        cr.set_source_rgb(0.1, 0.1, 0.1);
        cr.set_font_size(12.0);
        cr.move_to(LEFT_MARGIN + 6.0, TOP_MARGIN + 14.0);
        let _ = cr.show_text(name);
    }

    /// Draws `points` (time, value) as connected segments in the current colour, clipped to
    /// the plot.
    pub fn draw_curve(&self, cr: &cairo::Context, points: impl IntoIterator<Item = (f64, f64)>) {
        let _ = cr.save();
        cr.rectangle(
            LEFT_MARGIN,
            TOP_MARGIN,
            self.plot_width(),
            self.plot_height(),
        );
        cr.clip();
        let mut first = true;
        for (t, v) in points {
            if !v.is_finite() {
                first = true;
                continue;
            }
            if first {
                cr.move_to(self.x(t), self.y(v));
                first = false;
            } else {
                cr.line_to(self.x(t), self.y(v));
            }
        }
        cr.set_line_width(1.5);
        let _ = cr.stroke();
        let _ = cr.restore();
    }
}

/// Round values (1, 2 or 5 times a power of ten apart) from `a` to `b`, about `count` of them.
pub fn ticks(a: f64, b: f64, count: usize) -> Vec<f64> {
    let span = b - a;
    if !(span > 0.0 && span.is_finite()) {
        return Vec::new();
    }
    let rough = span / count.max(1) as f64;
    let power = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|s| *s >= rough)
        .unwrap_or(10.0 * power);
    let first = (a / step).ceil() as i64;
    let last = (b / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A tick value written briefly: no trailing zeros, `0` for values within rounding of zero.
fn tick_label(v: f64) -> String {
    crate::lang::number::format_significant(if v.abs() < 1e-12 { 0.0 } else { v }, 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_and_values_map_both_ways() {
        let chart = Chart {
            t0: 0.0,
            t1: 10.0,
            v0: -1.0,
            v1: 1.0,
            width: 400.0,
            height: 200.0,
        };
        for (t, v) in [(0.0, -1.0), (2.5, 0.3), (10.0, 1.0)] {
            assert!((chart.time(chart.x(t)) - t).abs() < 1e-12);
            assert!((chart.value(chart.y(v)) - v).abs() < 1e-12);
        }
        // Up is larger.
        assert!(chart.y(1.0) < chart.y(-1.0));
    }

    #[test]
    fn ticks_are_round_and_inside() {
        assert_eq!(ticks(0.0, 10.0, 5), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(-0.3, 0.3, 3), [-0.2, 0.0, 0.2]);
        assert!(ticks(1.0, 1.0, 5).is_empty());
    }

    #[test]
    fn fitting_pads_the_values_and_survives_constants() {
        let chart = Chart::fitting((0.0, 5.0), [1.0, 3.0], 100.0, 100.0);
        assert!(chart.v0 < 1.0 && chart.v1 > 3.0);
        let flat = Chart::fitting((2.0, 2.0), [4.0, 4.0], 100.0, 100.0);
        assert!(flat.v0 < 4.0 && flat.v1 > 4.0 && flat.t1 > flat.t0);
        let empty = Chart::fitting((0.0, 1.0), [], 100.0, 100.0);
        assert!(empty.v0 < empty.v1);
    }
}
