//! Whether a task may be encoded in keyframe segments on many workers, for the host's split
//! encode (README, "Split encoding"). The host splits a task only when the command has a decision
//! with subject `split` and `allowed: true` (the convention of docs/plugins.md); it then cuts the
//! input at keyframes, runs the output's options over each segment with `-an -sn -dn` (plus a
//! closed GOP), runs them once over the whole input with `-vn -sn -dn` for the audio, and muxes
//! the two with `-c copy`, keeping `-f` and `-movflags`. This module says yes only when that
//! gives what the whole command gives:
//!
//! - one input without options, one output, no complex graph and no global arguments;
//! - the video re-encoded by an encoder whose segments join cleanly (`ENCODERS`), named or the
//!   muxer's default, into a container the concat demuxer reads back (`MUXERS`);
//! - every output option from `VIDEO`, `AUDIO` or `CONTAINER`: encoder settings, per-frame
//!   video filters (`PER_FRAME`, with no expression of time or frame number, no `enable=`) and
//!   anything for the audio, which is encoded once. No trims, no frame-rate change, no maps.
//!
//! Anything else says nothing, and the task runs whole.

use crate::filtergraph;
use crate::{Decision, FfmpegCommand, Task};

pub const SUBJECT: &str = "split";

/// Encoders whose output for each segment starts with a key frame and depends on no other
/// segment, so segments encoded apart and joined decode as one stream.
const ENCODERS: &[&str] = &[
    "libx264",
    "libx265",
    "libvpx-vp9",
    "libvpx",
    "libsvtav1",
    "libaom-av1",
    "mpeg4",
    "mpeg2video",
];

/// Containers the segments are written in and the concat demuxer reads back, with the video
/// encoder ffmpeg picks for them when the task names none.
const MUXERS: &[(&str, &str)] = &[
    ("mp4", "libx264"),
    ("mov", "libx264"),
    ("matroska", "libx264"),
    ("webm", "libvpx-vp9"),
];

/// Video encoder settings, applied to each segment alike.
const VIDEO: &[&str] = &[
    "preset",
    "crf",
    "qp",
    "tune",
    "profile",
    "level",
    "pix_fmt",
    "b",
    "maxrate",
    "minrate",
    "bufsize",
    "g",
    "keyint_min",
    "bf",
    "refs",
    "qmin",
    "qmax",
    "x264-params",
    "x265-params",
    "svtav1-params",
    "deadline",
    "cpu-used",
    "row-mt",
    "tile-columns",
    "quality",
    "speed",
    "s",
    "aspect",
    "threads",
];

/// Audio settings: the audio is encoded once over the whole input, so any of them is fine.
const AUDIO: &[&str] = &["ar", "ac", "aq", "sample_fmt", "channel_layout", "af"];

/// What the final mux keeps (`-f`, `-movflags`) or takes from the audio pass (`-metadata`).
const CONTAINER: &[&str] = &["f", "movflags", "metadata"];

/// Video filters that make each output frame from its input frame alone.
const PER_FRAME: &[&str] = &[
    "scale",
    "crop",
    "pad",
    "format",
    "setsar",
    "setdar",
    "hflip",
    "vflip",
    "transpose",
    "eq",
    "hue",
    "colorbalance",
    "colorchannelmixer",
    "colorlevels",
    "curves",
    "lut",
    "lutrgb",
    "lutyuv",
    "negate",
    "unsharp",
    "boxblur",
    "gblur",
    "drawbox",
    "drawtext",
    "colorspace",
    "zscale",
    "null",
];

/// Names in filter expressions that depend on where a frame is in the stream: a segment
/// starts them again.
const TIME_NAMES: &[&str] = &["t", "n", "pts", "time", "pos", "frame_num", "T", "PTS"];

/// The `split` decision for a built command: present (and allowing) only when the task can
/// be encoded in segments.
pub fn decision(task: &Task, cmd: &FfmpegCommand) -> Option<Decision> {
    let encoder = splittable(task, cmd)?;
    Some(Decision {
        subject: SUBJECT.into(),
        allowed: true,
        reason: format!(
            "may be encoded in keyframe segments on several workers: {encoder} with per-frame filters (when the operator turns splitting on and the input is long enough)"
        ),
    })
}

/// The video encoder, when the task can be split.
fn splittable(task: &Task, cmd: &FfmpegCommand) -> Option<String> {
    if task.inputs.len() != 1
        || cmd.outputs.len() != 1
        || !cmd.global_args.is_empty()
        || cmd.inputs.iter().any(|i| !i.args.is_empty())
        || task
            .filter_complex
            .as_deref()
            .is_some_and(|f| !f.trim().is_empty())
        || task.outputs.iter().any(|o| !o.maps.is_empty())
    {
        return None;
    }
    let output = &cmd.outputs[0];
    let mut encoder: Option<String> = None;
    let mut muxer: Option<&str> = None;
    let mut args = output.args.iter().peekable();
    while let Some(token) = args.next() {
        let name = token.strip_prefix('-')?;
        let (base, spec) = match name.split_once(':') {
            Some((b, s)) => (b, Some(s)),
            None => (name, None),
        };
        // Flags take no value; everything else here takes one.
        if matches!(base, "an" | "sn" | "dn") {
            continue;
        }
        let value = args.next()?;
        let stream = spec.map(|s| s.split(':').next().unwrap_or(s));
        match (base, stream) {
            ("c" | "codec", Some("v")) | ("vcodec", None) => {
                ENCODERS.contains(&value.as_str()).then_some(())?;
                encoder = Some(value.clone());
            }
            ("c" | "codec", Some("a")) | ("acodec", None) => {}
            // A codec for every stream would re-encode (or copy) the audio with the video's.
            ("c" | "codec", _) => return None,
            ("f", None) => muxer = Some(MUXERS.iter().find(|(m, _)| *m == value)?.0),
            ("vf", None) | ("filter", Some("v")) => per_frame(value)?,
            ("metadata", _) => {}
            // Audio alone: encoded once over the whole input, as the whole command would.
            (_, Some("a")) => {}
            (b, Some("v") | None) if VIDEO.contains(&b) => {}
            (b, None) if AUDIO.contains(&b) || CONTAINER.contains(&b) => {}
            _ => return None,
        }
    }
    let muxer = match muxer {
        Some(m) => m,
        None => {
            let ext = output.path.rsplit_once('.')?.1.to_ascii_lowercase();
            let m = crate::policy::muxer_for_extension(&ext)?;
            MUXERS.iter().find(|(n, _)| *n == m)?.0
        }
    };
    let default = MUXERS.iter().find(|(n, _)| *n == muxer)?.1;
    Some(encoder.unwrap_or_else(|| default.to_string()))
}

/// `Some(())` when every filter of the graph is per-frame and uses no time or frame number.
fn per_frame(graph: &str) -> Option<()> {
    let graph = filtergraph::parse(graph).ok()?;
    for f in &graph.filters {
        PER_FRAME.contains(&f.name.as_str()).then_some(())?;
        for arg in &f.args {
            if arg.key.as_deref() == Some("enable") {
                return None;
            }
            let timed = arg
                .value
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|word| TIME_NAMES.contains(&word));
            let expanded = f.name == "drawtext" && arg.value.contains("%{");
            if timed || expanded {
                return None;
            }
        }
    }
    Some(())
}
