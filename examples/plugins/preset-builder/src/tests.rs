//! Native tests: what each preset expands into, the exact argv after the default policy, the
//! refusals, and (when ffmpeg is installed) that the argv runs and makes what it promises.

use std::path::Path;
use std::process::Command;

use command_builder::config::Config;
use command_builder::{
    FfmpegCommand, JobLayout, Refusal, StagedInput, Task, TaskInput, TaskOutput,
};

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn output(file: &str, options: &[&str], maps: &[&str]) -> TaskOutput {
    TaskOutput {
        file: file.into(),
        options: strings(options),
        maps: strings(maps),
    }
}

fn preset(file: &str, name: &str) -> TaskOutput {
    output(file, &["-mf_preset", name], &[])
}

/// A task over `clip.mp4` in directory `dir1`.
fn task(outputs: Vec<TaskOutput>, filter_complex: Option<&str>) -> Task {
    Task {
        inputs: vec![TaskInput {
            file_path: "dir1/clip.mp4".into(),
            options: Vec::new(),
        }],
        outputs,
        filter_complex: filter_complex.map(str::to_string),
        output_dir_id: None,
    }
}

/// The layout the host makes: input i staged at `<dir>/in/<i>-<name>`, outputs in `<dir>/out`.
fn layout(task: &Task, dir: &str) -> JobLayout {
    JobLayout {
        inputs: task
            .inputs
            .iter()
            .enumerate()
            .map(|(i, input)| {
                let name = input.file_path.rsplit('/').next().unwrap().to_string();
                StagedInput {
                    path: format!("{dir}/in/{i}-{name}"),
                    name,
                }
            })
            .collect(),
        output_dir: format!("{dir}/out"),
    }
}

fn build_in(task: &Task, dir: &str, config: &Config) -> Result<FfmpegCommand, Refusal> {
    crate::build_task(task, &layout(task, dir), config)
}

fn build(task: &Task) -> Result<FfmpegCommand, Refusal> {
    build_in(task, "/job", &Config::default())
}

/// `<global-args> (<input.args> -i <path>)... (<output.args> <path>)...`, as the host lays it out
/// (without its own leading flags).
fn argv(cmd: &FfmpegCommand) -> Vec<String> {
    let mut out = cmd.global_args.clone();
    for i in &cmd.inputs {
        out.extend(i.args.iter().cloned());
        out.extend(["-i".to_string(), i.path.clone()]);
    }
    for o in &cmd.outputs {
        out.extend(o.args.iter().cloned());
        out.push(o.path.clone());
    }
    out
}

fn refused(task: &Task) -> Refusal {
    build(task).expect_err("should be refused")
}

const SPRITE_ARGV: &[&str] = &[
    "-i",
    "/job/in/0-clip.mp4",
    "-vf",
    "fps=1/5,scale=160:-1,tile=5x5",
    "-frames:v",
    "1",
    "-update",
    "1",
    "-q:v",
    "3",
    "-an",
    "-map",
    "0:v:0",
    "/job/out/sprite.jpg",
];

#[test]
fn thumbnail_sprite_expands_to_one_tiled_jpeg() {
    let cmd = build(&task(vec![preset("sprite.jpg", "thumbnail-sprite")], None)).unwrap();
    assert_eq!(argv(&cmd), strings(SPRITE_ARGV));
    let first = &cmd.decisions[0];
    assert_eq!(first.subject, "-mf_preset thumbnail-sprite");
    assert!(first.allowed);
    assert!(first.reason.contains("sprite.jpg"), "{}", first.reason);
    // The default policy judged the expansion: the tile filter has its own decision.
    assert!(cmd.decisions.iter().any(|d| d.subject.contains("tile")));
}

fn rung(name: &str, label: &str, rates: [&str; 4]) -> Vec<String> {
    let [video, maxrate, bufsize, audio] = rates;
    strings(&[
        "-c:v",
        "libx264",
        "-preset",
        "veryfast",
        "-profile:v",
        "main",
        "-pix_fmt",
        "yuv420p",
        "-b:v",
        video,
        "-maxrate",
        maxrate,
        "-bufsize",
        bufsize,
        "-force_key_frames",
        "expr:gte(t,n_forced*4)",
        "-c:a",
        "aac",
        "-b:a",
        audio,
        "-f",
        "hls",
        "-hls_time",
        "4",
        "-hls_playlist_type",
        "vod",
        "-hls_flags",
        "independent_segments",
        "-hls_segment_filename",
        &format!("/job/out/{name}_%03d.ts"),
        "-map",
        label,
        "-map",
        "0:a:0?",
        &format!("/job/out/{name}.m3u8"),
    ])
}

