//! `build-task`: a tenant's task and the host's job layout become an ffmpeg command.
//!
//! The host assembles
//! `ffmpeg <host flags> <global-args> (<input.args> -i <input.path>)... (<output.args> <output.path>)...`.
//! Global ffmpeg options — the task's `filter_complex`, any `-filter_complex`/`-lavfi` found in
//! an option list, `-copyts` and the like — go into `global-args`, in that order; ffmpeg reads
//! them wherever they stand, and hoisting keeps each input's and output's arguments its own.

use crate::config::Config;
use crate::filters::{self, GraphCtx};
use crate::frames::Buffered;
use crate::options::{self, OptCtx, ParsedOption, Side};
use crate::policy::{self, MAX_OUTPUT_STREAMS, MAX_TOKENS, Scope};
use crate::values::{self, MapTarget};
use crate::{
    CommandInput, CommandOutput, Decision, FfmpegCommand, JobLayout, Refusal, Task, TaskOutput,
    refusal, show,
};

/// Options that bound how much an output receives. `-shortest` bounds it too, but only when
/// some input ends (`output_bounded`).
const BOUNDING: &[&str] = &["t", "to", "frames", "vframes", "aframes", "fs"];
/// How an endless thing's refusal says the outputs can be bounded.
const BOUND_HINT: &str =
    "bound every output with -t, -frames, -fs, or -shortest with an input that ends";

fn decision(subject: impl Into<String>, allowed: bool, reason: impl Into<String>) -> Decision {
    Decision {
        subject: subject.into(),
        allowed,
        reason: reason.into(),
    }
}

/// Something in the task that produces media forever unless the outputs are bounded.
struct Endless {
    subject: String,
    message: String,
}

