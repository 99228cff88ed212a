//! The default webhook formatter: the callback payloads the README documents, as JSON, with no
//! extra headers. It takes no config (any key stops start-up).

use mediaforge_plugin::serde_json::{Value, json};
use mediaforge_plugin::{CallbackRequest, JobEvent, NoConfig, Outcome, WebhookFormatter};

pub struct Formatter;

impl WebhookFormatter for Formatter {
    type Config = NoConfig;

    fn format_event(_: &NoConfig, event: JobEvent) -> Result<CallbackRequest, String> {
        Ok(CallbackRequest {
            content_type: "application/json".into(),
            body: payload(&event).to_string(),
            headers: Vec::new(),
        })
    }
}

mediaforge_plugin::export_webhook_formatter!(Formatter);

/// `{job_id, status:"completed", result, usage}` or `{job_id, status:"failed", error}`.
pub fn payload(event: &JobEvent) -> Value {
    match &event.outcome {
        Outcome::Completed(done) => json!({
            "job_id": event.job_id,
            "status": "completed",
            "result": done.files.iter().map(|f| json!({
                "file_name": f.file_name,
                "size_bytes": f.size_bytes,
                "download_url": f.download_url,
            })).collect::<Vec<_>>(),
            "usage": {
                "time_sec": done.usage.time_sec,
                "input_size_gb": done.usage.input_size_gb,
                "output_size_gb": done.usage.output_size_gb,
                "gb_sec": done.usage.gb_sec,
            },
        }),
        Outcome::Failed(failure) => json!({
            "job_id": event.job_id,
            "status": "failed",
            "error": failure.message,
        }),
    }
}

#[cfg(test)]
mod tests {
    use mediaforge_plugin::fixtures;

    #[test]
    fn payloads_follow_the_spec() {
        let done = super::payload(&fixtures::completed_event());
        assert_eq!(done["status"], "completed");
        assert_eq!(done["result"][0]["file_name"], "thumb.png");
        assert_eq!(done["usage"]["time_sec"], 1.25);
        let failed = super::payload(&fixtures::failed_event());
        assert_eq!(failed["error"], "ffmpeg exited with status 1");
        assert!(failed.get("details").is_none());
    }
}
