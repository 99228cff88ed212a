//! A webhook formatter built against an edited copy of `wit/plugin.wit`: `callback-request` has
//! one field more (`priority`), the version line unchanged. Its export names match the host's,
//! its types do not, so `mediaforge plugin check` and start-up must refuse it, naming the record.

wit_bindgen::generate!({
    inline: "
        package mediaforge:plugin@0.1.0;

        interface format {
            record output-file { file-name: string, size-bytes: u64, download-url: string }
            record usage { time-sec: f64, input-size-gb: f64, output-size-gb: f64, gb-sec: f64 }
            variant outcome { completed(tuple<list<output-file>, usage>), failed(string) }
            record job-event {
                event-id: string,
                job-id: string,
                outcome: outcome,
                occurred-at: string,
                webhook-url: string,
            }
            record header { name: string, value: string }
            record callback-request {
                content-type: string,
                body: string,
                headers: list<header>,
                priority: u8,
            }
            format-event: func(event: job-event) -> result<callback-request, string>;
        }

        world webhook-formatter {
            export format;
        }
    ",
    world: "webhook-formatter",
});

use exports::mediaforge::plugin::format::{CallbackRequest, Guest, JobEvent};

struct ChangedWit;

impl Guest for ChangedWit {
    fn format_event(event: JobEvent) -> Result<CallbackRequest, String> {
        Ok(CallbackRequest {
            content_type: "text/plain".into(),
            body: event.job_id,
            headers: Vec::new(),
            priority: 1,
        })
    }
}

export!(ChangedWit);
