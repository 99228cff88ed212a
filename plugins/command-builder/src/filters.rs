//! The filter graph policy: every filter must be on the allow-list, file-taking options must
//! name the task's own inputs through `@{name}`, other values must not look like paths or URLs,
//! and sizes, rates, durations and repeat counts are bounded.

use crate::config::Config;
use crate::filtergraph::{self, Graph};
use crate::frames::{self, Buffered, Size, Source};
use crate::policy::{
    self, Check, Endless, FilterRule, MAX_FILTERS, MAX_FPS, MAX_GRAPH_LEN, MAX_SAMPLE_RATE,
    PROTOCOLS,
};
use crate::values::{self, MapTarget};
use crate::{Decision, Refusal, StagedInput, placeholders, refusal, show};

/// What a graph check needs to know about the task.
pub struct GraphCtx<'a> {
    pub config: &'a Config,
    pub inputs: &'a [StagedInput],
    /// Where the graph came from, for messages: "filter_complex", "output 1 -vf".
    pub place: String,
}

#[derive(Debug)]
pub struct CheckedGraph {
    /// The graph re-serialised, placeholders resolved.
    pub text: String,
    /// Output link labels no filter of the graph consumes (what `-map [label]` can name).
    pub open_outputs: Vec<String>,
    /// Filters that produce media forever as configured (sources without a duration, `apad`
    /// without a length): allowed only when every output is bounded.
    pub endless: Vec<String>,
    /// Filters that keep their whole input in memory (`reverse`), with the task inputs that
    /// must then carry `-t` (`None`: every input); `task` checks them.
    pub buffered: Vec<Buffered>,
    pub decisions: Vec<Decision>,
}

/// What checking one filter found.
struct Checked {
    reason: String,
    /// It produces media forever as configured.
    endless: bool,
    /// Its options by canonical name, placeholders resolved.
    opts: Vec<(String, String)>,
}

/// A value that names a file or URL: absolute or home paths, `..` segments, `scheme://`, or a
/// protocol prefix such as `file:`.
pub fn looks_like_path(value: &str) -> bool {
    let v = value.trim();
    let lower = v.to_ascii_lowercase();
    v.starts_with('/')
        || v.starts_with('~')
        || v.starts_with("./")
        || v == ".."
        || v.starts_with("../")
        || v.contains("/../")
        || v.ends_with("/..")
        || v.contains("://")
        || PROTOCOLS.iter().any(|p| {
            lower
                .strip_prefix(p)
                .is_some_and(|r| r.starts_with([':', ',']))
        })
}

fn find_rule(name: &str) -> Option<&'static FilterRule> {
    policy::RULED_FILTERS.iter().find(|r| r.name == name)
}

