//! Option lists: each token list is read the way ffmpeg reads it — an option name, then exactly
//! as many values as the option takes — and every option is looked up in the allow-list table
//! (`policy::OPTIONS`) and its value checked. Tokens are never split or joined.

use crate::config::Config;
use crate::filters::{self, CheckedGraph, GraphCtx};
use crate::policy::{self, MAX_FPS, MAX_TOKEN_LEN, MAX_TOKENS, OptSpec, SpecKind, Value};
use crate::values::{self, MapTarget};
use crate::{Refusal, StagedInput, placeholders, refusal, show};

/// Which option list is being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Input number (0-based).
    Input(usize),
    Output(usize),
}

impl Side {
    pub fn is_input(self) -> bool {
        matches!(self, Side::Input(_))
    }

    /// "input 1 options", for messages (1-based, as tenants count).
    pub fn place(self) -> String {
        match self {
            Side::Input(i) => format!("input {} options", i + 1),
            Side::Output(i) => format!("output {} options", i + 1),
        }
    }
}

pub struct OptCtx<'a> {
    pub config: &'a Config,
    pub inputs: &'a [StagedInput],
    /// Absolute output directory, without a trailing `/`.
    pub output_dir: &'a str,
}

/// One accepted option.
#[derive(Debug)]
pub struct ParsedOption {
    pub spec: OptSpec,
    /// The name without `-` and stream specifier (`c` for `-c:v`).
    pub base: String,
    /// The name as written (`-c:v`).
    pub token: String,
    /// The value to hand to ffmpeg (rewritten where needed), if the option takes one.
    pub value: Option<String>,
    /// For filter graph options: the checked graph (its text is `value`).
    pub graph: Option<CheckedGraph>,
    /// For `-map`: where it points.
    pub map: Option<MapTarget>,
    /// What the dry run shows.
    pub note: String,
}

/// Reads and checks one option list.
pub fn parse_options(
    tokens: &[String],
    side: Side,
    ctx: &OptCtx,
) -> Result<Vec<ParsedOption>, Refusal> {
    let place = side.place();
    if tokens.len() > MAX_TOKENS {
        return Err(refusal(
            "options",
            format!("Too many option tokens (more than {MAX_TOKENS}) ({place})"),
        ));
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        i += 1;
        if token.len() > MAX_TOKEN_LEN {
            return Err(refusal(
                "options",
                format!("An option token is longer than {MAX_TOKEN_LEN} bytes ({place})"),
            ));
        }
        let Some(name) = token
            .strip_prefix('-')
            .filter(|n| !n.is_empty() && !n.starts_with('-'))
        else {
            return Err(refusal(
                show(token),
                format!(
                    "Unexpected '{}' in {place}: an option name starting with '-' was expected; ffmpeg would treat it as an extra output file",
                    show(token)
                ),
            ));
        };
        if name.starts_with('/') {
            return Err(refusal(
                show(token),
                format!(
                    "Option '{}' is not allowed: the '-/' prefix makes ffmpeg read the option's value from a file ({place})",
                    show(token)
                ),
            ));
        }
        let (base, stream_spec) = match name.split_once(':') {
            Some((b, s)) => (b, Some(s)),
            None => (name, None),
        };
        let not_allowed = |why: &str| {
            refusal(
                show(token),
                format!("Option '{}' is not allowed: {why} ({place})", show(token)),
            )
        };
        let spec = match ctx.config.option(base, side.is_input()).or_else(|| {
            (base == policy::CONCAT_SAFE.name && concat_list(side, ctx))
                .then_some(policy::CONCAT_SAFE)
        }) {
            Some(spec) => spec,
            None => {
                return Err(not_allowed(
                    policy::refused_option(base).unwrap_or("it is not among the supported options"),
                ));
            }
        };
        match spec.scope {
            policy::Scope::Input if !side.is_input() => {
                return Err(not_allowed(
                    "it is an input option; put it in the input's options",
                ));
            }
            policy::Scope::Output if side.is_input() => {
                return Err(not_allowed(
                    "it is an output option; put it in the output's options",
                ));
            }
            _ => {}
        }
        if let Some(s) = stream_spec {
            let checked = match spec.spec {
                SpecKind::None => Err("it takes no stream specifier".to_string()),
                SpecKind::Stream => values::check_stream_spec(s),
                SpecKind::Metadata => values::check_metadata_spec(s),
            };
            checked.map_err(|e| not_allowed(&e))?;
        }

        let mut parsed = ParsedOption {
            spec,
            base: base.to_string(),
            token: token.clone(),
            value: None,
            graph: None,
            map: None,
            note: format!("{place}: {}", spec.what),
        };
        if spec.value != Value::Flag {
            let Some(raw) = tokens.get(i) else {
                return Err(refusal(
                    show(token),
                    format!("Option '{}' needs a value ({place})", show(token)),
                ));
            };
            i += 1;
            if raw.len() > MAX_TOKEN_LEN {
                return Err(refusal(
                    show(token),
                    format!(
                        "The value of '{}' is longer than {MAX_TOKEN_LEN} bytes ({place})",
                        show(token)
                    ),
                ));
            }
            check_option_value(&mut parsed, raw, side, ctx).map_err(|e| match e {
                ValueError::Message(why) => refusal(
                    show(token),
                    format!(
                        "Value '{}' of option '{}' is not allowed: {why} ({place})",
                        show(raw),
                        show(token)
                    ),
                ),
                ValueError::Refusal(r) => r,
            })?;
        }
        out.push(parsed);
    }
    Ok(out)
}

