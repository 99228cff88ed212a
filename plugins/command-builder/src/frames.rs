//! What flows through a filter graph: which filter feeds which, how large the frames each filter
//! produces can be, and whether a filter that buffers its whole input gets a bounded one.
//!
//! Sizes are upper bounds. A frame of unknown size (a task input, whose size the host does not
//! pass yet) is taken as the largest the plan allows, `max_dimension` square, in size
//! expressions (`iw*3` is refused), and as half of it when stacked, so two unknown inputs may
//! be stacked side by side but not three. Filters that fix a size (`scale=320:-1`) make it
//! known to the filters after them (`tile=3x3`).

use crate::expr;
use crate::filtergraph::{Graph, Sep};
use crate::policy;
use crate::values::{self, MapTarget};

/// Width and height, in pixels.
pub type Size = (f64, f64);

/// Where a filter's input comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Source {
    Filter(usize),
    /// A task input (`[1:v]`), or `None` for the graph's unlabelled input (the output's stream
    /// in `-vf`, the next unused input stream in `filter_complex`).
    Input(Option<usize>),
}

/// A filter that keeps its whole input in memory, and the task inputs that must then carry
/// `-t` (`None`: every input).
pub type Buffered = (String, Vec<Option<usize>>);

/// A checked filter's options by canonical name, as the size rules read them.
pub type Opts = [(String, String)];

fn opt<'a>(opts: &'a Opts, name: &str) -> Option<&'a str> {
    opts.iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// The filters and inputs feeding filter `i`: its labelled inputs, and the filter before it in
/// its chain (`a,b`). A chain's first filter without labels reads the graph's input, unless it
/// is a source.
pub fn sources(graph: &Graph, i: usize) -> Vec<Source> {
    let filter = &graph.filters[i];
    let mut out: Vec<Source> = filter
        .inputs
        .iter()
        .map(
            |label| match graph.filters.iter().position(|f| f.outputs.contains(label)) {
                Some(j) => Source::Filter(j),
                None => match values::check_map(label, usize::MAX) {
                    Ok(MapTarget::Input(n)) => Source::Input(Some(n)),
                    _ => Source::Input(None),
                },
            },
        )
        .collect();
    let chained = i > 0 && graph.filters[i - 1].sep == Some(Sep::Comma);
    if chained {
        out.push(Source::Filter(i - 1));
    } else if out.is_empty() && !policy::SOURCE_FILTERS.contains(&filter.name.as_str()) {
        out.push(Source::Input(None));
    }
    out
}

/// Variables of size expressions for an input of `(w, h)` with square pixels.
fn vars((w, h): Size) -> Vec<(&'static str, f64)> {
    let mut v = Vec::new();
    for name in ["iw", "in_w", "ow", "out_w", "main_w", "W"] {
        v.push((name, w));
    }
    for name in ["ih", "in_h", "oh", "out_h", "main_h", "H"] {
        v.push((name, h));
    }
    for name in ["a", "main_a", "dar", "main_dar"] {
        v.push((name, w / h));
    }
    for name in ["sar", "main_sar"] {
        v.push((name, 1.0));
    }
    for name in ["hsub", "vsub", "ohsub", "ovsub", "main_hsub", "main_vsub"] {
        v.push((name, 2.0));
    }
    for name in ["x", "y", "n", "t", "pos"] {
        v.push((name, 0.0));
    }
    v
}

/// How a size judgement describes the input it assumed.
fn against(input: Option<Size>, max: f64) -> String {
    match input {
        Some((w, h)) => format!("for its {w:.0}x{h:.0} input"),
        None => format!("for an input of up to {max:.0}x{max:.0}"),
    }
}

/// Evaluates one width/height option (`default` when absent) and refuses it above `max`.
fn dimension(
    opts: &Opts,
    name: &str,
    default: &str,
    input: Option<Size>,
    max: f64,
) -> Result<f64, String> {
    let value = opt(opts, name).unwrap_or(default);
    let size = input.unwrap_or((max, max));
    let v = match values::parse_number(value) {
        Some(v) => v,
        None => expr::eval(value, &vars(size)).map_err(|e| {
            format!("option '{name}' value '{}' is not allowed: the expression cannot be checked ({e}); use numbers, iw/ih and min, max, trunc, round, if", crate::show(value))
        })?,
    };
    if v.is_nan() || v > max {
        let how = if values::parse_number(value).is_some() {
            String::new()
        } else {
            format!(" {}", against(input, max))
        };
        return Err(format!(
            "option '{name}' value '{}' is not allowed: it gives {v:.0} pixels{how}; the limit is {max:.0}",
            crate::show(value)
        ));
    }
    Ok(v)
}