#[test]
fn hls_ladder_expands_to_two_renditions() {
    let cmd = build(&task(vec![preset("stream.m3u8", "hls-ladder")], None)).unwrap();
    let mut expected = strings(&[
        "-filter_complex",
        "[0:v]split=2[mfp_360][mfp_720];[mfp_360]scale=-2:360[mfp_360p];[mfp_720]scale=-2:720[mfp_720p]",
        "-i",
        "/job/in/0-clip.mp4",
    ]);
    expected.extend(rung(
        "stream_360p",
        "[mfp_360p]",
        ["800k", "856k", "1200k", "96k"],
    ));
    expected.extend(rung(
        "stream_720p",
        "[mfp_720p]",
        ["2800k", "2996k", "4200k", "128k"],
    ));
    assert_eq!(argv(&cmd), expected);
    assert_eq!(cmd.decisions[0].subject, "-mf_preset hls-ladder");
    assert!(
        cmd.decisions[0]
            .reason
            .contains("stream_360p.m3u8, stream_720p.m3u8")
    );
}

#[test]
fn tasks_without_presets_are_the_default_policy_unchanged() {
    let t = task(
        vec![output(
            "out.mp4",
            &["-c:v", "libx264", "-crf", "23", "-c:a", "copy"],
            &["0:v", "0:a"],
        )],
        Some("[0:v]scale=640:-2[v]"),
    );
    let ours = build(&t).unwrap();
    let default =
        command_builder::task::build_task(&t, &layout(&t, "/job"), &Config::default()).unwrap();
    assert_eq!(argv(&ours), argv(&default));
    assert_eq!(ours.decisions.len(), default.decisions.len());

    // And the default policy's refusals come through as they are.
    let bad = task(
        vec![output("out.mp4", &["-filter_script", "x.txt"], &[])],
        None,
    );
    let ours = refused(&bad);
    let default =
        command_builder::task::build_task(&bad, &layout(&bad, "/job"), &Config::default())
            .unwrap_err();
    assert_eq!(ours.message, default.message);
}

#[test]
fn presets_mix_with_ordinary_outputs() {
    let t = task(
        vec![
            output("small.mp4", &["-vf", "scale=320:-2"], &[]),
            preset("sheet.JPEG", "thumbnail-sprite"),
            preset("hls.m3u8", "hls-ladder"),
        ],
        None,
    );
    let cmd = build(&t).unwrap();
    let paths: Vec<&str> = cmd.outputs.iter().map(|o| o.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/job/out/small.mp4",
            "/job/out/sheet.JPEG",
            "/job/out/hls_360p.m3u8",
            "/job/out/hls_720p.m3u8"
        ]
    );
    let subjects: Vec<&str> = cmd.decisions[..2]
        .iter()
        .map(|d| d.subject.as_str())
        .collect();
    assert_eq!(
        subjects,
        ["-mf_preset thumbnail-sprite", "-mf_preset hls-ladder"]
    );
}

#[test]
fn unknown_presets_are_refused_with_the_known_ones() {
    let r = refused(&task(vec![preset("out.mp4", "dash-ladder")], None));
    assert_eq!(
        r.message,
        "Unknown preset 'dash-ladder' (output 1): the known presets are hls-ladder, thumbnail-sprite"
    );
    assert_eq!(r.subject.as_deref(), Some("dash-ladder"));
}

#[test]
fn the_preset_option_must_stand_alone_on_an_output() {
    let cases = [
        task(
            vec![output(
                "s.jpg",
                &["-mf_preset", "thumbnail-sprite", "-q:v", "2"],
                &[],
            )],
            None,
        ),
        task(
            vec![output(
                "s.jpg",
                &["-mf_preset", "thumbnail-sprite"],
                &["0:v"],
            )],
            None,
        ),
        task(vec![output("s.jpg", &["-mf_preset"], &[])], None),
        task(
            vec![output("s.jpg", &["-q:v", "2", "-mf_preset"], &[])],
            None,
        ),
        Task {
            inputs: vec![TaskInput {
                file_path: "dir1/clip.mp4".into(),
                options: strings(&["-mf_preset", "hls-ladder"]),
            }],
            outputs: vec![output("out.mp4", &[], &[])],
            filter_complex: None,
            output_dir_id: None,
        },
    ];
    for t in &cases {
        let r = refused(t);
        assert!(
            r.message
                .starts_with("-mf_preset must be an output's only option"),
            "{}",
            r.message
        );
        assert!(r.message.contains("hls-ladder, thumbnail-sprite"));
        assert_eq!(r.subject.as_deref(), Some("-mf_preset"));
    }
    assert!(refused(&cases[4]).message.contains("(input 1)"));
}

#[test]
fn presets_check_their_output_names() {
    for file in ["sprite.png", "sprite_%03d.jpg", ".jpg"] {
        let r = refused(&task(vec![preset(file, "thumbnail-sprite")], None));
        assert!(
            r.message.contains("name the output NAME.jpg"),
            "{file}: {}",
            r.message
        );
    }
    for file in ["stream.mp4", "stream_%d.m3u8", ".m3u8", "m3u8"] {
        let r = refused(&task(vec![preset(file, "hls-ladder")], None));
        assert!(
            r.message.contains("name the output NAME.m3u8"),
            "{file}: {}",
            r.message
        );
    }
}

