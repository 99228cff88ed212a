//! The commands the builder produces actually run: realistic tasks are built against real
//! staged files and handed to the installed ffmpeg (skipped when ffmpeg is not installed).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::*;
use crate::config::Config;
use crate::{ProbeConfig, Task};

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run(tool: &str, args: &[String]) -> Result<String, String> {
    let out = Command::new(tool)
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Makes the media every task below draws from, once.
fn fixtures(dir: &Path) -> PathBuf {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let ff = |args: &[&str]| {
        let mut all = strings(&["-nostdin", "-hide_banner", "-loglevel", "error", "-y"]);
        all.extend(strings(args));
        run("ffmpeg", &all).expect("making fixtures");
    };
    let p = |name: &str| src.join(name).to_string_lossy().into_owned();
    ff(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc2=d=2:s=320x240:r=25",
        "-f",
        "lavfi",
        "-i",
        "sine=d=2",
        "-c:v",
        "libx264",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "aac",
        &p("in.mp4"),
    ]);
    ff(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc=d=1:s=320x240",
        "-f",
        "lavfi",
        "-i",
        "sine=d=1:f=880",
        "-c:v",
        "libx264",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "aac",
        &p("b.mp4"),
    ]);
    ff(&[
        "-f",
        "lavfi",
        "-i",
        "color=c=red:s=64x64",
        "-frames:v",
        "1",
        &p("logo.png"),
    ]);
    ff(&[
        "-f",
        "lavfi",
        "-i",
        "color=c=blue:s=320x240",
        "-frames:v",
        "1",
        &p("cover.jpg"),
    ]);
    ff(&[
        "-f",
        "lavfi",
        "-i",
        "sine=d=2",
        "-c:a",
        "libmp3lame",
        &p("song.mp3"),
    ]);
    ff(&[
        "-f",
        "lavfi",
        "-i",
        "sine=d=3:f=440",
        "-c:a",
        "libmp3lame",
        &p("voice.mp3"),
    ]);
    std::fs::write(
        src.join("subs.srt"),
        "1\n00:00:00,000 --> 00:00:01,500\nHello, world: it's me\n",
    )
    .unwrap();
    let mut cube = String::from("LUT_3D_SIZE 2\n");
    for b in 0..2 {
        for g in 0..2 {
            for r in 0..2 {
                cube.push_str(&format!("{r} {g} {b}\n"));
            }
        }
    }
    std::fs::write(src.join("grade.cube"), cube).unwrap();
    src
}

/// Stages a task's inputs into `job/in` the way the host would, builds and runs it.
fn build_and_run(src: &Path, job: &Path, task: &Task) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(job.join("in")).unwrap();
    std::fs::create_dir_all(job.join("out")).unwrap();
    let layout = layout_in(task, &job.to_string_lossy());
    for (staged, input) in layout.inputs.iter().zip(&task.inputs) {
        let name = input.file_path.rsplit('/').next().unwrap();
        std::fs::copy(src.join(name), &staged.path).unwrap();
    }
    let cmd = crate::task::build_task(task, &layout, &Config::default()).map_err(|r| r.message)?;
    let mut args = strings(&["-nostdin", "-hide_banner", "-loglevel", "error", "-y"]);
    args.extend(argv(&cmd));
    run("ffmpeg", &args).map_err(|e| format!("{e}\nargv: {args:?}"))?;
    let mut made: Vec<String> = std::fs::read_dir(job.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    made.sort();
    Ok(made)
}