pub fn build_task(
    task: &Task,
    layout: &JobLayout,
    config: &Config,
) -> Result<FfmpegCommand, Refusal> {
    check_layout(task, layout)?;
    if task.outputs.is_empty() {
        return Err(refusal("outputs", "The task has no outputs"));
    }
    let output_dir = layout.output_dir.trim_end_matches('/');
    let output_dir = if output_dir.is_empty() {
        "/"
    } else {
        output_dir
    };
    let ctx = OptCtx {
        config,
        inputs: &layout.inputs,
        output_dir,
    };

    let mut g = Gathered::default();
    // Whether some input ends, so that `-shortest` bounds an output.
    let mut finite_input = false;
    // Whether each input carries -t/-to.
    let mut ended: Vec<bool> = Vec::new();
    // Labels complex graphs offer to `-map`.

    // Inputs.
    let mut inputs = Vec::new();
    for (i, input) in task.inputs.iter().enumerate() {
        let parsed = options::parse_options(&input.options, Side::Input(i), &ctx)?;
        ended.push(input_ends(&parsed));
        match endless_input(&parsed, i) {
            Some(e) => g.endless.push(e),
            None => finite_input = true,
        }
        let mut args = Vec::new();
        place_options(parsed, config, &mut args, &mut g);
        inputs.push(CommandInput {
            args,
            path: layout.inputs[i].path.clone(),
        });
    }

    // The task's own filter graph.
    if let Some(fc) = task
        .filter_complex
        .as_deref()
        .filter(|f| !f.trim().is_empty())
    {
        let gctx = GraphCtx {
            config,
            inputs: &layout.inputs,
            place: "filter_complex".into(),
        };
        let graph = filters::check_graph(fc, true, &gctx)?;
        for name in &graph.endless {
            g.endless.push(endless_filter(name, config));
        }
        g.graph_outputs.extend(graph.open_outputs.iter().cloned());
        g.buffered.extend(graph.buffered.iter().cloned());
        g.decisions.extend(graph.decisions);
        g.decisions.push(decision(
            "filter_complex",
            true,
            "task filter graph; placed in the global arguments",
        ));
        g.global_args.push("-filter_complex".into());
        g.global_args.push(graph.text);
    }

    // Outputs.
    let mut outputs = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let mut label_maps: Vec<(usize, String)> = Vec::new();
    let mut all_bounded = true;
    for (j, output) in task.outputs.iter().enumerate() {
        let place = Side::Output(j).place();
        let name = output.file.as_str();
        values::check_output_name(name).map_err(|e| {
            refusal(
                show(name),
                format!(
                    "Output file name '{}' is not allowed: it {e} (output {})",
                    show(name),
                    j + 1
                ),
            )
        })?;
        if names.contains(&name) {
            return Err(refusal(
                show(name),
                format!("Output file name '{}' is used by two outputs", show(name)),
            ));
        }
        names.push(name);

        let parsed = options::parse_options(&output.options, Side::Output(j), &ctx)?;
        check_map_budget(output, &parsed, j)?;
        let muxer = output_muxer(name, &parsed, j)?;
        for p in &parsed {
            if !p.spec.muxers.is_empty() && !p.spec.muxers.contains(&muxer) {
                return Err(refusal(
                    p.token.clone(),
                    format!(
                        "Option '{}' is not allowed here: it only applies to {} output, and this output is {muxer} ({place})",
                        p.token,
                        p.spec.muxers.join("/")
                    ),
                ));
            }
        }
        let bounded = output_bounded(&parsed, finite_input);
        all_bounded &= bounded;
        // An g.endless filter in this output's own simple graph needs this output bounded.
        for p in &parsed {
            if let (Some(graph), Scope::Output) = (&p.graph, p.spec.scope)
                && let Some(name) = graph.endless.first().filter(|_| !bounded)
            {
                return Err(endless_refusal(&endless_filter(name, config)));
            }
        }
        for p in &parsed {
            if let Some(MapTarget::Label(label)) = &p.map {
                label_maps.push((j, label.clone()));
            }
        }
        let mut args = Vec::new();
        place_options(parsed, config, &mut args, &mut g);

        for map in &output.maps {
            let target = values::check_map(map, task.inputs.len()).map_err(|e| {
                refusal(
                    format!("-map {}", show(map)),
                    format!("Map '{}' is not allowed: {e} (output {})", show(map), j + 1),
                )
            })?;
            g.decisions.push(decision(
                format!("-map {map}"),
                true,
                format!("output {}: stream mapping", j + 1),
            ));
            if let MapTarget::Label(label) = target {
                label_maps.push((j, label));
            }
            args.push("-map".into());
            args.push(map.clone());
        }

        let mut reason = format!(
            "output {}: plain file name in the output directory; format {muxer}",
            j + 1
        );
        match muxer {
            "hls" if !args.iter().any(|a| a == "-hls_segment_filename") => {
                reason.push_str("; segments are named after the playlist, in the output directory")
            }
            "hls" | "segment" | "stream_segment" => {
                reason.push_str("; segment files stay in the output directory")
            }
            _ => {}
        }
        g.decisions.push(decision(name, true, reason));
        outputs.push(CommandOutput {
            args,
            path: format!("{}/{name}", output_dir.trim_end_matches('/')),
        });
    }

    for (j, label) in &label_maps {
        if !g.graph_outputs.contains(label) {
            return Err(refusal(
                format!("[{label}]"),
                format!(
                    "Map '[{}]' (output {}) does not name an output label of the filter graph",
                    show(label),
                    j + 1
                ),
            ));
        }
    }
    if let Some(first) = g.endless.first().filter(|_| !all_bounded) {
        return Err(endless_refusal(first));
    }
    check_buffered(&g, &ended)?;

    let mut cmd = FfmpegCommand {
        global_args: g.global_args,
        inputs,
        outputs,
        decisions: g.decisions,
        uncacheable: None,
    };
    // The host's result cache keeps out what this says is not a function of the inputs.
    cmd.uncacheable = crate::cache::uncacheable(&cmd);
    // The host's split encode runs in segments only what this says can be.
    cmd.decisions.extend(crate::split::decision(task, &cmd));
    Ok(cmd)
}

