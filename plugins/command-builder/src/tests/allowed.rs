//! Realistic tasks tenants send, and the exact arguments they become (without the host's own
//! flags; staged inputs live at `/job/in/<i>-<name>`, outputs in `/job/out`).

use super::*;
use crate::Task;

fn rows() -> Vec<(&'static str, Task, Vec<&'static str>)> {
    vec![
        (
            "transcode with crf and preset",
            task(
                vec![input("in.mov", &[])],
                vec![output(
                    "out.mp4",
                    &[
                        "-c:v",
                        "libx264",
                        "-preset",
                        "veryfast",
                        "-crf",
                        "23",
                        "-pix_fmt",
                        "yuv420p",
                        "-c:a",
                        "aac",
                        "-b:a",
                        "128k",
                        "-movflags",
                        "+faststart",
                    ],
                    &[],
                )],
                None,
            ),
            vec![
                "-i",
                "/job/in/0-in.mov",
                "-c:v",
                "libx264",
                "-preset",
                "veryfast",
                "-crf",
                "23",
                "-pix_fmt",
                "yuv420p",
                "-c:a",
                "aac",
                "-b:a",
                "128k",
                "-movflags",
                "+faststart",
                "/job/out/out.mp4",
            ],
        ),
        (
            "thumbnails every two seconds",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "thumb_%03d.jpg",
                    &["-vf", "fps=1/2", "-q:v", "2"],
                    &[],
                )],
                None,
            ),
            vec![
                "-i",
                "/job/in/0-in.mp4",
                "-vf",
                "fps=1/2",
                "-q:v",
                "2",
                "/job/out/thumb_%03d.jpg",
            ],
        ),
        (
            "poster frame at 5 s",
            task(
                vec![input("in.mp4", &["-ss", "5"])],
                vec![output("poster.jpg", &["-frames:v", "1"], &[])],
                None,
            ),
            vec![
                "-ss",
                "5",
                "-i",
                "/job/in/0-in.mp4",
                "-frames:v",
                "1",
                "/job/out/poster.jpg",
            ],
        ),
        (
            "peaks printed to the log, a DASH ladder's manifest",
            task(
                vec![input("in.mp4", &[])],
                vec![
                    output(
                        "peaks.null",
                        &[
                            "-af",
                            "astats=metadata=1:reset=1,ametadata=mode=print",
                            "-f",
                            "null",
                        ],
                        &[],
                    ),
                    output(
                        "manifest.mpd",
                        &[
                            "-c:v",
                            "libx264",
                            "-f",
                            "dash",
                            "-seg_duration",
                            "2",
                            "-adaptation_sets",
                            "id=0,streams=v id=1,streams=a",
                        ],
                        &[],
                    ),
                ],
                None,
            ),
            vec![
                "-i",
                "/job/in/0-in.mp4",
                "-af",
                "astats=metadata=1:reset=1,ametadata=mode=print",
                "-f",
                "null",
                "/job/out/peaks.null",
                "-c:v",
                "libx264",
                "-f",
                "dash",
                "-seg_duration",
                "2",
                "-adaptation_sets",
                "id=0,streams=v id=1,streams=a",
                "/job/out/manifest.mpd",
            ],
        ),
        (
            "overlay with maps",
            task(
                vec![input("in.mp4", &[]), input("logo.png", &[])],
                vec![output(
                    "out.mp4",
                    &["-c:v", "libx264", "-c:a", "copy"],
                    &["[outv]", "0:a?"],
                )],
                Some("[0:v][1:v]overlay=W-w-10:H-h-10[outv]"),
            ),
            vec![
                "-filter_complex",
                "[0:v][1:v]overlay=W-w-10:H-h-10[outv]",
                "-i",
                "/job/in/0-in.mp4",
                "-i",
                "/job/in/1-logo.png",
                "-c:v",
                "libx264",
                "-c:a",
                "copy",
                "-map",
                "[outv]",
                "-map",
                "0:a?",
                "/job/out/out.mp4",
            ],
        ),
        (
            "still image and audio",
            task(
                vec![
                    input("cover.jpg", &["-loop", "1", "-framerate", "1"]),
                    input("song.mp3", &[]),
                ],
                vec![output(
                    "video.mp4",
                    &[
                        "-c:v",
                        "libx264",
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
            vec![
                "-loop",
                "1",
                "-framerate",
                "1",
                "-i",
                "/job/in/0-cover.jpg",
                "-i",
                "/job/in/1-song.mp3",
                "-c:v",
                "libx264",
                "-tune",
                "stillimage",
                "-c:a",
                "aac",
                "-shortest",
                "-map",
                "0:v",
                "-map",
                "1:a",
                "/job/out/video.mp4",
            ],
        ),
        (
            "@{name} with movie and subtitles",
            task(
                vec![
                    input("in.mp4", &[]),
                    input("logo.png", &[]),
                    input("subs.srt", &[]),
                ],
                vec![output("out.mp4", &[], &["[v]", "0:a"])],
                Some(
                    "movie=@{logo.png}[logo];[0:v][logo]overlay=10:10,subtitles=@{subs.srt}:force_style='Fontsize=24'[v]",
                ),
            ),
            vec![
                "-filter_complex",
                "movie=/job/in/1-logo.png[logo];[0:v][logo]overlay=10:10,subtitles=/job/in/2-subs.srt:force_style=Fontsize=24[v]",
                "-i",
                "/job/in/0-in.mp4",
                "-i",
                "/job/in/1-logo.png",
                "-i",
                "/job/in/2-subs.srt",
                "-map",
                "[v]",
                "-map",
                "0:a",
                "/job/out/out.mp4",
            ],
        ),
        (
            "HLS with segment names",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "playlist.m3u8",
                    &[
                        "-c:v",
                        "libx264",
                        "-c:a",
                        "aac",
                        "-f",
                        "hls",
                        "-hls_time",
                        "2",
                        "-hls_playlist_type",
                        "vod",
                        "-hls_segment_filename",
                        "seg_%03d.ts",
                    ],
                    &[],
                )],
                None,
            ),
            vec![
                "-i",
                "/job/in/0-in.mp4",
                "-c:v",
                "libx264",
                "-c:a",
                "aac",
                "-f",
                "hls",
                "-hls_time",
                "2",
                "-hls_playlist_type",
                "vod",
                "-hls_segment_filename",
                "/job/out/seg_%03d.ts",
                "/job/out/playlist.m3u8",
            ],
        ),
        (
            "GIF with palettegen and paletteuse",
            task(
                vec![input("in.mp4", &["-t", "3"])],
                vec![output("out.gif", &["-loop", "0"], &["[g]"])],
                Some(
                    "[0:v]fps=10,scale=320:-1:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=5[g]",
                ),
            ),
            vec![
                "-filter_complex",
                "[0:v]fps=10,scale=320:-1:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=5[g]",
                "-t",
                "3",
                "-i",
                "/job/in/0-in.mp4",
                "-loop",
                "0",
                "-map",
                "[g]",
                "/job/out/out.gif",
            ],
        ),
        (
            "-filter_complex inside output options",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "small.mp4",
                    &[
                        "-filter_complex",
                        "[0:v]scale=640:-2[v]",
                        "-map",
                        "[v]",
                        "-map",
                        "0:a?",
                        "-c:v",
                        "libx264",
                    ],
                    &[],
                )],
                None,
            ),
            vec![
                "-filter_complex",
                "[0:v]scale=640:-2[v]",
                "-i",
                "/job/in/0-in.mp4",
                "-map",
                "[v]",
                "-map",
                "0:a?",
                "-c:v",
                "libx264",
                "/job/out/small.mp4",
            ],
        ),
        (
            "x264 params",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "out.mp4",
                    &["-c:v", "libx264", "-x264-params", "keyint=60:scenecut=0"],
                    &[],
                )],
                None,
            ),
            vec![
                "-i",
                "/job/in/0-in.mp4",
                "-c:v",
                "libx264",
                "-x264-params",
                "keyint=60:scenecut=0",
                "/job/out/out.mp4",
            ],
        ),
        (
            "segment muxer with a list",
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
                        "10",
                        "-segment_list",
                        "list.m3u8",
                        "-reset_timestamps",
                        "1",
                    ],
                    &[],
                )],
                None,
            ),
            vec![
                "-i",
                "/job/in/0-in.mp4",
                "-c",
                "copy",
                "-f",
                "segment",
                "-segment_time",
                "10",
                "-segment_list",
                "/job/out/list.m3u8",
                "-reset_timestamps",
                "1",
                "/job/out/chunk_%03d.ts",
            ],
        ),
        (
            "background source with a duration",
            task(
                vec![input("in.mp4", &[])],
                vec![output("out.mp4", &[], &["[v]"])],
                Some("color=c=black:s=1280x720:d=5[bg];[bg][0:v]overlay=shortest=1[v]"),
            ),
            vec![
                "-filter_complex",
                "color=c=black:s=1280x720:d=5[bg];[bg][0:v]overlay=shortest=1[v]",
                "-i",
                "/job/in/0-in.mp4",
                "-map",
                "[v]",
                "/job/out/out.mp4",
            ],
        ),
        (
            "audio extraction with metadata",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "audio.mp3",
                    &[
                        "-vn",
                        "-c:a",
                        "libmp3lame",
                        "-q:a",
                        "2",
                        "-metadata",
                        "title=My song: live",
                        "-metadata:s:a:0",
                        "language=eng",
                        "-id3v2_version",
                        "3",
                    ],
                    &[],
                )],
                None,
            ),
            vec![
                "-i",
                "/job/in/0-in.mp4",
                "-vn",
                "-c:a",
                "libmp3lame",
                "-q:a",
                "2",
                "-metadata",
                "title=My song: live",
                "-metadata:s:a:0",
                "language=eng",
                "-id3v2_version",
                "3",
                "/job/out/audio.mp3",
            ],
        ),
        (
            "host-controlled flags are dropped",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "out.webm",
                    &[
                        "-y",
                        "-hide_banner",
                        "-loglevel",
                        "debug",
                        "-c:v",
                        "libvpx-vp9",
                        "-b:v",
                        "0",
                        "-crf",
                        "31",
                        "-row-mt",
                        "1",
                        "-deadline",
                        "good",
                        "-cpu-used",
                        "4",
                    ],
                    &[],
                )],
                None,
            ),
            vec![
                "-i",
                "/job/in/0-in.mp4",
                "-c:v",
                "libvpx-vp9",
                "-b:v",
                "0",
                "-crf",
                "31",
                "-row-mt",
                "1",
                "-deadline",
                "good",
                "-cpu-used",
                "4",
                "/job/out/out.webm",
            ],
        ),
        (
            "drawtext with punctuation",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "out.mp4",
                    &[
                        "-vf",
                        "drawtext=text='Time\\: 10, 11':fontsize=24:x=10:y=10",
                    ],
                    &[],
                )],
                None,
            ),
            vec![
                "-i",
                "/job/in/0-in.mp4",
                "-vf",
                "drawtext=text=Time\\\\: 10\\, 11:fontsize=24:x=10:y=10",
                "/job/out/out.mp4",
            ],
        ),
        (
            "trim, concat of two inputs",
            task(
                vec![input("a.mp4", &[]), input("b.mp4", &[])],
                vec![output(
                    "joined.mp4",
                    &["-c:v", "libx264", "-c:a", "aac"],
                    &["[v]", "[a]"],
                )],
                Some("[0:v][0:a][1:v][1:a]concat=n=2:v=1:a=1[v][a]"),
            ),
            vec![
                "-filter_complex",
                "[0:v][0:a][1:v][1:a]concat=n=2:v=1:a=1[v][a]",
                "-i",
                "/job/in/0-a.mp4",
                "-i",
                "/job/in/1-b.mp4",
                "-c:v",
                "libx264",
                "-c:a",
                "aac",
                "-map",
                "[v]",
                "-map",
                "[a]",
                "/job/out/joined.mp4",
            ],
        ),
        (
            "stream loop and seek from the end",
            task(
                vec![input("in.mp4", &["-stream_loop", "3", "-sseof", "-10"])],
                vec![output("out.mkv", &["-c", "copy", "-map", "0"], &[])],
                None,
            ),
            vec![
                "-stream_loop",
                "3",
                "-sseof",
                "-10",
                "-i",
                "/job/in/0-in.mp4",
                "-c",
                "copy",
                "-map",
                "0",
                "/job/out/out.mkv",
            ],
        ),
        (
            "32 maps, the most one output may have",
            task(
                vec![input("in.mp4", &[])],
                vec![output("out.mkv", &["-c", "copy"], &vec!["0:a"; 32])],
                None,
            ),
            [
                &["-i", "/job/in/0-in.mp4", "-c", "copy"][..],
                &["-map", "0:a"].repeat(32),
                &["/job/out/out.mkv"],
            ]
            .concat(),
        ),
        (
            "short video looped under a long audio (the n8n template)",
            task(
                vec![
                    input("clip.mp4", &["-stream_loop", "-1"]),
                    input("voice.mp3", &[]),
                ],
                vec![output(
                    "out.mp4",
                    &["-c:v", "libx264", "-c:a", "aac", "-shortest"],
                    &["0:v", "1:a"],
                )],
                None,
            ),
            vec![
                "-stream_loop",
                "-1",
                "-i",
                "/job/in/0-clip.mp4",
                "-i",
                "/job/in/1-voice.mp3",
                "-c:v",
                "libx264",
                "-c:a",
                "aac",
                "-shortest",
                "-map",
                "0:v",
                "-map",
                "1:a",
                "/job/out/out.mp4",
            ],
        ),
        (
            "stream loop forever, ended by -t on the input",
            task(
                vec![input("clip.mp4", &["-stream_loop", "-1", "-t", "30"])],
                vec![output("out.mp4", &[], &[])],
                None,
            ),
            vec![
                "-stream_loop",
                "-1",
                "-t",
                "30",
                "-i",
                "/job/in/0-clip.mp4",
                "/job/out/out.mp4",
            ],
        ),
        (
            "stream loop forever, output ended by a size limit",
            task(
                vec![input("clip.mp4", &["-stream_loop", "-1"])],
                vec![output("out.mp4", &["-fs", "10M"], &[])],
                None,
            ),
            vec![
                "-stream_loop",
                "-1",
                "-i",
                "/job/in/0-clip.mp4",
                "-fs",
                "10M",
                "/job/out/out.mp4",
            ],
        ),
        (
            "contact sheet of thumbnails",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "sheet.png",
                    &["-vf", "fps=1/10,scale=320:-1,tile=3x3", "-frames:v", "1"],
                    &[],
                )],
                None,
            ),
            vec![
                "-i",
                "/job/in/0-in.mp4",
                "-vf",
                "fps=1/10,scale=320:-1,tile=3x3",
                "-frames:v",
                "1",
                "/job/out/sheet.png",
            ],
        ),
        (
            "two videos side by side",
            task(
                vec![input("a.mp4", &[]), input("b.mp4", &[])],
                vec![output("both.mp4", &[], &["[v]"])],
                Some("[0:v][1:v]hstack[v]"),
            ),
            vec![
                "-filter_complex",
                "[0:v][1:v]hstack[v]",
                "-i",
                "/job/in/0-a.mp4",
                "-i",
                "/job/in/1-b.mp4",
                "-map",
                "[v]",
                "/job/out/both.mp4",
            ],
        ),
        (
            "reverse a trimmed clip",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "rev.mp4",
                    &["-vf", "trim=end=5,reverse", "-af", "atrim=0:5,areverse"],
                    &[],
                )],
                None,
            ),
            vec![
                "-i",
                "/job/in/0-in.mp4",
                "-vf",
                "trim=end=5,reverse",
                "-af",
                "atrim=0:5,areverse",
                "/job/out/rev.mp4",
            ],
        ),
        (
            "reverse an input ended by -t",
            task(
                vec![input("in.mp4", &["-t", "10"])],
                vec![output("rev.mp4", &[], &["[r]"])],
                Some("[0:v]reverse[r]"),
            ),
            vec![
                "-filter_complex",
                "[0:v]reverse[r]",
                "-t",
                "10",
                "-i",
                "/job/in/0-in.mp4",
                "-map",
                "[r]",
                "/job/out/rev.mp4",
            ],
        ),
        (
            "loop frames forever into a bounded output",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "boomerang.mp4",
                    &["-vf", "loop=-1:size=25", "-t", "6"],
                    &[],
                )],
                None,
            ),
            vec![
                "-i",
                "/job/in/0-in.mp4",
                "-vf",
                "loop=-1:size=25",
                "-t",
                "6",
                "/job/out/boomerang.mp4",
            ],
        ),
        (
            "side file read through -f data",
            task(
                vec![input("in.mp4", &[]), input("grade.cube", &["-f", "data"])],
                vec![output(
                    "graded.mp4",
                    &["-vf", "lut3d=@{grade.cube}", "-map", "0:v"],
                    &[],
                )],
                None,
            ),
            vec![
                "-i",
                "/job/in/0-in.mp4",
                "-f",
                "data",
                "-i",
                "/job/in/1-grade.cube",
                "-vf",
                "lut3d=/job/in/1-grade.cube",
                "-map",
                "0:v",
                "/job/out/graded.mp4",
            ],
        ),
    ]
}