/// `scale`-like sizes: `w`/`h` (or `size`), where 0 or a negative value keeps the input's side
/// or its aspect ratio.
fn scaled(opts: &Opts, input: Option<Size>, max: f64) -> Result<Size, String> {
    if let Some(s) = opt(opts, "size") {
        return named_size(s, max);
    }
    let (iw, ih) = input.unwrap_or((max, max));
    let w = dimension(opts, "w", "iw", input, max)?;
    let h = dimension(opts, "h", "ih", input, max)?;
    Ok(match (w <= 0.0, h <= 0.0) {
        (true, true) => (iw, ih),
        (true, false) => (h * iw / ih, h),
        (false, true) => (w, w * ih / iw),
        (false, false) => (w, h),
    })
}

fn named_size(s: &str, max: f64) -> Result<Size, String> {
    values::check_size(s, max as u32)
        .map_err(|e| format!("size '{}' is not allowed: {e}", crate::show(s)))?;
    let (w, h) = values::parse_size(s).unwrap_or((0, 0));
    Ok((w as f64, h as f64))
}

/// `CxR` (tile and xstack grids).
fn grid(value: &str, name: &str) -> Result<(f64, f64), String> {
    value
        .split_once('x')
        .and_then(|(c, r)| Some((c.parse::<u16>().ok()?, r.parse::<u16>().ok()?)))
        .map(|(c, r)| (f64::from(c), f64::from(r)))
        .ok_or(format!(
            "option '{name}' value '{}' is not allowed: expected columns x rows such as 3x3",
            crate::show(value)
        ))
}

fn count(opts: &Opts, name: &str, default: f64) -> Result<f64, String> {
    match opt(opts, name) {
        None => Ok(default),
        Some(v) => values::check_int(v, 0, 1024)
            .map(|n| n as f64)
            .map_err(|e| {
                format!(
                    "option '{name}' value '{}' is not allowed: {e}",
                    crate::show(v)
                )
            }),
    }
}

/// `tile`: columns x rows input frames on one, with padding between and a margin around.
fn tiled(opts: &Opts, input: Option<Size>, max: f64) -> Result<Size, String> {
    let (w, h) = input.unwrap_or((max, max));
    let (cols, rows) = grid(opt(opts, "layout").unwrap_or("6x5"), "layout")?;
    let padding = count(opts, "padding", 0.0)?;
    let margin = count(opts, "margin", 0.0)?;
    let side = |n: f64, s: f64| n * s + (n - 1.0).max(0.0) * padding + 2.0 * margin;
    Ok((side(cols, w), side(rows, h)))
}

/// The size of stacked input `k`: known, or half the limit when unknown.
fn stacked(inputs: &[Option<Size>], k: usize, max: f64) -> Size {
    inputs
        .get(k)
        .copied()
        .flatten()
        .unwrap_or((max / 2.0, max / 2.0))
}

/// `hstack`/`vstack`/`xstack` of `inputs` frames.
fn stack(name: &str, opts: &Opts, inputs: &[Option<Size>], max: f64) -> Result<Size, String> {
    let n = count(opts, "inputs", 2.0)? as usize;
    let all: Vec<Size> = (0..n).map(|k| stacked(inputs, k, max)).collect();
    let widest = all.iter().map(|s| s.0).fold(0.0, f64::max);
    let tallest = all.iter().map(|s| s.1).fold(0.0, f64::max);
    match (name, opt(opts, "layout"), opt(opts, "grid")) {
        ("vstack", _, _) => Ok((widest, all.iter().map(|s| s.1).sum())),
        ("xstack", Some(layout), _) => xstack_layout(layout, &all),
        ("xstack", None, Some(g)) => {
            let (cols, rows) = grid(g, "grid")?;
            Ok((cols * widest, rows * tallest))
        }
        _ => Ok((all.iter().map(|s| s.0).sum(), tallest)),
    }
}

/// `xstack` `layout=0_0|w0_0|0_h0|w0_h0`: input k at (x, y), each a `+`-sum of numbers and
/// `wN`/`hN`; the frame spans the farthest input's corner.
fn xstack_layout(layout: &str, inputs: &[Size]) -> Result<Size, String> {
    let bad = || {
        format!(
            "option 'layout' value '{}' is not allowed: expected positions such as 0_0|w0_0",
            crate::show(layout)
        )
    };
    let term = |t: &str| -> Option<f64> {
        let pick =
            |rest: &str, side: fn(&Size) -> f64| inputs.get(rest.parse::<usize>().ok()?).map(side);
        match t.split_at_checked(1)? {
            ("w", k) => pick(k, |s| s.0),
            ("h", k) => pick(k, |s| s.1),
            _ => t.parse().ok(),
        }
    };
    let sum = |p: &str| p.split('+').map(term).sum::<Option<f64>>();
    let (mut w, mut h) = (0.0f64, 0.0f64);
    for (k, place) in layout.split('|').enumerate() {
        let (x, y) = place.split_once('_').ok_or_else(bad)?;
        let (x, y) = (sum(x).ok_or_else(bad)?, sum(y).ok_or_else(bad)?);
        let (iw, ih) = inputs.get(k).copied().ok_or_else(bad)?;
        w = w.max(x + iw);
        h = h.max(y + ih);
    }
    Ok((w, h))
}