enum ValueError {
    /// Completes "Value 'x' of option '-y' is not allowed: ...".
    Message(String),
    /// A complete refusal (from a filter graph check or a format).
    Refusal(Refusal),
}

impl From<String> for ValueError {
    fn from(s: String) -> Self {
        ValueError::Message(s)
    }
}

impl From<&str> for ValueError {
    fn from(s: &str) -> Self {
        ValueError::Message(s.to_string())
    }
}

fn check_option_value(
    p: &mut ParsedOption,
    raw: &str,
    side: Side,
    ctx: &OptCtx,
) -> Result<(), ValueError> {
    let config = ctx.config;
    let n_inputs = ctx.inputs.len();
    let mut value = raw.to_string();
    match p.spec.value {
        Value::Flag => {}
        Value::Codec => values::check_codec(raw)?,
        Value::Name => values::check_name(raw)?,
        Value::Plain => values::check_plain(raw)?,
        Value::Text => {
            values::check_text(raw)?;
            value = placeholders::resolve_names(raw, ctx.inputs)?.0;
        }
        Value::Int(min, max) => {
            values::check_int(raw, min, max)?;
        }
        Value::Number(min, max) => {
            values::check_number(raw, min, max)?;
        }
        Value::Bitrate => values::check_bitrate(raw)?,
        Value::Duration { signed } => {
            values::check_duration(raw, signed)?;
        }
        Value::Rate => {
            values::check_rate(raw, MAX_FPS)?;
        }
        Value::Size => values::check_size(raw, config.max_dimension)?,
        Value::Aspect => values::check_aspect(raw)?,
        Value::Enum(allowed) => {
            if !allowed.contains(&raw) {
                let why = match (p.base.as_str(), raw) {
                    ("pattern_type", "glob" | "glob_sequence") => {
                        "glob patterns match files by wildcard, outside what the host staged; each input is one staged file".to_string()
                    }
                    _ => format!("expected one of {}", allowed.join(", ")),
                };
                return Err(why.into());
            }
        }
        Value::Flags(allowed) => values::check_flags(raw, allowed)?,
        Value::ChannelLayout => values::check_channel_layout(raw)?,
        Value::Format => {
            let (kind, checked) = if side.is_input() {
                let list = raw == "concat" && concat_list(side, ctx);
                ("Input", if list { Ok(()) } else { check_demuxer(raw) })
            } else {
                ("Output", check_muxer(raw))
            };
            if let Err(why) = checked {
                return Err(ValueError::Refusal(refusal(
                    show(raw),
                    format!(
                        "{kind} format '{}' is not allowed: {why} ({})",
                        show(raw),
                        side.place()
                    ),
                )));
            }
        }
        Value::SegmentFormat => {
            check_muxer(raw)?;
            if ["hls", "segment", "stream_segment", "ssegment"].contains(&raw) {
                return Err("segments must use a single-file format such as mpegts or mp4".into());
            }
        }
        Value::Filtergraph | Value::FilterComplex => {
            let complex = p.spec.value == Value::FilterComplex;
            let gctx = GraphCtx {
                config,
                inputs: ctx.inputs,
                place: format!("{} {}", side.place(), p.token),
            };
            let graph = filters::check_graph(raw, complex, &gctx).map_err(ValueError::Refusal)?;
            value = graph.text.clone();
            p.graph = Some(graph);
        }
        Value::Map => p.map = Some(values::check_map(raw, n_inputs)?),
        Value::MapMetadata | Value::MapChapters => {
            check_file_index(raw, n_inputs, p.spec.value == Value::MapMetadata)?
        }
        Value::Metadata => {
            let (key, text) = raw.split_once('=').ok_or("expected key=value")?;
            let key_ok = !key.is_empty()
                && key.len() <= 256
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'));
            if !key_ok {
                return Err("the key must be letters, digits and _ . : -".into());
            }
            values::check_text(text)?;
            value = format!("{key}={}", placeholders::resolve_names(text, ctx.inputs)?.0);
        }
        Value::CodecParams => check_codec_params(raw)?,
        Value::KeyFrames => check_key_frames(raw)?,
        Value::Bsf => {
            for name in raw.split(',') {
                if !policy::BSFS.contains(&name) {
                    return Err(format!(
                        "bitstream filter '{}' is not allowed (allowed: {})",
                        show(name),
                        policy::BSFS.join(", ")
                    )
                    .into());
                }
            }
        }
        Value::OutputFile => {
            values::check_output_name(raw).map_err(|e| format!("the file name {e}"))?;
            value = format!("{}/{raw}", ctx.output_dir);
            p.note = format!(
                "{}; written to the output directory as '{}'",
                p.note,
                show(raw)
            );
        }
        Value::PlainName => {
            values::check_output_name(raw).map_err(|e| format!("the file name {e}"))?;
            if values::has_pattern(raw) {
                return Err("expected a plain file name without a numbering pattern".into());
            }
        }
        Value::Threads => {
            if raw != "auto" {
                values::check_int(raw, 0, i64::from(config.max_threads))?;
            }
        }
        // `-1` (forever) is judged with the outputs: `task` allows it when every output is
        // bounded, as for `-loop 1`.
        Value::StreamLoop => {
            values::check_int(raw, -1, i64::from(config.max_loop)).map_err(|_| {
                format!(
                    "expected a repeat count from 0 to {}, or -1 (forever, with bounded outputs)",
                    config.max_loop
                )
            })?;
        }
        Value::DurationList => {
            for item in raw.split(',') {
                values::check_duration(item, false)?;
            }
        }
        Value::IntList => {
            for item in raw.split(',') {
                values::check_int(item, 0, i64::MAX / 2)?;
            }
        }
        Value::Timecode => {
            let b = raw.as_bytes();
            let ok = b.len() == 11
                && [0, 1, 3, 4, 6, 7, 9, 10]
                    .iter()
                    .all(|&i| b[i].is_ascii_digit())
                && b[2] == b':'
                && b[5] == b':'
                && matches!(b[8], b':' | b';' | b'.');
            if !ok {
                return Err("expected a timecode such as 01:00:00:00".into());
            }
        }
        Value::Tag => {
            let hex = raw.strip_prefix("0x").is_some_and(|h| {
                (1..=8).contains(&h.len()) && h.bytes().all(|b| b.is_ascii_hexdigit())
            });
            let fourcc = (1..=4).contains(&raw.len())
                && raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b' ');
            if !hex && !fourcc {
                return Err("expected a four-character code such as hvc1".into());
            }
        }
        Value::Ignored => {}
    }
    p.value = Some(value);
    Ok(())
}

