//! The presets, and how a task naming them is rewritten into one the default policy can judge.
//!
//! An output asks for a preset with exactly two options, `["-mf_preset", "NAME"]`, and no
//! maps. [`expand`] replaces that output with the real options (and, for `hls-ladder`, a
//! second output and a `filter_complex`); every other input and output is left as it was.

use command_builder::{Decision, Refusal, Task, TaskOutput, refusal, show};

/// The option that names a preset. Not an ffmpeg option (`-preset` is x264's), so the default
/// policy would refuse it; this plugin removes it before the policy sees the task.
pub const OPTION: &str = "-mf_preset";

/// The presets this plugin knows, with what each one makes.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "hls-ladder",
        "two HLS renditions, 360p and 720p, one playlist each",
    ),
    (
        "thumbnail-sprite",
        "one JPEG sheet of 160-pixel-wide thumbnails, one every 5 seconds, 5x5",
    ),
];

/// One rung of the HLS ladder.
struct Rung {
    height: u32,
    video_bitrate: &'static str,
    maxrate: &'static str,
    bufsize: &'static str,
    audio_bitrate: &'static str,
}

const LADDER: &[Rung] = &[
    Rung {
        height: 360,
        video_bitrate: "800k",
        maxrate: "856k",
        bufsize: "1200k",
        audio_bitrate: "96k",
    },
    Rung {
        height: 720,
        video_bitrate: "2800k",
        maxrate: "2996k",
        bufsize: "4200k",
        audio_bitrate: "128k",
    },
];

/// HLS segment length in seconds; key frames are forced on the same boundaries.
const SEGMENT_SECONDS: u32 = 4;

/// A task with its presets replaced, and a decision per preset for the dry run.
#[derive(Debug)]
pub struct Expanded {
    pub task: Task,
    pub decisions: Vec<Decision>,
}

/// The known preset names, for messages: `hls-ladder, thumbnail-sprite`.
pub fn known() -> String {
    PRESETS
        .iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Replaces each preset output of `task` with the outputs it stands for. A task without
/// presets comes back unchanged, with no decisions.
pub fn expand(task: &Task) -> Result<Expanded, Refusal> {
    for (i, input) in task.inputs.iter().enumerate() {
        if input.options.iter().any(|o| o == OPTION) {
            return Err(misplaced(&format!("input {}", i + 1)));
        }
    }

    let mut outputs = Vec::with_capacity(task.outputs.len());
    let mut decisions = Vec::new();
    let mut graph: Option<String> = None;
    for (j, output) in task.outputs.iter().enumerate() {
        let place = format!("output {}", j + 1);
        let Some(name) = preset_name(output, &place)? else {
            outputs.push(output.clone());
            continue;
        };
        let made = match name {
            "hls-ladder" => {
                if graph.is_some() {
                    return Err(refusal(
                        OPTION,
                        format!(
                            "Only one output of a task may use the hls-ladder preset ({place})"
                        ),
                    ));
                }
                if task
                    .filter_complex
                    .as_deref()
                    .is_some_and(|f| !f.trim().is_empty())
                {
                    return Err(refusal(
                        OPTION,
                        format!(
                            "The hls-ladder preset makes its own filter_complex; it cannot be combined with the task's ({place})"
                        ),
                    ));
                }
                let (made, fc) = hls_ladder(&output.file, &place)?;
                graph = Some(fc);
                made
            }
            "thumbnail-sprite" => vec![thumbnail_sprite(&output.file, &place)?],
            other => {
                return Err(Refusal {
                    message: format!(
                        "Unknown preset '{}' ({place}): the known presets are {}",
                        show(other),
                        known()
                    ),
                    subject: Some(show(other)),
                });
            }
        };
        let files: Vec<&str> = made.iter().map(|o| o.file.as_str()).collect();
        decisions.push(Decision {
            subject: format!("{OPTION} {name}"),
            allowed: true,
            reason: format!(
                "preset ({place}), expanded into {}; the result is checked by the default policy",
                files.join(", ")
            ),
        });
        outputs.extend(made);
    }

    Ok(Expanded {
        task: Task {
            inputs: task.inputs.clone(),
            outputs,
            filter_complex: graph.or_else(|| task.filter_complex.clone()),
            output_dir_id: task.output_dir_id.clone(),
        },
        decisions,
    })
}

/// The preset an output asks for, if it asks for one. `-mf_preset` anywhere but as an output's
/// whole option list is refused, so it never reaches the policy as an unknown option.
fn preset_name<'a>(output: &'a TaskOutput, place: &str) -> Result<Option<&'a str>, Refusal> {
    if !output.options.iter().any(|o| o == OPTION) {
        return Ok(None);
    }
    match output.options.as_slice() {
        [option, name] if option == OPTION && output.maps.is_empty() => Ok(Some(name)),
        _ => Err(misplaced(place)),
    }
}