/// The frame size a filter's rule checks as a size (`color` `size`, `zoompan` `s`).
fn size_option<'a>(name: &str, opts: &'a Opts) -> Option<&'a str> {
    let rule = policy::RULED_FILTERS.iter().find(|r| r.name == name)?;
    rule.checks
        .iter()
        .filter(|(_, check)| *check == policy::Check::Size)
        .find_map(|(option, _)| opt(opts, option))
}

/// The largest frame filter `name` produces from `inputs` (`None`: unknown), or why its options
/// make frames beyond `max` per side (completing "Filter 'x' ...").
pub fn frame_size(
    name: &str,
    opts: &Opts,
    inputs: &[Option<Size>],
    max: f64,
) -> Result<Option<Size>, String> {
    let first = inputs.first().copied().flatten();
    let (iw, ih) = first.unwrap_or((max, max));
    let size = match name {
        "scale" | "zscale" => scaled(opts, first, max)?,
        "scale2ref" => scaled(opts, inputs.get(1).copied().flatten(), max)?,
        "pad" => {
            let w = dimension(opts, "width", "iw", first, max)?;
            let h = dimension(opts, "height", "ih", first, max)?;
            (if w > 0.0 { w } else { iw }, if h > 0.0 { h } else { ih })
        }
        // Never larger than its input; expressions it cannot read keep the input's size.
        "crop" => {
            let side = |o, d, full: f64| {
                dimension(opts, o, d, first, max).map_or(full, |v| v.clamp(0.0, full))
            };
            (side("out_w", "iw", iw), side("out_h", "ih", ih))
        }
        "rotate" => (
            dimension(opts, "out_w", "iw", first, max)?,
            dimension(opts, "out_h", "ih", first, max)?,
        ),
        "v360" => (
            dimension(opts, "w", "iw", first, max)?,
            dimension(opts, "h", "ih", first, max)?,
        ),
        "tile" => tiled(opts, first, max)?,
        "hstack" | "vstack" | "xstack" => stack(name, opts, inputs, max)?,
        "hqx" | "xbr" => {
            let n = count(opts, "n", 3.0)?;
            (n * iw, n * ih)
        }
        "weave" | "doubleweave" | "tinterlace" => (iw, 2.0 * ih),
        "transpose" => (ih, iw),
        _ => match size_option(name, opts) {
            Some(s) => named_size(s, max)?,
            None if policy::SOURCE_FILTERS.contains(&name) => (320.0, 240.0),
            None => return Ok(first),
        },
    };
    let (w, h) = (size.0.round(), size.1.round());
    if w.is_nan() || h.is_nan() || w > max || h > max {
        return Err(format!(
            "is not allowed here: it makes {w:.0}x{h:.0} frames {}; the limit is {max:.0} pixels per side",
            against(first, max)
        ));
    }
    Ok(Some((w, h)))
}

/// Whether filter `name` with `opts` ends its stream (`trim=end=5`, `atrim=duration=2`).
pub fn ends_stream(name: &str, opts: &Opts) -> bool {
    const ENDS: &[&str] = &["end", "end_pts", "duration", "end_frame", "end_sample"];
    matches!(name, "trim" | "atrim") && opts.iter().any(|(n, _)| ENDS.contains(&n.as_str()))
}

/// What a filter that keeps its whole input in memory (`reverse`) needs: every path back from
/// it must reach a filter that ends the stream (`trim`), a source of bounded length, or a task
/// input, which must then carry `-t`. Returns those inputs (`None`: every input), or why the
/// input cannot be bounded. `ends[j]`/`endless[j]`: filter j ends / never ends its stream.
pub fn bounded_by_inputs(
    graph: &Graph,
    start: usize,
    ends: &[bool],
    endless: &[bool],
) -> Result<Vec<Option<usize>>, String> {
    let mut needed = Vec::new();
    let mut seen = vec![false; graph.filters.len()];
    let mut todo = sources(graph, start);
    while let Some(source) = todo.pop() {
        let j = match source {
            Source::Input(n) => {
                needed.push(n);
                continue;
            }
            Source::Filter(j) if seen[j] => continue,
            Source::Filter(j) => j,
        };
        seen[j] = true;
        let name = &graph.filters[j].name;
        if ends[j] {
            continue;
        }
        if endless[j] {
            return Err(format!("'{name}' before it never ends"));
        }
        if matches!(name.as_str(), "movie" | "amovie") {
            return Err(format!("'{name}' before it reads a whole file"));
        }
        todo.extend(sources(graph, j));
    }
    Ok(needed)
}