/// `-map_metadata` (`-1` or `N[:spec]`) and `-map_chapters` (`-1` or `N`).
fn check_file_index(raw: &str, inputs: usize, with_spec: bool) -> Result<(), String> {
    if raw == "-1" {
        return Ok(());
    }
    let (index, spec) = match raw.split_once(':') {
        Some((i, s)) if with_spec => (i, Some(s)),
        _ => (raw, None),
    };
    let n = values::parse_int(index).filter(|_| index.bytes().all(|b| b.is_ascii_digit()));
    match n {
        Some(n) if (n as usize) < inputs => {}
        Some(n) => return Err(format!("input {n} does not exist")),
        None => return Err("expected -1 or an input number such as 0".into()),
    }
    match spec {
        Some(s) => values::check_metadata_spec(s),
        None => Ok(()),
    }
}

/// Whether `side` is an input the host staged as a concat list it checked.
fn concat_list(side: Side, ctx: &OptCtx) -> bool {
    matches!(side, Side::Input(i) if ctx.inputs.get(i).is_some_and(|s| s.path.ends_with(policy::CONCAT_LIST_EXT)))
}

/// A demuxer a tenant may force with `-f` (also used for `movie`'s `format_name`).
pub fn check_demuxer(name: &str) -> Result<(), String> {
    if policy::DEMUXERS.contains(&name) {
        return Ok(());
    }
    match policy::REFUSED_DEMUXERS.iter().find(|(n, _)| *n == name) {
        Some((_, why)) => Err(why.to_string()),
        None => Err("it is not among the supported input formats".into()),
    }
}