#[test]
fn one_hls_ladder_per_task_and_not_with_a_filter_complex() {
    let twice = task(
        vec![
            preset("a.m3u8", "hls-ladder"),
            preset("b.m3u8", "hls-ladder"),
        ],
        None,
    );
    assert!(refused(&twice).message.contains("Only one output"));
    let with_graph = task(
        vec![preset("a.m3u8", "hls-ladder")],
        Some("[0:v]scale=640:-2[v]"),
    );
    assert!(refused(&with_graph).message.contains("own filter_complex"));
}

#[test]
fn expansions_obey_the_operators_policy() {
    let config = Config::from_json(r#"{"denied_filters": ["tile"]}"#).unwrap();
    let t = task(vec![preset("sprite.jpg", "thumbnail-sprite")], None);
    let r = build_in(&t, "/job", &config).unwrap_err();
    assert!(r.message.contains("tile"), "{}", r.message);

    let config = Config::from_json(r#"{"max_dimension": 480}"#).unwrap();
    let t = task(vec![preset("stream.m3u8", "hls-ladder")], None);
    let r = build_in(&t, "/job", &config).unwrap_err();
    assert!(r.message.contains("720"), "{}", r.message);
}

#[test]
fn probes_are_the_default_policys() {
    let probe = command_builder::ProbeConfig {
        format: Some(strings(&["duration"])),
        streams: None,
        chapters: None,
        programs: None,
        frames: None,
        packets: None,
        error: None,
        select_streams: None,
        read_intervals: None,
        count_frames: None,
        skip_frame: None,
        analyzeduration: None,
        probesize: None,
    };
    let ours = crate::build_probe(&probe).unwrap();
    let default = command_builder::probe::build_probe(&probe).unwrap();
    assert_eq!(ours.args, default.args);
}

// ---- The argv runs -------------------------------------------------------------------------

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run(tool: &str, args: &[String]) -> String {
    let out = Command::new(tool).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{tool} {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The chosen entries of a file's streams, one line per stream, in ffprobe's own field order.
fn probe(path: &Path, entries: &str) -> String {
    run(
        "ffprobe",
        &strings(&[
            "-v",
            "error",
            "-show_entries",
            entries,
            "-of",
            "csv=p=0",
            path.to_str().unwrap(),
        ]),
    )
}

/// Builds every preset against a real staged `clip.mp4` (10 s, 1280x720, H.264 + AAC, as the
/// black-box tests use) and runs the command with ffmpeg, as the host would.
#[test]
fn preset_commands_run_with_ffmpeg() {
    assert!(
        have("ffmpeg") && have("ffprobe"),
        "ffmpeg and ffprobe are required (make setup installs them)"
    );
    let dir = std::env::temp_dir().join(format!("preset-builder-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("in")).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let clip = dir.join("in/0-clip.mp4");
    run(
        "ffmpeg",
        &strings(&[
            "-nostdin",
            "-loglevel",
            "error",
            "-f",
            "lavfi",
            "-i",
            "testsrc2=d=10:s=1280x720:r=30",
            "-f",
            "lavfi",
            "-i",
            "sine=f=440:d=10:sample_rate=48000",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-ac",
            "2",
            clip.to_str().unwrap(),
        ]),
    );

    let t = task(
        vec![
            preset("sprite.jpg", "thumbnail-sprite"),
            preset("stream.m3u8", "hls-ladder"),
        ],
        None,
    );
    let cmd = build_in(&t, dir.to_str().unwrap(), &Config::default()).unwrap();
    let mut args = strings(&["-nostdin", "-hide_banner", "-loglevel", "error", "-n"]);
    args.extend(argv(&cmd));
    run("ffmpeg", &args);

    let out = dir.join("out");
    assert_eq!(
        probe(&out.join("sprite.jpg"), "stream=codec_name,width,height").trim(),
        "mjpeg,800,450"
    );
    for (h, w) in [(360, 640), (720, 1280)] {
        let playlist = out.join(format!("stream_{h}p.m3u8"));
        let text = std::fs::read_to_string(&playlist).unwrap();
        assert!(text.contains("#EXT-X-PLAYLIST-TYPE:VOD"), "{text}");
        assert!(text.contains("#EXT-X-ENDLIST"), "{text}");
        let segments: Vec<&str> = text.lines().filter(|l| l.ends_with(".ts")).collect();
        assert_eq!(
            segments,
            [0, 1, 2].map(|n| format!("stream_{h}p_{n:03}.ts")),
            "{text}"
        );
        let streams = probe(
            &out.join(segments[0]),
            "stream=codec_type,codec_name,width,height",
        );
        let lines: Vec<&str> = streams.lines().map(str::trim).collect();
        assert!(
            lines.contains(&format!("h264,video,{w},{h}").as_str()),
            "{streams}"
        );
        assert!(
            lines.iter().any(|l| l.starts_with("aac,audio")),
            "{streams}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