/// What option lists and graphs contribute beyond their own arguments.
#[derive(Default)]
struct Gathered {
    global_args: Vec<String>,
    decisions: Vec<Decision>,
    /// Labels complex graphs offer to `-map`.
    graph_outputs: Vec<String>,
    endless: Vec<Endless>,
    /// Filters that keep their whole input in memory, and the inputs that must carry `-t`.
    buffered: Vec<Buffered>,
}

/// Sorts parsed options into this list's arguments and the global arguments, and records the
/// decisions.
fn place_options(
    parsed: Vec<ParsedOption>,
    config: &Config,
    args: &mut Vec<String>,
    g: &mut Gathered,
) {
    for p in parsed {
        if let Some(graph) = &p.graph {
            g.decisions.extend(graph.decisions.iter().cloned());
            g.buffered.extend(graph.buffered.iter().cloned());
        }
        match p.spec.scope {
            Scope::Strip => {
                g.decisions.push(decision(
                    p.token,
                    false,
                    format!("ignored: {}", p.spec.what),
                ));
            }
            Scope::Global => {
                if let Some(graph) = p.graph {
                    g.graph_outputs.extend(graph.open_outputs);
                    g.endless.extend(
                        graph
                            .endless
                            .iter()
                            .map(|name| endless_filter(name, config)),
                    );
                }
                g.decisions.push(decision(
                    p.token.clone(),
                    true,
                    format!("{}; placed in the global arguments", p.note),
                ));
                g.global_args.push(p.token);
                g.global_args.extend(p.value);
            }
            _ => {
                g.decisions.push(decision(p.token.clone(), true, p.note));
                args.push(p.token);
                args.extend(p.value);
            }
        }
    }
}

/// Filters that keep their whole input in memory need the task inputs they read to end: `-t`
/// or `-to` on each (`None` stands for every input).
fn check_buffered(g: &Gathered, ended: &[bool]) -> Result<(), Refusal> {
    for (name, inputs) in &g.buffered {
        let open = inputs.iter().find_map(|n| match n {
            Some(n) => {
                (!ended.get(*n).copied().unwrap_or(false)).then(|| format!("input {}", n + 1))
            }
            None => ended.iter().any(|e| !e).then(|| "every input".to_string()),
        });
        if let Some(which) = open {
            return Err(refusal(
                name.clone(),
                format!(
                    "Filter '{name}' keeps its whole input in memory: put trim/atrim with end= or duration= before it, or add -t to {which}"
                ),
            ));
        }
    }
    Ok(())
}

/// Whether `-t` or `-to` ends an input.
fn input_ends(parsed: &[ParsedOption]) -> bool {
    parsed.iter().any(|p| p.base == "t" || p.base == "to")
}

/// An input that repeats forever: an image with `-loop 1` or any input with `-stream_loop -1`,
/// unless `-t`/`-to` on the input ends it.
fn endless_input(parsed: &[ParsedOption], i: usize) -> Option<Endless> {
    if input_ends(parsed) {
        return None;
    }
    let with = |base: &str, value: &str| {
        parsed
            .iter()
            .any(|p| p.base == base && p.value.as_deref() == Some(value))
    };
    let (option, what) = if with("stream_loop", "-1") {
        ("-stream_loop", "loops forever (-stream_loop -1)")
    } else if with("loop", "1") {
        ("-loop", "loops its image forever (-loop 1)")
    } else {
        return None;
    };
    Some(Endless {
        subject: option.into(),
        message: format!(
            "Input {} {what}: add -t to the input, or {BOUND_HINT}",
            i + 1
        ),
    })
}

/// Whether an output stops by itself: a duration, frame or size limit, or `-shortest` while
/// some input ends (with every input endless, `-shortest` waits forever too).
fn output_bounded(parsed: &[ParsedOption], finite_input: bool) -> bool {
    parsed
        .iter()
        .any(|p| BOUNDING.contains(&p.base.as_str()) || (p.base == "shortest" && finite_input))
}

