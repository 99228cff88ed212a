use serde_json::{Value, json};

use super::*;

/// The SDK's sample completed event (`docs/plugins/samples/format-event.json`).
fn completed() -> JobEvent {
    mediaforge_plugin::fixtures::completed_event()
}

fn failed() -> JobEvent {
    mediaforge_plugin::fixtures::failed_event()
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
            "id": "evt_job_1_completed",
            "source": "/mediaforge",
            "type": "com.mediaforge.job.completed",
            "subject": "job_1",
            "time": "2026-01-01T12:00:00Z",
            "mediaforgeaccount": "acct_1",
            "mediaforgeattempt": 1,
            "datacontenttype": "application/json",
            "data": {
                "job_id": "job_1",
                "status": "completed",
                "result": [{
                    "file_name": "thumb.png",
                    "size_bytes": 20480,
                    "download_url": "https://media.example.com/dl/thumb.png?sig=abc",
                }],
                "usage": {
                    "time_sec": 1.25,
                    "input_size_gb": 0.001,
                    "output_size_gb": 0.00002,
                    "gb_sec": 0.00125,
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
            "id": "evt_job_2_failed",
            "source": "/mediaforge",
            "type": "com.mediaforge.job.failed",
            "subject": "job_2",
            "time": "2026-01-01T12:00:00Z",
            "mediaforgeaccount": "acct_1",
            "mediaforgeattempt": 2,
            "datacontenttype": "application/json",
            "data": {
                "job_id": "job_2",
                "status": "failed",
                "error": "ffmpeg exited with status 1",
            },
        })
    );
}

#[test]
fn completed_with_no_files_has_empty_result() {
    let mut event = completed();
    if let Outcome::Completed(done) = &mut event.outcome {
        done.files.clear();
    }
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
    assert_eq!(
        err,
        "config: unknown field `sourse`, expected `source` or `type_prefix`"
    );
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
