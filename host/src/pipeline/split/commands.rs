//! The four commands of a split encode, made by the host from the builder's checked output
//! options and then held to the same fence as a plugin's (`media/argv.rs`):
//!
//! - cut: the input's first video stream, stream-copied into segments at the given keyframes;
//! - segment (`part.rs`): the output's options over one segment, without audio, subtitles or data, and
//!   with a closed GOP;
//! - audio: the output's options over the whole input, without video (encoded once, so it
//!   cannot drift between segments; a part like the segments, `part.rs`);
//! - mux: the encoded segments through the concat demuxer and the audio, both `-c copy`,
//!   with the output's `-f` and `-movflags` (everything else of the output is in the parts).

use std::path::Path;

use crate::plugins::types::{BuiltCommand, CommandPart};

/// The pattern the cut writes its segments to (`cut_000.mkv`, ...), and their extension.
pub const CUT_PATTERN: &str = "cut_%03d.mkv";
pub const CUT_EXT: &str = "mkv";

/// Output options the mux keeps: they shape the container, not a stream.
const CONTAINER: &[&str] = &["-f", "-movflags"];

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn command(inputs: Vec<CommandPart>, args: Vec<String>, out: &Path) -> BuiltCommand {
    BuiltCommand {
        global_args: Vec::new(),
        inputs,
        outputs: vec![CommandPart {
            args,
            path: out.to_string_lossy().into_owned(),
        }],
        decisions: Vec::new(),
    }
}

fn input(path: &str) -> CommandPart {
    CommandPart {
        args: Vec::new(),
        path: path.to_string(),
    }
}

/// Cuts `input`'s video at `cuts` (seconds, each a keyframe's time) into `out_dir`.
pub fn cut(input_path: &str, cuts: &[f64], out_dir: &Path) -> BuiltCommand {
    // The segment muxer cuts at the first keyframe at or after each time: a millisecond
    // early, so a keyframe's rounded time never lands just past it.
    let times: Vec<String> = cuts
        .iter()
        .map(|t| format!("{:.3}", (t - 0.001).max(0.0)))
        .collect();
    let mut args = strings(&["-map", "0:v:0", "-c", "copy", "-f", "segment"]);
    args.extend(["-segment_times".into(), times.join(",")]);
    args.extend(strings(&[
        "-segment_format",
        "matroska",
        "-reset_timestamps",
        "1",
    ]));
    command(vec![input(input_path)], args, &out_dir.join(CUT_PATTERN))
}

/// The options a segment is encoded with: the output's, video only, closed GOP.
pub fn segment_args(output_args: &[String]) -> Vec<String> {
    let mut args = output_args.to_vec();
    args.extend(strings(&["-an", "-sn", "-dn", "-flags", "+cgop"]));
    args
}

/// The options the audio is encoded with: the output's, audio only.
pub fn audio_args(output_args: &[String]) -> Vec<String> {
    let mut args = output_args.to_vec();
    args.extend(strings(&["-vn", "-sn", "-dn"]));
    args
}

/// Joins the segments listed in `list` (a concat list) with `audio`, both copied, into `out`.
pub fn mux(list: &str, audio: Option<&str>, output_args: &[String], out: &Path) -> BuiltCommand {
    let mut inputs = vec![CommandPart {
        args: strings(&["-f", "concat", "-safe", "0"]),
        path: list.to_string(),
    }];
    let mut args = strings(&["-map", "0:v:0"]);
    if let Some(audio) = audio {
        inputs.push(input(audio));
        // The audio pass carries the output's metadata (`-metadata`); the segments' is theirs.
        args.extend(strings(&["-map", "1:a", "-map_metadata", "1"]));
    }
    args.extend(strings(&["-c", "copy"]));
    for pair in output_args.windows(2) {
        if CONTAINER.contains(&pair[0].as_str()) {
            args.extend(pair.iter().cloned());
        }
    }
    command(inputs, args, out)
}

/// A concat list naming `files` (plain names beside the list).
pub fn concat_list(files: &[String]) -> String {
    let mut list = String::from("ffconcat version 1.0\n");
    for f in files {
        list.push_str(&format!("file '{f}'\n"));
    }
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mux_keeps_only_container_options() {
        let out_args = strings(&[
            "-c:v",
            "libx264",
            "-vf",
            "scale=640:-2",
            "-movflags",
            "+faststart",
            "-f",
            "mp4",
        ]);
        let cmd = mux(
            "/j/in/l.ffconcat",
            Some("/j/in/a.mp4"),
            &out_args,
            Path::new("/j/out/o.mp4"),
        );
        assert_eq!(
            cmd.outputs[0].args,
            strings(&[
                "-map",
                "0:v:0",
                "-map",
                "1:a",
                "-map_metadata",
                "1",
                "-c",
                "copy",
                "-movflags",
                "+faststart",
                "-f",
                "mp4"
            ])
        );
    }
}