fn tasks() -> Vec<(&'static str, Task, &'static [&'static str])> {
    vec![
        (
            "transcode",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "out.mp4",
                    &[
                        "-c:v",
                        "libx264",
                        "-preset",
                        "ultrafast",
                        "-crf",
                        "30",
                        "-c:a",
                        "aac",
                        "-b:a",
                        "64k",
                        "-movflags",
                        "+faststart",
                    ],
                    &[],
                )],
                None,
            ),
            &["out.mp4"],
        ),
        (
            "thumbnails",
            task(
                vec![input("in.mp4", &[])],
                vec![output("thumb_%03d.jpg", &["-vf", "fps=1/2"], &[])],
                None,
            ),
            &["thumb_001.jpg"],
        ),
        (
            "poster",
            task(
                vec![input("in.mp4", &["-ss", "1"])],
                vec![output("poster.jpg", &["-frames:v", "1"], &[])],
                None,
            ),
            &["poster.jpg"],
        ),
        (
            "overlay with maps",
            task(
                vec![input("in.mp4", &[]), input("logo.png", &[])],
                vec![output(
                    "out.mp4",
                    &["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "copy"],
                    &["[outv]", "0:a?"],
                )],
                Some("[0:v][1:v]overlay=W-w-10:H-h-10[outv]"),
            ),
            &["out.mp4"],
        ),
        (
            "still image and audio",
            task(
                vec![
                    input("cover.jpg", &["-loop", "1", "-framerate", "5"]),
                    input("song.mp3", &[]),
                ],
                vec![output(
                    "video.mp4",
                    &[
                        "-c:v",
                        "libx264",
                        "-preset",
                        "ultrafast",
                        "-tune",
                        "stillimage",
                        "-c:a",
                        "aac",
                        "-shortest",
                    ],
                    &["0:v", "1:a"],
                )],
                None,
            ),
            &["video.mp4"],
        ),
        (
            "movie and subtitles by @{name}",
            task(
                vec![
                    input("in.mp4", &[]),
                    input("logo.png", &[]),
                    input("subs.srt", &[]),
                ],
                vec![output(
                    "out.mp4",
                    &["-c:v", "libx264", "-preset", "ultrafast"],
                    &["[v]", "0:a"],
                )],
                Some(
                    "movie=@{logo.png}[logo];[0:v][logo]overlay=10:10,subtitles=@{subs.srt}:force_style='Fontsize=24'[v]",
                ),
            ),
            &["out.mp4"],
        ),
        (
            "watermark by movie in -vf",
            task(
                vec![input("in.mp4", &[]), input("logo.png", &[])],
                vec![output(
                    "wm.mp4",
                    &[
                        "-vf",
                        "movie=@{logo.png},scale=32:32[wm];[in][wm]overlay=4:4",
                        "-c:v",
                        "libx264",
                        "-preset",
                        "ultrafast",
                    ],
                    &["0:v"],
                )],
                None,
            ),
            &["wm.mp4"],
        ),
        (
            "vp9 and opus",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "short.webm",
                    &[
                        "-c:v",
                        "libvpx-vp9",
                        "-deadline",
                        "realtime",
                        "-cpu-used",
                        "8",
                        "-b:v",
                        "300k",
                        "-c:a",
                        "libopus",
                    ],
                    &[],
                )],
                None,
            ),
            &["short.webm"],
        ),
        (
            "hls",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "playlist.m3u8",
                    &[
                        "-c:v",
                        "libx264",
                        "-preset",
                        "ultrafast",
                        "-c:a",
                        "aac",
                        "-hls_time",
                        "1",
                        "-hls_playlist_type",
                        "vod",
                        "-hls_segment_filename",
                        "seg_%03d.ts",
                    ],
                    &[],
                )],
                None,
            ),
            &["playlist.m3u8", "seg_000.ts"],
        ),
        (
            "hls, default segment names",
            task(
                vec![input("in.mp4", &[])],
                vec![output("stream.m3u8", &["-c", "copy", "-f", "hls"], &[])],
                None,
            ),
            &["stream.m3u8", "stream0.ts"],
        ),
        (
            "gif with palette",
            task(
                vec![input("in.mp4", &["-t", "1"])],
                vec![output("out.gif", &["-loop", "0"], &["[g]"])],
                Some(
                    "[0:v]fps=10,scale=160:-1:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=5[g]",
                ),
            ),
            &["out.gif"],
        ),
        (
            "filter_complex in output options",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "small.mp4",
                    &[
                        "-filter_complex",
                        "[0:v]scale=160:-2[v]",
                        "-map",
                        "[v]",
                        "-map",
                        "0:a?",
                        "-c:v",
                        "libx264",
                        "-preset",
                        "ultrafast",
                    ],
                    &[],
                )],
                None,
            ),
            &["small.mp4"],
        ),
        (
            "x264 params",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "out.mp4",
                    &[
                        "-c:v",
                        "libx264",
                        "-preset",
                        "ultrafast",
                        "-x264-params",
                        "keyint=60:scenecut=0",
                    ],
                    &[],
                )],
                None,
            ),
            &["out.mp4"],
        ),
        (
            "segments with a list",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "chunk_%03d.ts",
                    &[
                        "-c",
                        "copy",
                        "-f",
                        "segment",
                        "-segment_time",
                        "1",
                        "-segment_list",
                        "list.m3u8",
                        "-reset_timestamps",
                        "1",
                    ],
                    &[],
                )],
                None,
            ),
            &["chunk_000.ts", "list.m3u8"],
        ),
        (
            "source with a duration",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "out.mp4",
                    &["-c:v", "libx264", "-preset", "ultrafast"],
                    &["[v]"],
                )],
                Some(
                    "color=c=black:s=400x300:d=2[bg];[bg][0:v]overlay=(W-w)/2:(H-h)/2:shortest=1[v]",
                ),
            ),
            &["out.mp4"],
        ),
        (
            "drawtext with punctuation",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "out.mp4",
                    &[
                        "-vf",
                        "drawtext=text='Time\\: 10, it''s [ok]; done':fontsize=16:x=10:y=10",
                        "-c:v",
                        "libx264",
                        "-preset",
                        "ultrafast",
                    ],
                    &[],
                )],
                None,
            ),
            &["out.mp4"],
        ),
        (
            "concat filter",
            task(
                vec![input("in.mp4", &[]), input("b.mp4", &[])],
                vec![output(
                    "joined.mp4",
                    &["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"],
                    &["[v]", "[a]"],
                )],
                Some(
                    "[0:v]scale=320:240,setsar=1[v0];[1:v]scale=320:240,setsar=1[v1];[v0][0:a][v1][1:a]concat=n=2:v=1:a=1[v][a]",
                ),
            ),
            &["joined.mp4"],
        ),
        (
            "lut3d from a side file",
            task(
                vec![input("in.mp4", &[]), input("grade.cube", &["-f", "data"])],
                vec![output(
                    "graded.mp4",
                    &[
                        "-vf",
                        "lut3d=@{grade.cube}",
                        "-map",
                        "0:v",
                        "-c:v",
                        "libx264",
                        "-preset",
                        "ultrafast",
                    ],
                    &[],
                )],
                None,
            ),
            &["graded.mp4"],
        ),
        (
            "audio with metadata",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "audio.mp3",
                    &[
                        "-vn",
                        "-c:a",
                        "libmp3lame",
                        "-q:a",
                        "4",
                        "-metadata",
                        "title=My song: live",
                        "-metadata:s:a:0",
                        "language=eng",
                        "-id3v2_version",
                        "3",
                        "-af",
                        "apad=pad_dur=1,volume=0.5",
                    ],
                    &[],
                )],
                None,
            ),
            &["audio.mp3"],
        ),
    ]
}