fn misplaced(place: &str) -> Refusal {
    refusal(
        OPTION,
        format!(
            "{OPTION} must be an output's only option, written [\"{OPTION}\", \"NAME\"], with no maps ({place}); the known presets are {}",
            known()
        ),
    )
}

/// `stream.m3u8` → `stream`; the ladder names its playlists and segments after it.
fn hls_stem<'a>(file: &'a str, place: &str) -> Result<&'a str, Refusal> {
    let stem = file
        .len()
        .checked_sub(5)
        .filter(|&n| n > 0 && file.is_char_boundary(n) && file[n..].eq_ignore_ascii_case(".m3u8"))
        .map(|n| &file[..n]);
    match stem {
        Some(stem) if !stem.contains('%') => Ok(stem),
        _ => Err(refusal(
            show(file),
            format!(
                "The hls-ladder preset writes HLS playlists: name the output NAME.m3u8, without '%' ({place}, '{}')",
                show(file)
            ),
        )),
    }
}

/// `hls-ladder`: the first input's video is split and scaled to each rung's height; each rung
/// is one HLS output (`NAME_360p.m3u8` with segments `NAME_360p_000.ts`, …) with the first
/// input's audio, if any. No master playlist: the default policy refuses `-var_stream_map`,
/// and one output's master would list only that output's rendition.
fn hls_ladder(file: &str, place: &str) -> Result<(Vec<TaskOutput>, String), Refusal> {
    let stem = hls_stem(file, place)?;
    let splits: String = LADDER
        .iter()
        .map(|r| format!("[mfp_{}]", r.height))
        .collect();
    let mut graph = format!("[0:v]split={}{splits}", LADDER.len());
    let mut outputs = Vec::new();
    for rung in LADDER {
        let h = rung.height;
        graph.push_str(&format!(";[mfp_{h}]scale=-2:{h}[mfp_{h}p]"));
        let name = format!("{stem}_{h}p");
        outputs.push(TaskOutput {
            file: format!("{name}.m3u8"),
            options: strings(&[
                "-c:v",
                "libx264",
                "-preset",
                "veryfast",
                "-profile:v",
                "main",
                "-pix_fmt",
                "yuv420p",
                "-b:v",
                rung.video_bitrate,
                "-maxrate",
                rung.maxrate,
                "-bufsize",
                rung.bufsize,
                "-force_key_frames",
                &format!("expr:gte(t,n_forced*{SEGMENT_SECONDS})"),
                "-c:a",
                "aac",
                "-b:a",
                rung.audio_bitrate,
                "-f",
                "hls",
                "-hls_time",
                &SEGMENT_SECONDS.to_string(),
                "-hls_playlist_type",
                "vod",
                "-hls_flags",
                "independent_segments",
                "-hls_segment_filename",
                &format!("{name}_%03d.ts"),
            ]),
            maps: vec![format!("[mfp_{h}p]"), "0:a:0?".into()],
        });
    }
    Ok((outputs, graph))
}

/// `thumbnail-sprite`: from the first input's first video stream, one frame every 5 seconds,
/// 160 pixels wide, tiled 5x5 into one JPEG (a partly filled sheet for clips shorter than
/// 125 s; the rest of a longer clip is not shown).
fn thumbnail_sprite(file: &str, place: &str) -> Result<TaskOutput, Refusal> {
    let lower = file.to_ascii_lowercase();
    let jpeg = [".jpg", ".jpeg"]
        .iter()
        .any(|ext| lower.len() > ext.len() && lower.ends_with(ext));
    if !jpeg || file.contains('%') {
        return Err(refusal(
            show(file),
            format!(
                "The thumbnail-sprite preset writes one JPEG: name the output NAME.jpg, without '%' ({place}, '{}')",
                show(file)
            ),
        ));
    }
    Ok(TaskOutput {
        file: file.into(),
        options: strings(&[
            "-vf",
            "fps=1/5,scale=160:-1,tile=5x5",
            "-frames:v",
            "1",
            "-update",
            "1",
            "-q:v",
            "3",
            "-an",
        ]),
        maps: vec!["0:v:0".into()],
    })
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}
