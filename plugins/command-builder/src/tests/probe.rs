//! Probe configurations (POST /ffprobe/analyze) and the ffprobe arguments they become, or why not.

use crate::ProbeConfig;
use crate::probe::build_probe;

fn list(items: &[&str]) -> Option<Vec<String>> {
    Some(items.iter().map(|s| s.to_string()).collect())
}

fn empty() -> ProbeConfig {
    ProbeConfig {
        format: None,
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
    }
}

fn some(s: &str) -> Option<String> {
    Some(s.to_string())
}

#[test]
fn allowed_probes() {
    let rows: Vec<(&str, ProbeConfig, Vec<&str>)> = vec![
        (
            "whole format",
            ProbeConfig {
                format: list(&[]),
                ..empty()
            },
            vec!["-show_entries", "format"],
        ),
        (
            "chosen fields and a tag",
            ProbeConfig {
                format: list(&["duration", "size"]),
                streams: list(&[
                    "codec_name",
                    "width",
                    "tags:language",
                    "disposition:default",
                ]),
                ..empty()
            },
            vec![
                "-show_entries",
                "format=duration,size:stream=codec_name,width:stream_tags=language:stream_disposition=default",
            ],
        ),
        (
            "all tags, TAG: form",
            ProbeConfig {
                format: list(&["tags"]),
                chapters: list(&["start_time", "TAG:title"]),
                ..empty()
            },
            vec![
                "-show_entries",
                "format_tags:chapter=start_time:chapter_tags=title",
            ],
        ),
        (
            "packets need select_streams; #N shorthand",
            ProbeConfig {
                packets: list(&[]),
                select_streams: some("v:0"),
                read_intervals: some("#500"),
                ..empty()
            },
            vec![
                "-select_streams",
                "v:0",
                "-read_intervals",
                "%+#500",
                "-show_entries",
                "packet",
            ],
        ),
        (
            "keyframes only",
            ProbeConfig {
                frames: list(&["pts_time", "pict_type", "side_data_list"]),
                select_streams: some("v"),
                skip_frame: some("nokey"),
                read_intervals: some("0%+10,00:01:00%+#5"),
                ..empty()
            },
            vec![
                "-select_streams",
                "v",
                "-read_intervals",
                "0%+10,00:01:00%+#5",
                "-skip_frame",
                "nokey",
                "-show_entries",
                "frame=pts_time,pict_type:frame_side_data_list",
            ],
        ),
        (
            "count frames, limits",
            ProbeConfig {
                streams: list(&["nb_read_frames"]),
                count_frames: Some(true),
                analyzeduration: some("10s"),
                probesize: some("10M"),
                select_streams: some("p:1:a"),
                ..empty()
            },
            vec![
                "-select_streams",
                "p:1:a",
                "-count_frames",
                "-analyzeduration",
                "10000000",
                "-probesize",
                "10485760",
                "-show_entries",
                "stream=nb_read_frames",
            ],
        ),
        (
            "units",
            ProbeConfig {
                analyzeduration: some("500ms"),
                probesize: some("1024k"),
                ..empty()
            },
            vec!["-analyzeduration", "500000", "-probesize", "1048576"],
        ),
        (
            "plain numbers",
            ProbeConfig {
                analyzeduration: some("10"),
                probesize: some("5000000"),
                ..empty()
            },
            vec!["-analyzeduration", "10000000", "-probesize", "5000000"],
        ),
        (
            "error section",
            ProbeConfig {
                format: list(&[]),
                error: list(&[]),
                ..empty()
            },
            vec!["-show_entries", "format:error"],
        ),
        (
            "error fields",
            ProbeConfig {
                error: list(&["code", "string"]),
                ..empty()
            },
            vec!["-show_entries", "error=code,string"],
        ),
        (
            "programs",
            ProbeConfig {
                programs: list(&["program_id", "tags"]),
                ..empty()
            },
            vec!["-show_entries", "program=program_id:program_tags"],
        ),
        ("nothing asked", empty(), vec![]),
    ];
    for (name, probe, want) in rows {
        let cmd = build_probe(&probe).unwrap_or_else(|r| panic!("{name}: {}", r.message));
        assert_eq!(cmd.args, want, "{name}");
        assert!(!cmd.decisions.is_empty(), "{name}: no decisions");
    }
}

#[test]
fn refused_probes() {
    let rows: Vec<(&str, ProbeConfig, &str)> = vec![
        (
            "frames without streams",
            ProbeConfig {
                frames: list(&[]),
                ..empty()
            },
            "select_streams is required when requesting frames or packets",
        ),
        (
            "packets without streams",
            ProbeConfig {
                packets: list(&["pts"]),
                ..empty()
            },
            "select_streams is required when requesting frames or packets",
        ),
        (
            "bad stream spec",
            ProbeConfig {
                select_streams: some("v:0 -i /etc/passwd"),
                ..empty()
            },
            "select_streams is not valid",
        ),
        (
            "bad interval",
            ProbeConfig {
                read_intervals: some("10%abc"),
                ..empty()
            },
            "read_intervals is not valid",
        ),
        (
            "bad skip_frame",
            ProbeConfig {
                skip_frame: some("everything"),
                ..empty()
            },
            "skip_frame 'everything' is not valid",
        ),
        (
            "analysis too long",
            ProbeConfig {
                analyzeduration: some("120s"),
                ..empty()
            },
            "above the limit of 60 seconds",
        ),
        (
            "probe too big",
            ProbeConfig {
                probesize: some("100M"),
                ..empty()
            },
            "probesize '100M' is above the limit of 50 MB (52428800 bytes)",
        ),
        (
            "probesize garbage",
            ProbeConfig {
                probesize: some("lots"),
                ..empty()
            },
            "probesize 'lots' is not valid",
        ),
        (
            "field injection",
            ProbeConfig {
                format: list(&["duration:stream=codec_name"]),
                ..empty()
            },
            "Field 'duration:stream=codec_name' in format is not valid",
        ),
        (
            "field with comma",
            ProbeConfig {
                streams: list(&["codec_name,width"]),
                ..empty()
            },
            "is not valid",
        ),
        (
            "field path",
            ProbeConfig {
                format: list(&["../x"]),
                ..empty()
            },
            "is not valid",
        ),
        (
            "bad tag",
            ProbeConfig {
                format: list(&["tags:a=b"]),
                ..empty()
            },
            "tag names",
        ),
    ];
    for (name, probe, want) in rows {
        let err = build_probe(&probe).expect_err(name);
        assert!(err.message.contains(want), "{name}: {}", err.message);
    }
    // The exact wording the API's clients match on.
    let err = build_probe(&ProbeConfig {
        frames: list(&[]),
        ..empty()
    })
    .unwrap_err();
    assert_eq!(
        err.message,
        "select_streams is required when requesting frames or packets"
    );
}