#[test]
fn realistic_tasks_become_the_expected_argv() {
    let mut failures = Vec::new();
    for (name, task, want) in rows() {
        match build(&task) {
            Ok(cmd) => {
                let got = argv(&cmd);
                if got != want {
                    failures.push(format!("{name}:\n  got  {got:?}\n  want {want:?}"));
                }
            }
            Err(r) => failures.push(format!("{name}: refused: {}", r.message)),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Size forms real users write, in `-vf`: each must stay allowed under the frame-size cap
/// (inputs of unknown size are judged as up to 8192x8192).
#[test]
fn common_size_forms_are_allowed() {
    let rows = [
        ("fixed height, even width", "scale=-2:720"),
        ("half size", "scale=iw/2:-2"),
        ("fixed width", "scale=1280:-1"),
        ("even sides", "pad=ceil(iw/2)*2:ceil(ih/2)*2"),
        ("centre crop", "crop=iw/2:ih/2"),
        (
            "box fit",
            "scale=w=1280:h=720:force_original_aspect_ratio=decrease,pad=1280:720:(ow-iw)/2:(oh-ih)/2",
        ),
        (
            "border after a scale",
            "scale=1280:-2,pad=iw+20:ih+20:10:10",
        ),
        ("rotate in place", "rotate=PI/6"),
        (
            "rotate a scaled frame to its diagonal",
            "scale=1280:-2,rotate=a=t:ow=rotw(a):oh=roth(a)",
        ),
        ("zscale to 4K", "zscale=w=3840:h=2160"),
        ("v360 with a size", "v360=e:c3x2:w=3000:h=2000"),
        ("pixel-art upscale of a small frame", "scale=320:240,hqx=4"),
        ("interlace weave", "scale=1920:540,weave"),
        (
            "crop with time-dependent position",
            "crop=640:360:x=t*10:y=0",
        ),
    ];
    let mut failures = Vec::new();
    for (name, vf) in rows {
        let t = task(
            vec![input("in.mp4", &[])],
            vec![output("out.mp4", &["-vf", vf], &[])],
            None,
        );
        if let Err(r) = build(&t) {
            failures.push(format!("{name} ({vf}): {}", r.message));
        }
    }
    let graphs = [
        (
            "2x2 mosaic",
            "[0:v][1:v][0:v][1:v]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0[v]",
        ),
        (
            "2x2 grid",
            "[0:v][1:v][0:v][1:v]xstack=inputs=4:grid=2x2[v]",
        ),
        (
            "three thumbnails side by side",
            "[0:v]scale=640:-2[a];[1:v]scale=640:-2[b];[0:v]scale=640:-2[c];[a][b][c]hstack=3[v]",
        ),
        ("vstack of two", "[0:v][1:v]vstack[v]"),
    ];
    for (name, graph) in graphs {
        let t = task(
            vec![input("a.mp4", &[]), input("b.mp4", &[])],
            vec![output("out.mp4", &[], &["[v]"])],
            Some(graph),
        );
        if let Err(r) = build(&t) {
            failures.push(format!("{name} ({graph}): {}", r.message));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn every_judgement_is_a_decision() {
    let t = task(
        vec![input("in.mp4", &["-y"])],
        vec![output(
            "out.mp4",
            &["-c:v", "libx264", "-vf", "scale=640:-2,hflip"],
            &["0:v"],
        )],
        None,
    );
    let cmd = build(&t).unwrap();
    let subjects: Vec<(&str, bool)> = cmd
        .decisions
        .iter()
        .map(|d| (d.subject.as_str(), d.allowed))
        .collect();
    for want in [
        ("-y", false),
        ("-c:v", true),
        ("-vf", true),
        ("scale", true),
        ("hflip", true),
        ("-map 0:v", true),
        ("out.mp4", true),
    ] {
        assert!(
            subjects.contains(&want),
            "missing decision {want:?} in {subjects:?}"
        );
    }
    assert!(
        cmd.decisions
            .iter()
            .all(|d| !d.reason.is_empty() && !d.reason.contains("/job/"))
    );
}

#[test]
fn global_options_are_hoisted_in_order() {
    let t = task(
        vec![input("in.mp4", &["-copyts"])],
        vec![
            output("a.mp4", &["-lavfi", "[0:v]hflip[h]", "-map", "[h]"], &[]),
            output("b.mp4", &[], &["[v]"]),
        ],
        Some("[0:v]vflip[v]"),
    );
    let cmd = build(&t).unwrap();
    assert_eq!(
        cmd.global_args,
        strings(&[
            "-copyts",
            "-filter_complex",
            "[0:v]vflip[v]",
            "-lavfi",
            "[0:v]hflip[h]"
        ])
    );
    assert_eq!(cmd.inputs[0].args, Vec::<String>::new());
    assert_eq!(cmd.outputs[0].args, strings(&["-map", "[h]"]));
}

#[test]
fn the_concat_demuxer_reads_only_a_list_the_host_staged() {
    // The host stages a list it has checked and rewritten as `*.ffconcat` (its layout; this
    // test layout keeps the name, so the list is named so).
    let list = task(
        vec![
            input("shots.ffconcat", &["-f", "concat", "-safe", "0"]),
            input("a.mp4", &[]),
        ],
        vec![output("out.mp4", &["-c", "copy"], &[])],
        None,
    );
    let cmd = build(&list).unwrap();
    assert_eq!(
        argv(&cmd)[..6],
        strings(&[
            "-f",
            "concat",
            "-safe",
            "0",
            "-i",
            "/job/in/0-shots.ffconcat"
        ])[..]
    );
    // The same options on any other input stay refused.
    let other = task(
        vec![input("a.mp4", &["-f", "concat"])],
        vec![output("out.mp4", &[], &[])],
        None,
    );
    let err = build(&other).unwrap_err();
    assert!(
        err.message.contains("Input format 'concat' is not allowed"),
        "{}",
        err.message
    );
    let other = task(
        vec![input("a.mp4", &["-safe", "0"])],
        vec![output("out.mp4", &[], &[])],
        None,
    );
    let err = build(&other).unwrap_err();
    assert!(
        err.message.contains("Option '-safe' is not allowed"),
        "{}",
        err.message
    );
}