/// A scratch directory for one test, named `tag`, and the fixtures made in it.
fn scratch(tag: &str) -> (PathBuf, PathBuf) {
    assert!(
        have("ffmpeg") && have("ffprobe"),
        "ffmpeg and ffprobe are required (make setup installs them)"
    );
    let root = std::env::temp_dir().join(format!("command-builder-{tag}-{}", std::process::id()));
    let src = fixtures(&root);
    (root, src)
}

#[test]
fn built_commands_run_in_ffmpeg() {
    let (root, src) = scratch("test");
    let mut failures = Vec::new();
    for (k, (name, task, expected)) in tasks().into_iter().enumerate() {
        let job = root.join(format!("job{k}"));
        match build_and_run(&src, &job, &task) {
            Ok(made) => {
                for want in expected {
                    if !made.iter().any(|m| m == want) {
                        failures.push(format!("{name}: no {want} among {made:?}"));
                    }
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }

    // Probes against the same input.
    let probes = [ProbeConfig {
        format: Some(strings(&["duration", "tags"])),
        streams: Some(strings(&[
            "codec_name",
            "width",
            "tags:language",
            "disposition:default",
        ])),
        chapters: None,
        programs: None,
        frames: Some(strings(&["pts_time", "pict_type"])),
        packets: None,
        error: Some(vec![]),
        select_streams: Some("v:0".into()),
        read_intervals: Some("#5".into()),
        count_frames: Some(true),
        skip_frame: Some("nokey".into()),
        analyzeduration: Some("5s".into()),
        probesize: Some("10M".into()),
    }];
    for probe in probes {
        let cmd = crate::probe::build_probe(&probe).unwrap();
        let mut args = strings(&["-v", "error", "-of", "json"]);
        args.extend(cmd.args.clone());
        args.push(src.join("in.mp4").to_string_lossy().into_owned());
        match run("ffprobe", &args) {
            Ok(json) if json.contains("\"pict_type\"") && json.contains("\"codec_name\"") => {}
            Ok(json) => failures.push(format!("probe: unexpected output {json}")),
            Err(e) => failures.push(format!("probe: {e} ({args:?})")),
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The vendor's n8n template: a 1 s video looped forever (`-stream_loop -1`) under a 3 s audio
/// track, ended by `-shortest`, gives about 3 s of output.
#[test]
fn looped_video_under_longer_audio_ends_with_the_audio() {
    let (root, src) = scratch("loop");
    let job = root.join("job");
    let task = task(
        vec![
            input("b.mp4", &["-stream_loop", "-1"]),
            input("voice.mp3", &[]),
        ],
        vec![output(
            "out.mp4",
            &[
                "-c:v",
                "libx264",
                "-preset",
                "ultrafast",
                "-c:a",
                "aac",
                "-shortest",
            ],
            &["0:v", "1:a"],
        )],
        None,
    );
    let made = build_and_run(&src, &job, &task);
    let out = job
        .join("out")
        .join("out.mp4")
        .to_string_lossy()
        .into_owned();
    let probed = run(
        "ffprobe",
        &strings(&[
            "-v",
            "error",
            "-show_entries",
            "format=duration",
            "-of",
            "csv=p=0",
            &out,
        ]),
    );
    let _ = std::fs::remove_dir_all(&root);
    made.unwrap();
    let seconds: f64 = probed.unwrap().trim().parse().unwrap();
    assert!((2.5..3.6).contains(&seconds), "output lasts {seconds} s");
}

/// Differential check of the escaping: a value written by our serialiser must reach the filter
/// unchanged. `setpts` quotes the expression it fails to parse, which makes it an oracle.
#[test]
fn serialised_values_reach_the_filter_unchanged() {
    use crate::filtergraph::{Arg, Filter, Graph, serialize};
    assert!(
        have("ffmpeg"),
        "ffmpeg is required (make setup installs it)"
    );
    let values = [
        "a:b,c;d[e]f",
        "it's \\ here",
        " leading and trailing ",
        "x=y",
        "=start",
        "/job/in/0-we:ird,[name];'x'.png",
        "tab\there",
        "%{pts} \\: \\, done\\",
    ];
    let mut failures = Vec::new();
    for value in values {
        for keyed in [false, true] {
            let graph = Graph {
                filters: vec![Filter {
                    inputs: vec![],
                    name: "setpts".into(),
                    id: None,
                    args: vec![Arg {
                        key: keyed.then(|| "expr".to_string()),
                        value: value.to_string(),
                    }],
                    outputs: vec![],
                    sep: None,
                }],
            };
            let text = serialize(&graph);
            let args = strings(&[
                "-nostdin",
                "-hide_banner",
                "-loglevel",
                "error",
                "-f",
                "lavfi",
                "-i",
                "nullsrc=d=0.1",
                "-vf",
                &text,
                "-f",
                "null",
                "-",
            ]);
            let err = run("ffmpeg", &args).expect_err("setpts should fail on this expression");
            let want = format!("Error while parsing expression '{value}'");
            if !err.contains(&want) {
                failures.push(format!("{value:?} (keyed: {keyed}) as {text:?}: {err}"));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Differential check of the parser: for a graph as a tenant writes it, the value we check must
/// be the value ffmpeg uses.
#[test]
fn parsed_values_match_what_ffmpeg_reads() {
    use crate::filtergraph::parse;
    assert!(
        have("ffmpeg"),
        "ffmpeg is required (make setup installs it)"
    );
    let raws = [
        "setpts=a\\\\:b",
        "setpts='a\\:b'",
        "setpts=expr='it'\\''s x'",
        "setpts= spaced out ",
        "setpts='kept ' ",
        "setpts=a\\,b\\;c\\[d\\]",
        "setpts='x''y'z",
        "setpts=expr=q\\=r",
        "setpts=\\\\\\\\backslash",
        "setpts=expr='/etc/passwd'",
    ];
    let mut failures = Vec::new();
    for raw in raws {
        let graph = parse(raw).unwrap_or_else(|e| panic!("{raw}: {e}"));
        let value = &graph.filters[0].args[0].value;
        let args = strings(&[
            "-nostdin",
            "-hide_banner",
            "-loglevel",
            "error",
            "-f",
            "lavfi",
            "-i",
            "nullsrc=d=0.1",
            "-vf",
            raw,
            "-f",
            "null",
            "-",
        ]);
        let err = run("ffmpeg", &args).expect_err("setpts should fail on this expression");
        let want = format!("Error while parsing expression '{value}'");
        if !err.contains(&want) {
            failures.push(format!("{raw:?}: we read {value:?}; ffmpeg said {err}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
