//! The operator's settings, from `host.config()` (the plugin's `config` table as JSON).
//!
//! ```toml
//! [plugins.translator]
//! config = { system_prompt_extra = "Prefer H.265.", max_tokens = 512 }
//! ```
//!
//! An unknown key or a value of the wrong type makes every call refuse, naming the key, rather
//! than running with settings the operator did not mean.

use serde_json::Value;

/// Tokens the model may spend on one answer when the operator does not say.
pub const DEFAULT_MAX_TOKENS: u32 = 512;
/// Bounds for `max_tokens`.
pub const MAX_TOKENS_RANGE: std::ops::RangeInclusive<u64> = 16..=32768;
/// Longest `system_prompt_extra`, in bytes.
pub const MAX_EXTRA_BYTES: usize = 8192;

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Appended to the system message (house rules: preferred codecs, naming, …).
    pub system_prompt_extra: Option<String>,
    pub max_tokens: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            system_prompt_extra: None,
            max_tokens: DEFAULT_MAX_TOKENS,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    /// The key at fault (`config` when the whole value is).
    pub key: String,
    pub message: String,
}

fn error(key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError {
        key: key.to_string(),
        message: message.into(),
    }
}

impl Config {
    pub fn from_json(text: &str) -> Result<Config, ConfigError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| error("config", format!("the config is not JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(error("config", "the config must be a table"));
        };
        let mut config = Config::default();
        for (key, value) in &map {
            match key.as_str() {
                "system_prompt_extra" => match value {
                    Value::String(s) if s.len() <= MAX_EXTRA_BYTES => {
                        let s = s.trim();
                        config.system_prompt_extra = (!s.is_empty()).then(|| s.to_string());
                    }
                    Value::String(_) => {
                        return Err(error(
                            key,
                            format!("system_prompt_extra is longer than {MAX_EXTRA_BYTES} bytes"),
                        ));
                    }
                    _ => return Err(error(key, "system_prompt_extra must be a string")),
                },
                "max_tokens" => match value.as_u64() {
                    Some(n) if MAX_TOKENS_RANGE.contains(&n) => config.max_tokens = n as u32,
                    _ => {
                        return Err(error(
                            key,
                            format!(
                                "max_tokens must be an integer from {} to {}",
                                MAX_TOKENS_RANGE.start(),
                                MAX_TOKENS_RANGE.end()
                            ),
                        ));
                    }
                },
                other => {
                    return Err(error(
                        other,
                        format!(
                            "unknown config key '{}' (known: system_prompt_extra, max_tokens)",
                            crate::show(other, 60)
                        ),
                    ));
                }
            }
        }
        Ok(config)
    }
}
