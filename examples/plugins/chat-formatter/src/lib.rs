//! A webhook formatter that posts a one-line chat message: `{"channel": "...", "text": "..."}`.

use mediaforge_plugin::serde::Deserialize;
use mediaforge_plugin::{CallbackRequest, JobEvent, Outcome, WebhookFormatter};
use serde_json::json;

/// `[plugins.webhook_formatter] config = { channel = "#ops" }`; any other key is refused.
#[derive(Deserialize)]
#[serde(crate = "mediaforge_plugin::serde", deny_unknown_fields)]
pub struct Config {
    pub channel: Option<String>,
}

pub struct Chat;

impl WebhookFormatter for Chat {
    type Config = Config;

    fn format_event(config: &Config, event: JobEvent) -> Result<CallbackRequest, String> {
        let text = match &event.outcome {
            Outcome::Completed(done) => format!(
                "job {} completed: {} file(s) in {:.1} s",
                event.job_id,
                done.files.len(),
                done.usage.time_sec
            ),
            Outcome::Failed(failure) => format!("job {} failed: {}", event.job_id, failure.message),
        };
        let channel = config.channel.as_deref().unwrap_or("#media");
        Ok(CallbackRequest::json(
            &json!({ "channel": channel, "text": text }),
        ))
    }
}

mediaforge_plugin::export_webhook_formatter!(Chat);

#[cfg(test)]
mod tests;
