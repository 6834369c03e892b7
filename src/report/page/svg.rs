//! Small, self-contained SVG line charts: a title, an x axis, a left y axis and an
//! optional right one, series of points drawn as lines with markers, a legend. No
//! scripts, no fonts or stylesheets from elsewhere: a page holding one renders offline in
//! any browser. Used by the efficiency graph's page; general enough for any report that
//! plots figures against each other.

use std::fmt::Write;

/// Which y axis a series is scaled to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// The left axis.
    Left,
    /// The right (second) axis.
    Right,
}

/// One line of the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// CSS colour (`#1f77b4`).
    pub color: String,
    /// Axis it is scaled to.
    pub axis: Axis,
    /// Drawn dashed (a second quantity of the same group, e.g. its temperature).
    pub dashed: bool,
    /// (x, y) in data units; non-finite points are left out.
    pub points: Vec<(f64, f64)>,
}

/// A line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Heading above the plot.
    pub title: String,
    /// x axis label.
    pub x_label: String,
    /// Left y axis label.
    pub y_label: String,
    /// Right y axis label; the axis is drawn when a series uses it.
    pub y2_label: Option<String>,
    /// The lines.
    pub series: Vec<Series>,
    /// Width in px.
    pub width: u32,
    /// Height in px.
    pub height: u32,
}

/// Colours for series, told apart by people with the common colour-vision deficiencies
/// (Okabe–Ito).
pub const PALETTE: &[&str] = &[
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442",
];

