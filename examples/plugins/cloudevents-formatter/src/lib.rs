//! An example webhook formatter: turns Mediaforge job events into CloudEvents 1.0 requests in
//! structured mode (the whole event, attributes and data, is the JSON body).
//!
//! The logic is plain Rust ([`Config::from_json`], [`cloud_event`], [`format_event`]) and is
//! tested natively on the SDK's sample events; the SDK (`mediaforge-plugin`) exports it.

use mediaforge_plugin::serde::Deserialize;
use serde_json::{Map, Value, json};

pub use mediaforge_plugin::{CallbackRequest, JobEvent, Outcome, OutputFile, Usage};

/// The content type of a structured-mode CloudEvent in JSON.
pub const CONTENT_TYPE: &str = "application/cloudevents+json; charset=utf-8";

/// The `source` attribute when the operator sets none.
pub const DEFAULT_SOURCE: &str = "/mediaforge";

/// What goes before `.job.completed` and `.job.failed` when the operator sets nothing.
pub const DEFAULT_TYPE_PREFIX: &str = "com.mediaforge";

/// The plugin's settings: the `config` table of `[plugins.webhook_formatter]`. Unknown keys
/// are errors, so a misspelt `sourse` is reported instead of silently ignored.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(crate = "mediaforge_plugin::serde", default, deny_unknown_fields)]
pub struct Config {
    /// The CloudEvents `source` attribute, a URI reference naming this Mediaforge instance.
    pub source: String,
    /// The reverse-DNS prefix of the CloudEvents `type` attribute.
    pub type_prefix: String,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            source: DEFAULT_SOURCE.into(),
            type_prefix: DEFAULT_TYPE_PREFIX.into(),
        }
    }
}

impl Config {
    /// Reads the host's JSON object (`"{}"` gives the defaults) and checks the values.
    pub fn from_json(text: &str) -> Result<Config, String> {
        let config: Config = mediaforge_plugin::parse_config(text)?;
        config.check()?;
        Ok(config)
    }

    fn check(&self) -> Result<(), String> {
        for (key, value) in [("source", &self.source), ("type_prefix", &self.type_prefix)] {
            if value.trim().is_empty() {
                return Err(format!("config: `{key}` must not be empty"));
            }
        }
        Ok(())
    }
}

/// The plugin, exported by the SDK; its config is checked when the host loads it.
pub struct CloudEvents;

impl mediaforge_plugin::WebhookFormatter for CloudEvents {
    type Config = Config;

    fn check_config(config: &Config) -> Result<(), String> {
        config.check()
    }

    fn format_event(config: &Config, event: JobEvent) -> Result<CallbackRequest, String> {
        Ok(request(&event, config))
    }
}

mediaforge_plugin::export_webhook_formatter!(CloudEvents);

/// The CloudEvents `type` attribute for an outcome: `<prefix>.job.completed` or
/// `<prefix>.job.failed`.
pub fn event_type(outcome: &Outcome, config: &Config) -> String {
    let what = match outcome {
        Outcome::Completed(_) => "completed",
        Outcome::Failed(_) => "failed",
    };
    format!("{}.job.{what}", config.type_prefix)
}

/// The event's data: the default formatter's payload (plugins/webhook-formatter).
pub fn data(event: &JobEvent) -> Value {
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

/// The whole CloudEvent: the context attributes and the data.
pub fn cloud_event(event: &JobEvent, config: &Config) -> Value {
    let mut out = Map::new();
    out.insert("specversion".into(), "1.0".into());
    out.insert("id".into(), event.event_id.clone().into());
    out.insert("source".into(), config.source.clone().into());
    out.insert("type".into(), event_type(&event.outcome, config).into());
    out.insert("subject".into(), event.job_id.clone().into());
    out.insert("time".into(), event.occurred_at.clone().into());
    // Extension attributes (lower-case letters and digits, CloudEvents 1.0 section 3.1.1).
    out.insert("mediaforgeaccount".into(), event.account_id.clone().into());
    out.insert("mediaforgeattempt".into(), event.attempt.into());
    out.insert("datacontenttype".into(), "application/json".into());
    out.insert("data".into(), data(event));
    Value::Object(out)
}

/// The callback request for `event`. Structured mode needs no `ce-*` headers, so none are
/// returned.
pub fn request(event: &JobEvent, config: &Config) -> CallbackRequest {
    CallbackRequest {
        content_type: CONTENT_TYPE.into(),
        body: cloud_event(event, config).to_string(),
        headers: Vec::new(),
    }
}

/// The callback request for `event`, given the host's config JSON.
pub fn format_event(event: &JobEvent, config_json: &str) -> Result<CallbackRequest, String> {
    Ok(request(event, &Config::from_json(config_json)?))
}

#[cfg(test)]
mod tests;