pub fn check_muxer(name: &str) -> Result<(), String> {
    if policy::MUXERS.iter().any(|(n, _)| *n == name) {
        return Ok(());
    }
    match policy::REFUSED_MUXERS.iter().find(|(n, _)| *n == name) {
        Some((_, why)) => Err(why.to_string()),
        None => Err("it is not among the supported output formats".into()),
    }
}

/// `key=value:key=value` for `-x264-params` and its kin, in the plain form ffmpeg's dictionary
/// parser reads without quoting. Keys that read or write files are refused.
pub fn check_codec_params(raw: &str) -> Result<(), String> {
    if raw.len() > 4096 {
        return Err("longer than 4096 bytes".into());
    }
    for pair in raw.split(':') {
        let (key, value) = pair
            .split_once('=')
            .ok_or("expected key=value pairs separated by ':'")?;
        let key_ok = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !key_ok {
            return Err(format!("'{}' is not a parameter name", show(key)));
        }
        let lower = key.to_ascii_lowercase();
        if policy::CODEC_PARAM_KEYS_REFUSED.contains(&lower.as_str())
            || policy::CODEC_PARAM_FILE_WORDS
                .iter()
                .any(|w| lower.contains(w))
        {
            return Err(format!("parameter '{}' reads or writes files", show(key)));
        }
        let value_ok = !value.is_empty()
            && value.chars().all(|c| {
                c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ',' | '+' | '-' | '/')
            })
            && !value.starts_with('/')
            && !value.contains("..");
        if !value_ok {
            return Err(format!(
                "the value of '{}' must be letters, digits and . _ , + - /",
                show(key)
            ));
        }
    }
    Ok(())
}

