use serde_json::{Value, json};

use super::*;

fn completed() -> JobEvent {
    JobEvent {
        event_id: "evt_01".into(),
        job_id: "job_42".into(),
        outcome: Outcome::Completed((
            vec![OutputFile {
                file_name: "out.mp4".into(),
                size_bytes: 1_048_576,
                download_url: "https://media.example.com/d/out.mp4?sig=abc".into(),
            }],
            Usage {
                time_sec: 12.5,
                input_size_gb: 0.25,
                output_size_gb: 0.125,
                gb_sec: 4.6875,
            },
        )),
        occurred_at: "2025-01-02T03:04:05Z".into(),
        webhook_url: "https://hooks.example.com/mediaforge".into(),
    }
}

fn failed() -> JobEvent {
    JobEvent {
        event_id: "evt_02".into(),
        job_id: "job_43".into(),
        outcome: Outcome::Failed("ffmpeg exited with status 1".into()),
        occurred_at: "2025-01-02T03:04:06Z".into(),
        webhook_url: "https://hooks.example.com/mediaforge".into(),
    }
}

fn body(request: &CallbackRequest) -> Value {
    serde_json::from_str(&request.body).expect("body is JSON")
}

#[test]
fn completed_event() {
    let request = format_event(&completed(), "{}").unwrap();
    assert_eq!(
        request.content_type,
        "application/cloudevents+json; charset=utf-8"
    );
    assert!(request.headers.is_empty());
    assert_eq!(
        body(&request),
        json!({
            "specversion": "1.0",
            "id": "evt_01",
            "source": "/mediaforge",
            "type": "com.mediaforge.job.completed",
            "subject": "job_42",
            "time": "2025-01-02T03:04:05Z",
            "datacontenttype": "application/json",
            "data": {
                "job_id": "job_42",
                "status": "completed",
                "result": [{
                    "file_name": "out.mp4",
                    "size_bytes": 1_048_576,
                    "download_url": "https://media.example.com/d/out.mp4?sig=abc",
                }],
                "usage": {
                    "time_sec": 12.5,
                    "input_size_gb": 0.25,
                    "output_size_gb": 0.125,
                    "gb_sec": 4.6875,
                },
            },
        })
    );
}

#[test]
fn failed_event() {
    let request = format_event(&failed(), "{}").unwrap();
    assert_eq!(request.content_type, CONTENT_TYPE);
    assert!(request.headers.is_empty());
    assert_eq!(
        body(&request),
        json!({
            "specversion": "1.0",
            "id": "evt_02",
            "source": "/mediaforge",
            "type": "com.mediaforge.job.failed",
            "subject": "job_43",
            "time": "2025-01-02T03:04:06Z",
            "datacontenttype": "application/json",
            "data": {
                "job_id": "job_43",
                "status": "failed",
                "error": "ffmpeg exited with status 1",
            },
        })
    );
}

#[test]
fn completed_with_no_files_has_empty_result() {
    let mut event = completed();
    event.outcome = Outcome::Completed((
        Vec::new(),
        Usage {
            time_sec: 0.0,
            input_size_gb: 0.0,
            output_size_gb: 0.0,
            gb_sec: 0.0,
        },
    ));
    let data = &body(&format_event(&event, "{}").unwrap())["data"];
    assert_eq!(data["result"], json!([]));
}

#[test]
fn config_defaults() {
    assert_eq!(Config::from_json("{}").unwrap(), Config::default());
    assert_eq!(
        Config::default(),
        Config {
            source: "/mediaforge".into(),
            type_prefix: "com.mediaforge".into(),
        }
    );
}

#[test]
fn custom_source() {
    let config = r#"{"source":"https://media.example.com"}"#;
    let request = format_event(&completed(), config).unwrap();
    let body = body(&request);
    assert_eq!(body["source"], "https://media.example.com");
    assert_eq!(body["type"], "com.mediaforge.job.completed");
}

#[test]
fn custom_type_prefix() {
    let config = r#"{"source":"/media","type_prefix":"org.example.media"}"#;
    let body = body(&format_event(&failed(), config).unwrap());
    assert_eq!(body["source"], "/media");
    assert_eq!(body["type"], "org.example.media.job.failed");
}

#[test]
fn unknown_key_refused() {
    let err = format_event(&completed(), r#"{"sourse":"/typo"}"#).unwrap_err();
    assert!(err.contains("unknown config key `sourse`"), "{err}");
}

#[test]
fn bad_values_refused() {
    for config in [
        r#"{"source":""}"#,
        r#"{"source":42}"#,
        r#"{"type_prefix":null}"#,
        r#"["source"]"#,
        "not json",
    ] {
        assert!(Config::from_json(config).is_err(), "{config} accepted");
    }
}