/// The `i`-th palette colour (wrapping).
pub fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Escape text for XML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A "nice" tick step (1, 2, 2.5 or 5 × 10ⁿ) that cuts `span` into about `n` parts.
pub fn nice_step(span: f64, n: usize) -> f64 {
    if !span.is_finite() || span <= 0.0 {
        return 1.0;
    }
    let raw = span / n.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 2.5 {
        2.5
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// An axis range widened to whole tick steps, and its ticks.
#[derive(Debug, Clone, PartialEq)]
pub struct Scale {
    /// Lowest value shown.
    pub lo: f64,
    /// Highest value shown.
    pub hi: f64,
    /// Tick positions, ascending.
    pub ticks: Vec<f64>,
}

impl Scale {
    /// Ticks over `lo..=hi` (about `n` of them), the range widened to whole steps. An
    /// empty or single-valued range still gives a usable scale.
    pub fn new(lo: f64, hi: f64, n: usize) -> Self {
        let (mut lo, mut hi) = if lo.is_finite() && hi.is_finite() && lo <= hi {
            (lo, hi)
        } else {
            (0.0, 1.0)
        };
        if hi - lo < f64::EPSILON * hi.abs().max(1.0) {
            let pad = if hi == 0.0 { 1.0 } else { hi.abs() * 0.1 };
            lo -= pad;
            hi += pad;
        }
        let step = nice_step(hi - lo, n);
        let lo = (lo / step).floor() * step;
        let hi = (hi / step).ceil() * step;
        let count = ((hi - lo) / step).round() as usize;
        let ticks = (0..=count.min(100)).map(|i| lo + step * i as f64).collect();
        Self { lo, hi, ticks }
    }

    /// `v` mapped onto `a..b` (pixels).
    pub fn map(&self, v: f64, a: f64, b: f64) -> f64 {
        let span = self.hi - self.lo;
        if span <= 0.0 {
            return a;
        }
        a + (v - self.lo) / span * (b - a)
    }
}

/// A tick label: whole numbers without decimals, small steps with as many as they need.
pub fn tick_label(v: f64) -> String {
    if v.abs() >= 100.0 || (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else if (v * 10.0 - (v * 10.0).round()).abs() < 1e-9 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The finite points of a series.
fn finite(s: &Series) -> impl Iterator<Item = (f64, f64)> + '_ {
    s.points
        .iter()
        .copied()
        .filter(|(x, y)| x.is_finite() && y.is_finite())
}

/// The range of the values `pick` takes from the chosen series.
fn range<'a>(
    series: impl Iterator<Item = &'a Series>,
    pick: impl Fn((f64, f64)) -> f64,
) -> Option<(f64, f64)> {
    let mut r: Option<(f64, f64)> = None;
    for s in series {
        for p in finite(s) {
            let v = pick(p);
            r = Some(match r {
                None => (v, v),
                Some((lo, hi)) => (lo.min(v), hi.max(v)),
            });
        }
    }
    r
}

/// A y scale from zero (as sbc-bench's gnuplot `yrange [0:…]`), or from the data's lowest
/// value where it is negative.
fn y_scale(r: Option<(f64, f64)>) -> Scale {
    let (lo, hi) = r.unwrap_or((0.0, 1.0));
    Scale::new(lo.min(0.0), hi * 1.1, 5)
}

const MARGIN_LEFT: f64 = 72.0;
const MARGIN_RIGHT_AXIS: f64 = 64.0;
const MARGIN_RIGHT: f64 = 20.0;
const MARGIN_TOP: f64 = 40.0;
const MARGIN_BOTTOM: f64 = 52.0;
const LEGEND_ROW: f64 = 18.0;

/// What a chart may carry beyond its series: x ticks of its own (a log scale's `4K`,
/// `1M`…) and labelled bands along the x axis (the phases of a recording).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decor {
    /// (x, label) ticks instead of the computed ones.
    pub x_ticks: Option<Vec<(f64, String)>>,
    /// (from x, to x, label) shaded bands, numbered from 1 in the plot.
    pub bands: Vec<(f64, f64, String)>,
}

/// Render the chart as a standalone `<svg>` element (no XML prolog, so it can be inlined
/// in HTML as well as saved as a file).
pub fn render(c: &Chart) -> String {
    render_decorated(c, &Decor::default())
}

/// [`render`] with ticks of its own and bands.
pub fn render_decorated(c: &Chart, decor: &Decor) -> String {
    let has_right = c.series.iter().any(|s| s.axis == Axis::Right);
    let (w, h) = (f64::from(c.width.max(200)), f64::from(c.height.max(150)));
    let legend_h = LEGEND_ROW * c.series.len() as f64;
    let x0 = MARGIN_LEFT;
    let x1 = w - if has_right {
        MARGIN_RIGHT_AXIS
    } else {
        MARGIN_RIGHT
    };
    let y0 = h - MARGIN_BOTTOM - legend_h;
    let y1 = MARGIN_TOP;
    let band_range = decor
        .bands
        .iter()
        .map(|b| (b.0.min(b.1), b.0.max(b.1)))
        .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)));
    let data_range = range(c.series.iter(), |p| p.0);
    let x_range = match (data_range, band_range) {
        (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
        (a, b) => a.or(b),
    };
    let mut xs = match x_range {
        Some((lo, hi)) => Scale::new(lo, hi, 8),
        None => Scale::new(0.0, 1.0, 8),
    };
    let mut x_labels: Vec<String> = xs.ticks.iter().map(|&t| tick_label(t)).collect();
    if let Some(ticks) = decor.x_ticks.as_ref().filter(|t| !t.is_empty()) {
        let lo = ticks.iter().map(|t| t.0).fold(f64::INFINITY, f64::min);
        let hi = ticks.iter().map(|t| t.0).fold(f64::NEG_INFINITY, f64::max);
        let (dlo, dhi) = x_range.unwrap_or((lo, hi));
        xs = Scale {
            lo: lo.min(dlo),
            hi: hi.max(dhi),
            ticks: ticks.iter().map(|t| t.0).collect(),
        };
        if xs.hi <= xs.lo {
            xs.hi = xs.lo + 1.0;
        }
        x_labels = ticks.iter().map(|t| t.1.clone()).collect();
    }
    let left = y_scale(range(
        c.series.iter().filter(|s| s.axis == Axis::Left),
        |p| p.1,
    ));
    let right = y_scale(range(
        c.series.iter().filter(|s| s.axis == Axis::Right),
        |p| p.1,
    ));
    let mut o = String::new();
    let _ = write!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" \
         viewBox=\"0 0 {w:.0} {h:.0}\" role=\"img\" aria-label=\"{t}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<title>{t}</title>\n\
         <rect x=\"0\" y=\"0\" width=\"{w:.0}\" height=\"{h:.0}\" fill=\"#ffffff\"/>\n",
        t = escape(&c.title)
    );
    let _ = writeln!(
        o,
        "<text x=\"{:.1}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">{}</text>",
        w / 2.0,
        escape(&c.title)
    );
    grid_and_axes(
        &mut o,
        c,
        (&xs, &x_labels),
        &left,
        has_right.then_some(&right),
        (x0, x1, y0, y1),
    );
    bands(&mut o, &decor.bands, &xs, (x0, x1, y0, y1));
    for s in &c.series {
        let ys = if s.axis == Axis::Right { &right } else { &left };
        line(&mut o, s, &xs, ys, (x0, x1, y0, y1));
    }
    legend(&mut o, c, x0, h - legend_h - 6.0);
    o.push_str("</svg>\n");
    o
}