/// `-force_key_frames`: `source`, `expr:EXPR`, or a comma-separated list of times and
/// `chapters[±delta]`.
fn check_key_frames(raw: &str) -> Result<(), String> {
    if raw == "source" {
        return Ok(());
    }
    if let Some(e) = raw.strip_prefix("expr:") {
        let ok = !e.is_empty()
            && e.len() <= 1024
            && e.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_().,+-*/<>=!|&^ ".contains(c));
        return if ok {
            Ok(())
        } else {
            Err("the expression holds characters expressions do not use".into())
        };
    }
    for item in raw.split(',') {
        if let Some(delta) = item.strip_prefix("chapters") {
            if !delta.is_empty() {
                values::check_duration(delta.strip_prefix('+').unwrap_or(delta), true)?;
            }
        } else {
            values::check_duration(item, false)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(tokens: &[&str], side: Side) -> Result<Vec<ParsedOption>, String> {
        let config = Config::default();
        let inputs = vec![StagedInput {
            name: "in.mp4".into(),
            path: "/job/in/0".into(),
        }];
        let ctx = OptCtx {
            config: &config,
            inputs: &inputs,
            output_dir: "/job/out",
        };
        let tokens: Vec<String> = tokens.iter().map(|t| t.to_string()).collect();
        parse_options(&tokens, side, &ctx).map_err(|r| r.message)
    }

    #[test]
    fn arity() {
        let parsed = run(&["-c:v", "libx264", "-an", "-crf", "23"], Side::Output(0)).unwrap();
        let shape: Vec<(&str, Option<&str>)> = parsed
            .iter()
            .map(|p| (p.token.as_str(), p.value.as_deref()))
            .collect();
        assert_eq!(
            shape,
            vec![
                ("-c:v", Some("libx264")),
                ("-an", None),
                ("-crf", Some("23"))
            ]
        );
        // A value that looks like an option is still the value.
        let parsed = run(&["-itsoffset", "-1.5"], Side::Input(0)).unwrap();
        assert_eq!(parsed[0].value.as_deref(), Some("-1.5"));
    }

    #[test]
    fn refusals() {
        let cases: &[(&[&str], Side, &str)] = &[
            (
                &["-an", "extra.mp4"],
                Side::Output(0),
                "Unexpected 'extra.mp4'",
            ),
            (&["-crf"], Side::Output(0), "needs a value"),
            (&["-crf", "23"], Side::Input(0), "output option"),
            (&["-sseof", "-5"], Side::Output(0), "input option"),
            (&["-vf:v", "null"], Side::Output(0), "no stream specifier"),
            (
                &["-c:zz", "copy"],
                Side::Output(0),
                "not a stream specifier",
            ),
            (
                &["-x264-params", "stats=/tmp/x"],
                Side::Output(0),
                "reads or writes files",
            ),
            (
                &["-x264-params", "keyint=60 -i /etc/passwd"],
                Side::Output(0),
                "must be letters",
            ),
            (
                &["-hls_segment_filename", "../x_%d.ts"],
                Side::Output(0),
                "plain file name",
            ),
            (
                &["-hls_segment_filename", "..%d.ts"],
                Side::Output(0),
                "must not contain '..'",
            ),
            (&["-threads", "1000"], Side::Output(0), "from 0 to 16"),
            (&["-metadata", "title"], Side::Output(0), "key=value"),
            (
                &["-movflags", "+faststart+rtphint"],
                Side::Output(0),
                "flag 'rtphint'",
            ),
            (
                &["-bsf:v", "noise"],
                Side::Output(0),
                "bitstream filter 'noise'",
            ),
            (
                &["-f", "tee"],
                Side::Output(0),
                "Output format 'tee' is not allowed",
            ),
            (
                &["-segment_format", "hls"],
                Side::Output(0),
                "single-file format",
            ),
        ];
        for (tokens, side, want) in cases {
            let err = run(tokens, *side).expect_err(&tokens.join(" "));
            assert!(err.contains(want), "{tokens:?}: {err}");
        }
    }

    #[test]
    fn rewrites() {
        let parsed = run(
            &[
                "-hls_segment_filename",
                "seg_%03d.ts",
                "-metadata",
                "comment=@{in.mp4}",
            ],
            Side::Output(0),
        )
        .unwrap();
        assert_eq!(parsed[0].value.as_deref(), Some("/job/out/seg_%03d.ts"));
        // Text written into the output names the input, never its path on the host.
        assert_eq!(parsed[1].value.as_deref(), Some("comment=in.mp4"));
    }

    #[test]
    fn codec_params() {
        assert!(check_codec_params("keyint=60:scenecut=0").is_ok());
        assert!(check_codec_params("log-level=error:aq-mode=3").is_ok());
        for bad in [
            "qpfile=x",
            "stats=x",
            "csv=x",
            "analysis-save=x",
            "pass=1",
            "keyint",
            "a='b'",
            "x=/etc/passwd",
            "x=a/../b",
        ] {
            assert!(check_codec_params(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn key_frames() {
        for ok in ["expr:gte(t,n_forced*2)", "0,5,10", "chapters-0.1", "source"] {
            assert!(check_key_frames(ok).is_ok(), "{ok}");
        }
        for bad in ["expr:", "expr:'x'", "abc"] {
            assert!(check_key_frames(bad).is_err(), "{bad}");
        }
    }
}
