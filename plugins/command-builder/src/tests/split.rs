//! The `split` decision: one row per kind of task, and whether it may run in segments.

use super::*;

fn splits(t: &Task) -> bool {
    let cmd = build(t).expect("builds");
    cmd.decisions
        .iter()
        .any(|d| d.subject == "split" && d.allowed)
}

fn one(options: &[&str], file: &str) -> Task {
    task(
        vec![input("in.mp4", &[])],
        vec![output(file, options, &[])],
        None,
    )
}

#[test]
fn per_frame_re_encodes_of_one_input_split() {
    let rows: Vec<(&str, Task)> = vec![
        ("plain mp4 (libx264 by default)", one(&[], "out.mp4")),
        (
            "x264 with audio settings",
            one(
                &[
                    "-c:v",
                    "libx264",
                    "-preset",
                    "veryfast",
                    "-crf",
                    "23",
                    "-c:a",
                    "aac",
                    "-b:a",
                    "128k",
                    "-movflags",
                    "+faststart",
                ],
                "out.mp4",
            ),
        ),
        (
            "scale and colour",
            one(
                &["-vf", "scale=1280:-2,eq=contrast=1.1", "-c:v", "libx265"],
                "out.mkv",
            ),
        ),
        (
            "vp9 into webm",
            one(&["-c:v", "libvpx-vp9", "-b:v", "1M", "-an"], "out.webm"),
        ),
        (
            "static text",
            one(&["-vf", "drawtext=text=hello:x=10:y=10"], "out.mp4"),
        ),
        ("audio filters", one(&["-af", "volume=0.5"], "out.mp4")),
    ];
    for (what, t) in rows {
        assert!(splits(&t), "{what}: expected a split decision");
    }
}

#[test]
fn anything_that_is_not_frame_independent_runs_whole() {
    let rows: Vec<(&str, Task)> = vec![
        ("stream copy", one(&["-c:v", "copy"], "out.mp4")),
        (
            "one codec for all streams",
            one(&["-c", "libx264"], "out.mp4"),
        ),
        ("frame-rate change", one(&["-r", "24"], "out.mp4")),
        ("trim", one(&["-t", "10"], "out.mp4")),
        ("temporal filter", one(&["-vf", "hqdn3d"], "out.mp4")),
        ("fps filter", one(&["-vf", "fps=10"], "out.mp4")),
        (
            "time expression",
            one(&["-vf", "crop=w=100:h=100:x=t*10"], "out.mp4"),
        ),
        (
            "timed text",
            one(&["-vf", "drawtext=text='%{pts}'"], "out.mp4"),
        ),
        (
            "enable=",
            one(&["-vf", "hflip=enable='gt(t,1)'"], "out.mp4"),
        ),
        ("no video", one(&["-vn"], "out.m4a")),
        ("gif", one(&[], "out.gif")),
        (
            "two inputs",
            task(
                vec![input("a.mp4", &[]), input("b.mp4", &[])],
                vec![output("out.mp4", &[], &[])],
                None,
            ),
        ),
        (
            "input options",
            task(
                vec![input("in.mp4", &["-ss", "5"])],
                vec![output("out.mp4", &[], &[])],
                None,
            ),
        ),
        (
            "maps",
            task(
                vec![input("in.mp4", &[])],
                vec![output("out.mp4", &[], &["0:v"])],
                None,
            ),
        ),
        (
            "two outputs",
            task(
                vec![input("in.mp4", &[])],
                vec![output("a.mp4", &[], &[]), output("b.mp4", &[], &[])],
                None,
            ),
        ),
    ];
    for (what, t) in rows {
        assert!(!splits(&t), "{what}: must not split");
    }
}