/// Grid lines, both axes with ticks and labels.
fn grid_and_axes(
    o: &mut String,
    c: &Chart,
    (xs, x_labels): (&Scale, &[String]),
    left: &Scale,
    right: Option<&Scale>,
    (x0, x1, y0, y1): (f64, f64, f64, f64),
) {
    o.push_str("<g class=\"grid\" stroke=\"#dddddd\" stroke-width=\"1\">\n");
    for &t in &xs.ticks {
        let x = xs.map(t, x0, x1);
        let _ = writeln!(
            o,
            "<line x1=\"{x:.1}\" y1=\"{y0:.1}\" x2=\"{x:.1}\" y2=\"{y1:.1}\"/>"
        );
    }
    for &t in &left.ticks {
        let y = left.map(t, y0, y1);
        let _ = writeln!(
            o,
            "<line x1=\"{x0:.1}\" y1=\"{y:.1}\" x2=\"{x1:.1}\" y2=\"{y:.1}\"/>"
        );
    }
    o.push_str("</g>\n");
    let _ = writeln!(
        o,
        "<rect x=\"{x0:.1}\" y=\"{y1:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#333333\"/>",
        x1 - x0,
        y0 - y1
    );
    o.push_str("<g class=\"x-axis\" text-anchor=\"middle\">\n");
    for (&t, label) in xs.ticks.iter().zip(x_labels) {
        let x = xs.map(t, x0, x1);
        let _ = writeln!(
            o,
            "<text x=\"{x:.1}\" y=\"{:.1}\">{}</text>",
            y0 + 16.0,
            escape(label)
        );
    }
    let _ = writeln!(
        o,
        "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>\n</g>",
        (x0 + x1) / 2.0,
        y0 + 36.0,
        escape(&c.x_label)
    );
    o.push_str("<g class=\"y-axis\" text-anchor=\"end\">\n");
    for &t in &left.ticks {
        let y = left.map(t, y0, y1);
        let _ = writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            x0 - 6.0,
            y + 4.0,
            tick_label(t)
        );
    }
    let (cx, cy) = (16.0, (y0 + y1) / 2.0);
    let _ = writeln!(
        o,
        "<text x=\"{cx:.1}\" y=\"{cy:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 {cx:.1} {cy:.1})\">{}</text>\n</g>",
        escape(&c.y_label)
    );
    if let Some(r) = right {
        o.push_str("<g class=\"y2-axis\" text-anchor=\"start\">\n");
        for &t in &r.ticks {
            let y = r.map(t, y0, y1);
            let _ = writeln!(
                o,
                "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                x1 + 6.0,
                y + 4.0,
                tick_label(t)
            );
        }
        let (cx, cy) = (x1 + 50.0, (y0 + y1) / 2.0);
        let label = c.y2_label.as_deref().unwrap_or_default();
        let _ = writeln!(
            o,
            "<text x=\"{cx:.1}\" y=\"{cy:.1}\" text-anchor=\"middle\" transform=\"rotate(90 {cx:.1} {cy:.1})\">{}</text>\n</g>",
            escape(label)
        );
    }
}