fn endless_filter(name: &str, config: &Config) -> Endless {
    let how = match name {
        "apad" => "give it pad_dur, whole_dur, pad_len or whole_len".to_string(),
        "loop" | "aloop" | "movie" | "amovie" => {
            format!("give it a repeat count up to {}", config.max_loop)
        }
        _ => format!("give it a duration (d=, at most {} s)", config.max_duration),
    };
    Endless {
        subject: name.to_string(),
        message: format!("Filter '{name}' generates media forever: {how}, or {BOUND_HINT}"),
    }
}

fn endless_refusal(e: &Endless) -> Refusal {
    refusal(e.subject.clone(), e.message.clone())
}

/// Maps count against the option-token budget as the two tokens (`-map X`) they become, and
/// an output may map at most `MAX_OUTPUT_STREAMS` streams: both keep the argv and the number of
/// encoders ffmpeg starts bounded. Checked before the maps themselves are read.
fn check_map_budget(output: &TaskOutput, parsed: &[ParsedOption], j: usize) -> Result<(), Refusal> {
    let tokens = output
        .options
        .len()
        .saturating_add(output.maps.len().saturating_mul(2));
    if tokens > MAX_TOKENS {
        return Err(refusal(
            "maps",
            format!(
                "Too many option tokens: options and maps make {tokens} (each map counts as two, -map and its value); the limit is {MAX_TOKENS} (output {})",
                j + 1
            ),
        ));
    }
    let streams = output.maps.len() + parsed.iter().filter(|p| p.base == "map").count();
    if streams > MAX_OUTPUT_STREAMS {
        return Err(refusal(
            "maps",
            format!(
                "Too many maps: output {} maps {streams} streams; the limit is {MAX_OUTPUT_STREAMS} per output",
                j + 1
            ),
        ));
    }
    Ok(())
}

/// The muxer the output will use: `-f` if given, else what ffmpeg guesses from the extension.
fn output_muxer(
    name: &str,
    parsed: &[ParsedOption],
    index: usize,
) -> Result<&'static str, Refusal> {
    if let Some(f) = parsed
        .iter()
        .rev()
        .find(|p| p.base == "f")
        .and_then(|p| p.value.as_deref())
    {
        let canonical = policy::canonical_muxer(f);
        // `-f` values were checked against the allow-list; find the static name.
        return Ok(policy::MUXERS
            .iter()
            .map(|(n, _)| *n)
            .find(|n| *n == canonical)
            .unwrap_or("unknown"));
    }
    let ext = values::extension(name).unwrap_or("");
    if let Some(muxer) = policy::muxer_for_extension(ext) {
        return Ok(muxer);
    }
    let refused = match ext.to_ascii_lowercase().as_str() {
        "mpd" => Some("dash"),
        "chk" => Some("webm_chunk"),
        _ => None,
    };
    let why = refused
        .and_then(|m| policy::REFUSED_MUXERS.iter().find(|(n, _)| *n == m))
        .map(|(_, why)| format!("its format is not allowed: {why}"))
        .unwrap_or_else(|| "its format cannot be told from the extension; add -f with a format such as mp4, matroska or mpegts".into());
    Err(refusal(
        show(name),
        format!(
            "Output file name '{}' is not allowed: {why} (output {})",
            show(name),
            index + 1
        ),
    ))
}

/// The host's layout must match the task; a mismatch is a host bug, not the tenant's.
fn check_layout(task: &Task, layout: &JobLayout) -> Result<(), Refusal> {
    let bad = |what: &str| refusal("layout", format!("Internal error: the job layout {what}"));
    if layout.inputs.len() != task.inputs.len() {
        return Err(bad("does not match the task's inputs"));
    }
    let sane = |p: &str| p.starts_with('/') && !p.chars().any(char::is_control);
    if !sane(&layout.output_dir) {
        return Err(bad("has an output directory that is not an absolute path"));
    }
    if layout.inputs.iter().any(|i| !sane(&i.path)) {
        return Err(bad("has an input path that is not an absolute path"));
    }
    Ok(())
}
