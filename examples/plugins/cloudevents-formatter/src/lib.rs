//! An example webhook formatter: turns Mediaforge job events into CloudEvents 1.0 requests in
//! structured mode (the whole event, attributes and data, is the JSON body).
//!
//! The logic is plain Rust ([`Config::from_json`], [`cloud_event`], [`format_event`]) and is
//! tested natively; only the small `glue` module touches the host, and it is built for
//! WebAssembly alone.

wit_bindgen::generate!({
    path: "../../../wit",
    world: "webhook-formatter",
});

use serde_json::{Map, Value, json};

pub use exports::mediaforge::plugin::format::{
    CallbackRequest, JobEvent, Outcome, OutputFile, Usage,
};

/// The content type of a structured-mode CloudEvent in JSON.
pub const CONTENT_TYPE: &str = "application/cloudevents+json; charset=utf-8";

/// The `source` attribute when the operator sets none.
pub const DEFAULT_SOURCE: &str = "/mediaforge";

/// What goes before `.job.completed` and `.job.failed` when the operator sets nothing.
pub const DEFAULT_TYPE_PREFIX: &str = "com.mediaforge";

/// The plugin's settings: the `config` table of `[plugins.webhook_formatter]`.
#[derive(Clone, Debug, PartialEq)]
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
    /// Reads the host's JSON object (`"{}"` gives the defaults). Unknown keys are errors, so a
    /// misspelt `sourse` is reported instead of silently ignored.
    pub fn from_json(text: &str) -> Result<Config, String> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| format!("cloudevents-formatter: config is not JSON: {e}"))?;
        let Value::Object(table) = value else {
            return Err("cloudevents-formatter: config must be a table".into());
        };
        let mut config = Config::default();
        for (key, value) in &table {
            let slot = match key.as_str() {
                "source" => &mut config.source,
                "type_prefix" => &mut config.type_prefix,
                _ => {
                    return Err(format!(
                        "cloudevents-formatter: unknown config key `{key}` \
                         (known keys: source, type_prefix)"
                    ));
                }
            };
            *slot = match value {
                Value::String(s) if !s.trim().is_empty() => s.clone(),
                _ => {
                    return Err(format!(
                        "cloudevents-formatter: config key `{key}` must be a non-empty string"
                    ));
                }
            };
        }
        Ok(config)
    }
}

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

/// The whole CloudEvent: the context attributes and the data.
pub fn cloud_event(event: &JobEvent, config: &Config) -> Value {
    let mut out = Map::new();
    out.insert("specversion".into(), "1.0".into());
    out.insert("id".into(), event.event_id.clone().into());
    out.insert("source".into(), config.source.clone().into());
    out.insert("type".into(), event_type(&event.outcome, config).into());
    out.insert("subject".into(), event.job_id.clone().into());
    out.insert("time".into(), event.occurred_at.clone().into());
    out.insert("datacontenttype".into(), "application/json".into());
    out.insert("data".into(), data(event));
    Value::Object(out)
}

/// The callback request for `event`, given the host's config JSON. Structured mode needs no
/// `ce-*` headers, so none are returned.
pub fn format_event(event: &JobEvent, config_json: &str) -> Result<CallbackRequest, String> {
    let config = Config::from_json(config_json)?;
    Ok(CallbackRequest {
        content_type: CONTENT_TYPE.into(),
        body: cloud_event(event, &config).to_string(),
        headers: Vec::new(),
    })
}

/// The exported function. Only built for WebAssembly: a native build (the tests) cannot export
/// component names, and has no host to ask for the config.
#[cfg(target_arch = "wasm32")]
mod glue {
    use crate::exports::mediaforge::plugin::format::Guest;
    use crate::mediaforge::plugin::host;
    use crate::{CallbackRequest, JobEvent};

    struct Formatter;

    impl Guest for Formatter {
        fn format_event(event: JobEvent) -> Result<CallbackRequest, String> {
            crate::format_event(&event, &host::config())
        }
    }

    crate::export!(Formatter with_types_in crate);
}

#[cfg(test)]
mod tests;