/// Shaded bands along x, numbered, each with its label as tooltip.
fn bands(
    o: &mut String,
    bands: &[(f64, f64, String)],
    xs: &Scale,
    (x0, x1, y0, y1): (f64, f64, f64, f64),
) {
    if bands.is_empty() {
        return;
    }
    o.push_str("<g class=\"bands\">\n");
    for (i, (a, b, label)) in bands.iter().enumerate() {
        let (xa, xb) = (xs.map(*a, x0, x1).max(x0), xs.map(*b, x0, x1).min(x1));
        let fill = if i % 2 == 0 { "#e8eef7" } else { "#f4f4f4" };
        let _ = writeln!(
            o,
            "<rect x=\"{xa:.1}\" y=\"{y1:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\" fill-opacity=\"0.8\"><title>{} {}</title></rect>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\" fill=\"#555555\">{}</text>",
            (xb - xa).max(1.0),
            y0 - y1,
            i + 1,
            escape(label),
            (xa + xb) / 2.0,
            y1 + 12.0,
            i + 1
        );
    }
    o.push_str("</g>\n");
}

/// A horizontal bar chart: one bar per (label, value), the highlighted ones drawn in the
/// second palette colour, the value at the bar's end.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    /// Heading.
    pub title: String,
    /// Unit of the values (`MB/s`).
    pub unit: String,
    /// (label, value, highlighted).
    pub bars: Vec<(String, f64, bool)>,
    /// Width in px.
    pub width: u32,
}

const BAR_ROW: f64 = 22.0;
const BAR_LABEL_W: f64 = 300.0;

/// Render a bar chart as an `<svg>` element.
pub fn render_bars(c: &BarChart) -> String {
    let w = f64::from(c.width.max(300));
    let h = MARGIN_TOP + BAR_ROW * c.bars.len() as f64 + 30.0;
    let max = c
        .bars
        .iter()
        .map(|b| b.1)
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let scale = Scale::new(0.0, if max > 0.0 { max } else { 1.0 }, 5);
    let (x0, x1) = (BAR_LABEL_W, w - 80.0);
    let mut o = String::new();
    let _ = write!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" \
         viewBox=\"0 0 {w:.0} {h:.0}\" role=\"img\" aria-label=\"{t}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<title>{t}</title>\n\
         <rect x=\"0\" y=\"0\" width=\"{w:.0}\" height=\"{h:.0}\" fill=\"#ffffff\"/>\n\
         <text x=\"{:.1}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">{t}</text>\n",
        w / 2.0,
        t = escape(&c.title)
    );
    o.push_str("<g class=\"bars\">\n");
    for (i, (label, value, hi)) in c.bars.iter().enumerate() {
        let y = MARGIN_TOP + BAR_ROW * i as f64;
        let v = if value.is_finite() {
            value.max(0.0)
        } else {
            0.0
        };
        let bw = scale.map(v, x0, x1) - x0;
        let color = if *hi { color(1) } else { color(0) };
        let weight = if *hi { " font-weight=\"bold\"" } else { "" };
        let _ = writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\"{weight}>{}</text>\
             <rect class=\"bar\" x=\"{x0:.1}\" y=\"{:.1}\" width=\"{bw:.1}\" height=\"{:.1}\" fill=\"{color}\"><title>{}: {} {}</title></rect>\
             <text x=\"{:.1}\" y=\"{:.1}\"{weight}>{}</text>",
            x0 - 6.0,
            y + 15.0,
            escape(&truncate_label(label, 46)),
            y + 3.0,
            BAR_ROW - 6.0,
            escape(label),
            tick_label(*value),
            escape(&c.unit),
            x0 + bw + 4.0,
            y + 15.0,
            tick_label(*value)
        );
    }
    let yb = MARGIN_TOP + BAR_ROW * c.bars.len() as f64;
    let _ = writeln!(
        o,
        "<line x1=\"{x0:.1}\" y1=\"{:.1}\" x2=\"{x0:.1}\" y2=\"{yb:.1}\" stroke=\"#333333\"/>\n\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
        MARGIN_TOP - 4.0,
        (x0 + x1) / 2.0,
        yb + 20.0,
        escape(&c.unit)
    );
    o.push_str("</g>\n</svg>\n");
    o
}