/// Parses, checks and re-serialises a filter graph. `complex` graphs (`-filter_complex`) may
/// take input streams by label (`[0:v]`), which must exist.
pub fn check_graph(text: &str, complex: bool, ctx: &GraphCtx) -> Result<CheckedGraph, Refusal> {
    let place = &ctx.place;
    if text.len() > MAX_GRAPH_LEN {
        return Err(refusal(
            "filter graph",
            format!("The filter graph is longer than {MAX_GRAPH_LEN} bytes ({place})"),
        ));
    }
    let mut graph: Graph = filtergraph::parse(text).map_err(|e| {
        refusal(
            "filter graph",
            format!("The filter graph cannot be parsed: {e} ({place})"),
        )
    })?;
    if graph.filters.len() > MAX_FILTERS {
        return Err(refusal(
            "filter graph",
            format!("The filter graph has more than {MAX_FILTERS} filters ({place})"),
        ));
    }
    let mut decisions = Vec::new();
    let mut endless = Vec::new();
    let mut ends = Vec::new();
    let mut sizes: Vec<Option<Size>> = Vec::new();
    for i in 0..graph.filters.len() {
        let sources = frames::sources(&graph, i);
        let filter = &mut graph.filters[i];
        let checked = check_filter(filter, ctx)?;
        sizes.push(frame_size(filter, &checked.opts, &sources, &sizes, ctx)?);
        ends.push(frames::ends_stream(&filter.name, &checked.opts));
        if checked.endless {
            endless.push(filter.name.clone());
        }
        decisions.push(Decision {
            subject: filter.name.clone(),
            allowed: true,
            reason: format!("{place}: {}", checked.reason),
        });
    }
    let buffered = whole_stream_buffers(&graph, &ends, &endless, place)?;

    // Link labels: what the graph consumes from outside and offers to `-map`.
    let produced: Vec<&String> = graph.filters.iter().flat_map(|f| &f.outputs).collect();
    let consumed: Vec<&String> = graph.filters.iter().flat_map(|f| &f.inputs).collect();
    let open_outputs: Vec<String> = produced
        .iter()
        .filter(|l| !consumed.contains(l))
        .map(|l| l.to_string())
        .collect();
    if complex {
        for label in consumed.iter().filter(|l| !produced.contains(l)) {
            match values::check_map(label, ctx.inputs.len()) {
                Ok(MapTarget::Input(_)) => {}
                Ok(MapTarget::Label(_)) | Err(_) => {
                    return Err(refusal(
                        format!("[{label}]"),
                        format!(
                            "Filter graph input '[{}]' names neither an input stream (such as [0:v] or [1:a]) nor an output of the same graph ({place})",
                            show(label)
                        ),
                    ));
                }
            }
        }
    }

    Ok(CheckedGraph {
        text: filtergraph::serialize(&graph),
        open_outputs,
        endless,
        buffered,
        decisions,
    })
}

/// The largest frames filter `filter` makes, given what its sources make (task inputs and
/// filters later in the graph count as unknown); refused beyond `max_dimension`.
fn frame_size(
    filter: &filtergraph::Filter,
    opts: &[(String, String)],
    sources: &[Source],
    sizes: &[Option<Size>],
    ctx: &GraphCtx,
) -> Result<Option<Size>, Refusal> {
    let inputs: Vec<Option<Size>> = sources
        .iter()
        .map(|s| match s {
            Source::Filter(j) => sizes.get(*j).copied().flatten(),
            Source::Input(_) => None,
        })
        .collect();
    let max = f64::from(ctx.config.max_dimension);
    frames::frame_size(&filter.name, opts, &inputs, max).map_err(|e| {
        refusal(
            filter.name.clone(),
            format!("Filter '{}' {e} ({})", show(&filter.name), ctx.place),
        )
    })
}

/// Filters that keep their whole input in memory, each with the task inputs that must carry
/// `-t`; refused when nothing before them can end their input.
fn whole_stream_buffers(
    graph: &Graph,
    ends: &[bool],
    endless: &[String],
    place: &str,
) -> Result<Vec<Buffered>, Refusal> {
    let endless: Vec<bool> = graph
        .filters
        .iter()
        .map(|f| endless.contains(&f.name))
        .collect();
    let mut out = Vec::new();
    for (i, filter) in graph.filters.iter().enumerate() {
        let name = filter.name.as_str();
        if !policy::WHOLE_STREAM_BUFFERS.contains(&name) {
            continue;
        }
        let inputs = frames::bounded_by_inputs(graph, i, ends, &endless).map_err(|why| {
            refusal(
                name,
                format!("Filter '{name}' keeps its whole input in memory, and {why}: put trim/atrim with end= or duration= before it ({place})"),
            )
        })?;
        out.push((name.to_string(), inputs));
    }
    Ok(out)
}

