//! Test fixture: the default webhook formatter as it was built against WIT 0.1.0 (positional
//! outcome, no `configure`), kept so the host is shown to load and call 0.1.0 components.

wit_bindgen::generate!({
    path: "../../../wit",
    world: "webhook-formatter",
});

use exports::mediaforge::plugin::format::{CallbackRequest, Guest, JobEvent, Outcome};
use serde_json::{Value, json};

struct Formatter;

impl Guest for Formatter {
    fn format_event(event: JobEvent) -> Result<CallbackRequest, String> {
        Ok(CallbackRequest {
            content_type: "application/json".into(),
            body: payload(&event).to_string(),
            headers: Vec::new(),
        })
    }
}

/// `{job_id, status:"completed", result, usage}` or `{job_id, status:"failed", error}`.
pub fn payload(event: &JobEvent) -> Value {
    match &event.outcome {
        Outcome::Completed((files, usage)) => json!({
            "job_id": event.job_id,
            "status": "completed",
            "result": files.iter().map(|f| json!({
                "file_name": f.file_name,
                "size_bytes": f.size_bytes,
                "download_url": f.download_url,
            })).collect::<Vec<_>>(),
            "usage": {
                "time_sec": usage.time_sec,
                "input_size_gb": usage.input_size_gb,
                "output_size_gb": usage.output_size_gb,
                "gb_sec": usage.gb_sec,
            },
        }),
        Outcome::Failed(error) => json!({
            "job_id": event.job_id,
            "status": "failed",
            "error": error,
        }),
    }
}

export!(Formatter);