fn truncate_label(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut t: String = s.chars().take(n - 1).collect();
    t.push('…');
    t
}

/// One series: a polyline and a marker per point, with the values as tooltips.
fn line(
    o: &mut String,
    s: &Series,
    xs: &Scale,
    ys: &Scale,
    (x0, x1, y0, y1): (f64, f64, f64, f64),
) {
    let pts: Vec<(f64, f64, f64, f64)> = finite(s)
        .map(|(x, y)| (xs.map(x, x0, x1), ys.map(y, y0, y1), x, y))
        .collect();
    let dash = if s.dashed {
        " stroke-dasharray=\"6 4\""
    } else {
        ""
    };
    let color = escape(&s.color);
    let _ = writeln!(o, "<g class=\"series\" data-name=\"{}\">", escape(&s.name));
    if pts.len() > 1 {
        let path: Vec<String> = pts
            .iter()
            .map(|p| format!("{:.1},{:.1}", p.0, p.1))
            .collect();
        let _ = writeln!(
            o,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"{dash} points=\"{}\"/>",
            path.join(" ")
        );
    }
    for (px, py, x, y) in &pts {
        let _ = writeln!(
            o,
            "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"3\" fill=\"{color}\"><title>{}: {} at {}</title></circle>",
            escape(&s.name),
            tick_label(*y),
            tick_label(*x)
        );
    }
    o.push_str("</g>\n");
}