/// Checks one filter in place (resolving placeholders).
fn check_filter(filter: &mut filtergraph::Filter, ctx: &GraphCtx) -> Result<Checked, Refusal> {
    let place = &ctx.place;
    let name = filter.name.clone();
    let not_allowed = |why: &str| {
        refusal(
            name.clone(),
            format!("Filter '{}' is not allowed: {why} ({place})", show(&name)),
        )
    };
    if ctx.config.filter_denied(&name) {
        return Err(not_allowed("the operator has disabled it"));
    }
    let rule = find_rule(&name);
    if rule.is_none() && !policy::PLAIN_FILTERS.contains(&name.as_str()) {
        let why = policy::REFUSED_FILTERS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, why)| *why)
            .unwrap_or("it is not among the supported filters");
        return Err(not_allowed(why));
    }

    let mut notes = Vec::new();
    let mut given: Vec<(String, String)> = Vec::new();
    let mut forever = false;
    for (index, arg) in filter.args.iter_mut().enumerate() {
        let canonical: Option<String> = match (&arg.key, rule) {
            (Some(key), _) => {
                if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return Err(refusal(
                        name.clone(),
                        format!(
                            "Filter '{}' has an invalid option name '{}' ({place})",
                            show(&name),
                            show(key)
                        ),
                    ));
                }
                let resolved = rule
                    .and_then(|r| r.aliases.iter().find(|(alias, _)| alias == key))
                    .map(|(_, canonical)| canonical.to_string());
                Some(resolved.unwrap_or_else(|| key.clone()))
            }
            (None, Some(rule)) => match rule.params.get(index) {
                Some(param) => Some(param.to_string()),
                None => {
                    return Err(refusal(
                        name.clone(),
                        format!(
                            "Filter '{}': give options after the first {} as key=value ({place})",
                            show(&name),
                            rule.params.len()
                        ),
                    ));
                }
            },
            (None, None) => None,
        };
        let check = match (rule, &canonical) {
            (Some(rule), Some(c)) => rule
                .checks
                .iter()
                .find(|(n, _)| n == c)
                .map(|(_, check)| *check),
            _ => None,
        };
        let label = canonical
            .clone()
            .unwrap_or_else(|| format!("#{}", index + 1));
        let option_refusal = |why: String| {
            refusal(
                name.clone(),
                format!(
                    "Filter '{}' option '{}' is not allowed: {why} ({place})",
                    show(&name),
                    show(&label)
                ),
            )
        };
        match check {
            Some(Check::InputFile) => {
                let input = placeholders::exact(&arg.value).ok_or_else(|| {
                    option_refusal("it must be @{name} naming one of the task's inputs".into())
                })?;
                let path = placeholders::lookup(input, ctx.inputs).map_err(&option_refusal)?;
                notes.push(format!("{label} reads input '{}'", show(input)));
                arg.value = path.to_string();
                if let Some(c) = canonical {
                    given.push((c, arg.value.clone()));
                }
                continue;
            }
            Some(Check::Refused(why)) => return Err(option_refusal(why.into())),
            Some(Check::Text) => {}
            Some(Check::Repeat { forever: f }) if values::parse_int(&arg.value) == Some(f) => {
                notes.push(format!("{label} repeats forever"));
                forever = true;
            }
            Some(other) => check_value(other, &arg.value, ctx.config).map_err(|e| {
                refusal(
                    name.clone(),
                    format!(
                        "Filter '{}' option '{}' value '{}' is not allowed: {e} ({place})",
                        show(&name),
                        show(&label),
                        show(&arg.value)
                    ),
                )
            })?,
            None => {}
        }
        if check != Some(Check::Text) && looks_like_path(&arg.value) {
            return Err(option_refusal(
                "its value looks like a file path or URL; refer to the task's inputs with @{name}"
                    .into(),
            ));
        }
        // Text a filter draws gets the input's name; everything else its staged path.
        let (resolved, found) = if check == Some(Check::Text) {
            placeholders::resolve_names(&arg.value, ctx.inputs)
        } else {
            placeholders::resolve(&arg.value, ctx.inputs)
        }
        .map_err(&option_refusal)?;
        if found {
            notes.push(format!("{label} refers to an input"));
            arg.value = resolved;
        }
        if let Some(c) = canonical {
            given.push((c, arg.value.clone()));
        }
    }

    let is_endless = forever
        || match rule.map(|r| r.endless) {
            Some(Endless::UnlessOneOf(bounds)) => {
                !bounds.iter().any(|b| given.iter().any(|(g, _)| g == b))
            }
            _ => false,
        };
    let mut reason = String::from("allowed filter");
    if !notes.is_empty() {
        reason.push_str("; ");
        reason.push_str(&notes.join("; "));
    }
    Ok(Checked {
        reason,
        endless: is_endless,
        opts: given,
    })
}