/// The legend, one row per series, below the plot.
fn legend(o: &mut String, c: &Chart, x: f64, top: f64) {
    o.push_str("<g class=\"legend\">\n");
    for (i, s) in c.series.iter().enumerate() {
        let y = top + LEGEND_ROW * i as f64 + 10.0;
        let dash = if s.dashed {
            " stroke-dasharray=\"6 4\""
        } else {
            ""
        };
        let axis = if s.axis == Axis::Right && c.y2_label.is_some() {
            " (right axis)"
        } else {
            ""
        };
        let _ = writeln!(
            o,
            "<line x1=\"{x:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{}\" stroke-width=\"2\"{dash}/>\
             <text x=\"{:.1}\" y=\"{:.1}\">{}{axis}</text>",
            x + 28.0,
            escape(&s.color),
            x + 34.0,
            y + 4.0,
            escape(&s.name)
        );
    }
    o.push_str("</g>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_control_characters() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;\u{fffd}"
        );
    }

    #[test]
    fn ticks_are_round_numbers_covering_the_data() {
        // An RK3588's clocks, 408…2352 MHz: round steps of 250, not from zero.
        let s = Scale::new(408.0, 2352.0, 8);
        assert_eq!((s.lo, s.hi), (250.0, 2500.0));
        assert_eq!(s.ticks.len(), 10);
        assert!(
            s.ticks
                .windows(2)
                .all(|w| (w[1] - w[0] - 250.0).abs() < 1e-9)
        );
        assert_eq!(nice_step(1944.0, 8), 250.0);
        assert_eq!(nice_step(9.0, 5), 2.0);
        // One value: still a range.
        let one = Scale::new(45.0, 45.0, 5);
        assert!(one.lo < 45.0 && one.hi > 45.0);
        // Garbage: a default range, no panic.
        let bad = Scale::new(f64::NAN, 1.0, 5);
        assert_eq!((bad.lo, bad.hi), (0.0, 1.0));
        assert_eq!(nice_step(0.0, 5), 1.0);
        assert_eq!(tick_label(2.5), "2.5");
        assert_eq!(tick_label(1200.0), "1200");
    }

    #[test]
    fn a_chart_has_both_axes_each_series_and_escaped_text() {
        let c = Chart {
            title: "MIPS <all> & more".into(),
            x_label: "MHz".into(),
            y_label: "MIPS".into(),
            y2_label: Some("°C".into()),
            series: vec![
                Series {
                    name: "CPU 0-3".into(),
                    color: color(0).into(),
                    axis: Axis::Left,
                    dashed: false,
                    points: vec![(600.0, 1000.0), (1800.0, 3000.0), (f64::NAN, 1.0)],
                },
                Series {
                    name: "CPU 0-3 temp".into(),
                    color: color(0).into(),
                    axis: Axis::Right,
                    dashed: true,
                    points: vec![(600.0, 40.0), (1800.0, 55.0)],
                },
            ],
            width: 900,
            height: 450,
        };
        let svg = render(&c);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.contains("MIPS &lt;all&gt; &amp; more"));
        assert_eq!(svg.matches("class=\"series\"").count(), 2);
        assert_eq!(
            svg.matches("<circle").count(),
            4,
            "the NaN point is left out"
        );
        assert!(svg.contains("class=\"y2-axis\""));
        assert!(svg.contains("stroke-dasharray"));
        assert!(!svg.contains("NaN"));
        // Without a right-axis series there is no second axis.
        let mut left_only = c.clone();
        left_only.series.truncate(1);
        assert!(!render(&left_only).contains("y2-axis"));
        // No series at all still renders a frame.
        let empty = Chart {
            series: Vec::new(),
            ..c
        };
        assert!(render(&empty).ends_with("</svg>\n"));
    }

    #[test]
    fn decor_gives_own_ticks_and_numbered_bands() {
        let c = Chart {
            title: "ramlat".into(),
            x_label: "size".into(),
            y_label: "ns".into(),
            y2_label: None,
            series: vec![Series {
                name: "1x32".into(),
                color: color(0).into(),
                axis: Axis::Left,
                dashed: false,
                points: vec![(12.0, 1.7), (26.0, 99.0)],
            }],
            width: 600,
            height: 300,
        };
        let d = Decor {
            x_ticks: Some(vec![
                (12.0, "4K".into()),
                (20.0, "1M".into()),
                (26.0, "64M".into()),
            ]),
            bands: vec![
                (12.0, 14.0, "clock <check>".into()),
                (14.0, 20.0, "7-zip".into()),
            ],
        };
        let svg = render_decorated(&c, &d);
        assert!(svg.contains(">4K</text>") && svg.contains(">64M</text>"));
        assert!(
            !svg.contains(">12</text>"),
            "the computed ticks are replaced"
        );
        assert_eq!(svg.matches("fill-opacity").count(), 2);
        assert!(svg.contains("<title>1 clock &lt;check&gt;</title>"));
    }

    #[test]
    fn bars_are_scaled_to_the_largest_and_the_highlighted_one_stands_out() {
        let c = BarChart {
            title: "7-zip".into(),
            unit: "MIPS".into(),
            bars: vec![
                ("Rock 5B".into(), 16000.0, false),
                ("this run".into(), 8000.0, true),
                ("broken".into(), f64::NAN, false),
            ],
            width: 700,
        };
        let svg = render_bars(&c);
        assert_eq!(svg.matches("class=\"bar\"").count(), 3);
        assert!(svg.contains(&format!("fill=\"{}\"", color(1))));
        assert!(!svg.contains("NaN\""), "no NaN geometry");
        // Widths: the first (largest) bar is twice the second.
        let widths: Vec<f64> = svg
            .split("class=\"bar\"")
            .skip(1)
            .filter_map(|p| p.split("width=\"").nth(1)?.split('"').next()?.parse().ok())
            .collect();
        assert!((widths[0] - 2.0 * widths[1]).abs() < 0.2, "{widths:?}");
        assert_eq!(widths[2], 0.0);
    }
}