/// Applies a value check; `Err` completes "value '...' is not allowed: ...".
fn check_value(check: Check, value: &str, config: &Config) -> Result<(), String> {
    let max_dim = config.max_dimension;
    match check {
        Check::Size => values::check_size(value, max_dim),
        Check::Rate => match values::parse_rate(value) {
            Some(r) if r > MAX_FPS => Err(format!("frame rates above {MAX_FPS} are not allowed")),
            _ => Ok(()),
        },
        Check::Duration => match values::parse_duration(value) {
            Some(d) if d >= 0.0 && d <= config.max_duration => Ok(()),
            Some(d) if d < 0.0 => Err(format!(
                "a negative duration means forever; give 0 to {} seconds",
                config.max_duration
            )),
            Some(_) => Err(format!("the limit is {} seconds", config.max_duration)),
            None => Err("expected a duration such as 5, 2.5 or 00:00:05".into()),
        },
        Check::Samples => {
            let max = (config.max_duration * MAX_SAMPLE_RATE) as i64;
            match values::parse_int(value) {
                Some(v) if (0..=max).contains(&v) => Ok(()),
                Some(v) if v < 0 => Err("a negative length means forever".into()),
                _ => Err(format!("expected a sample count from 0 to {max}")),
            }
        }
        Check::Repeat { .. } => {
            let max = i64::from(config.max_loop);
            // `forever` never gets here: `check_filter` makes the filter endless instead.
            match values::parse_int(value) {
                Some(v) if (0..=max).contains(&v) => Ok(()),
                _ => Err(format!("expected a repeat count from 0 to {max}")),
            }
        }
        Check::Count(max) => match values::parse_int(value) {
            Some(-1) => Err("-1 means unbounded".into()),
            Some(v) if (0..=max).contains(&v) => Ok(()),
            _ => Err(format!("expected a whole number from 0 to {max}")),
        },
        Check::Frames => {
            let max = (config.max_duration * 60.0) as i64;
            match values::parse_int(value) {
                Some(-1) => Err("-1 means forever".into()),
                Some(v) if (0..=max).contains(&v) => Ok(()),
                _ => Err(format!("expected a frame count from 0 to {max}")),
            }
        }
        Check::Demuxer => crate::options::check_demuxer(value),
        Check::InputFile | Check::Text | Check::Refused(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(config: &Config) -> GraphCtx<'_> {
        static INPUTS: std::sync::OnceLock<Vec<StagedInput>> = std::sync::OnceLock::new();
        let inputs = INPUTS.get_or_init(|| {
            vec![
                StagedInput {
                    name: "in.mp4".into(),
                    path: "/job/in/0".into(),
                },
                StagedInput {
                    name: "logo.png".into(),
                    path: "/job/in/1".into(),
                },
            ]
        });
        GraphCtx {
            config,
            inputs,
            place: "filter_complex".into(),
        }
    }

    fn check(text: &str) -> Result<CheckedGraph, String> {
        let config = Config::default();
        check_graph(text, true, &ctx(&config)).map_err(|r| r.message)
    }

    #[test]
    fn paths() {
        for p in [
            "/etc/passwd",
            "file:/etc/passwd",
            "FILE:x",
            "http://x",
            "../x",
            "a/../b",
            "~/x",
            "subfile,,start,0,end,0,,:x",
        ] {
            assert!(looks_like_path(p), "{p}");
        }
        for p in [
            "iw/2",
            "1/2",
            "eq(n,0)",
            "black@0.5",
            "00:01:02",
            "stereo|c0=FL",
        ] {
            assert!(!looks_like_path(p), "{p}");
        }
    }

    #[test]
    fn allowed_graphs() {
        let g = check("[0:v][1:v]overlay=W-w-10:H-h-10[v];[0:a]volume=0.5[a]").unwrap();
        assert_eq!(g.open_outputs, vec!["v", "a"]);
        assert!(g.endless.is_empty());
        let g = check("movie=@{logo.png}[l];[0:v][l]overlay").unwrap();
        assert!(g.text.starts_with("movie=/job/in/1[l]"), "{}", g.text);
        let g = check("color=c=black:s=640x360[bg]").unwrap();
        assert_eq!(g.endless, vec!["color"]);
        let g = check("color=c=black:s=640x360:d=5[bg]").unwrap();
        assert!(g.endless.is_empty());
        // Repeating forever is allowed when every output is bounded (checked by `task`).
        for forever in [
            "amovie=@{in.mp4}:loop=0",
            "[0:v]loop=-1:1:0",
            "[0:a]aloop=loop=-1:size=44100",
        ] {
            assert_eq!(check(forever).unwrap().endless.len(), 1, "{forever}");
        }
        assert!(check("[0:v]scale=iw/2:-2[v]").is_ok());
        assert!(check("[0:v]scale=w=1280:h=720:force_original_aspect_ratio=decrease,pad=1280:720:(ow-iw)/2:(oh-ih)/2[v]").is_ok());
    }

    #[test]
    fn refused_graphs() {
        let cases = [
            ("movie=/etc/passwd", "must be @{name}"),
            ("movie=filename=@{nope}", "does not name an input"),
            (
                "[0:v]drawtext=textfile=/etc/passwd",
                "option 'textfile' is not allowed",
            ),
            (
                "[0:v]drawtext=fontfile=/x.ttf:text=hi",
                "option 'fontfile' is not allowed",
            ),
            ("[0:v]drawtext=/etc/passwd", "option 'fontfile'"),
            ("sendcmd=f=/etc/passwd", "reads commands from a file"),
            ("zmq", "network socket"),
            ("ladspa=f=x", "loads code"),
            ("[0:v]scale=100000:100000", "limit is 8192"),
            ("[0:v]scale=iw*10:-2", "for an input of up to 8192x8192"),
            ("[0:v]pad=20000:20000", "limit is 8192"),
            ("[0:v]loop=loop=5:size=100000", "from 0 to 300"),
            ("color=s=99999x99999:d=1", "limit of 8192"),
            ("color=d=100000", "limit is 3600"),
            ("[0:v]subtitles=/etc/passwd", "must be @{name}"),
            (
                "[0:v]subtitles=@{in.mp4}:fontsdir=/usr/share/fonts",
                "fontsdir",
            ),
            ("[0:v]lut3d=file=/tmp/x.cube", "must be @{name}"),
            ("[0:v]curves=psfile=x.acv", "reads a file"),
            ("[0:v]paletteuse=debug_kdtree=x.dot", "writes a file"),
            (
                "[0:v]format=pix_fmts='file\\:/etc/passwd'",
                "looks like a file path",
            ),
            ("[0:v]drawbox=color='http\\://x/'", "looks like a file path"),
            ("[5:v]scale=2:2", "names neither an input stream"),
            ("[foo]scale=2:2", "names neither an input stream"),
            ("[0:v]nosuchfilter", "not among the supported filters"),
            ("[0:v]scale=2:2,", "cannot be parsed"),
            ("[0:v]fps=fps=100000", "above 1000"),
            ("[0:v]tpad=stop=-1", "forever"),
            ("[0:v]scale=w=random(1)*9999", "cannot be checked"),
        ];
        for (graph, want) in cases {
            let err = check(graph).expect_err(graph);
            assert!(err.contains(want), "{graph}: {err}");
        }
    }

    #[test]
    fn denied_by_config() {
        let config = Config::from_json(r#"{"denied_filters":["drawbox"]}"#).unwrap();
        let err = check_graph("[0:v]drawbox", true, &ctx(&config)).unwrap_err();
        assert!(err.message.contains("operator has disabled it"));
    }
}
