//! The plugin's settings, read from the host's `config()` JSON. Unknown keys and bad values are
//! errors rather than ignored: a typo in `denied_filters` must not silently allow a filter.

use serde::Deserialize;

use crate::policy::{self, OptSpec, Scope, SpecKind, Value};

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Extra options that take one value (`"-cq"`), allowed before inputs and outputs, with
    /// stream specifiers; values limited to letters, digits and `_ . + : = , -`.
    pub extra_allowed_options: Vec<String>,
    /// Extra options that take no value (`"-foo"`).
    pub extra_allowed_flags: Vec<String>,
    /// Options to refuse although the built-in table allows them (`"-threads"`).
    pub denied_options: Vec<String>,
    /// Filters to refuse although the built-in table allows them (`"drawtext"`).
    pub denied_filters: Vec<String>,
    /// Largest width or height a task may ask for (scale, pad, sizes of generated video).
    pub max_dimension: u32,
    /// Longest media a filter may generate from nothing (sources, padding), in seconds.
    pub max_duration: f64,
    /// Highest repeat count (`-stream_loop`, `loop`, `aloop`, `movie` loop).
    pub max_loop: u32,
    /// Highest `-threads` value.
    pub max_threads: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            extra_allowed_options: Vec::new(),
            extra_allowed_flags: Vec::new(),
            denied_options: Vec::new(),
            denied_filters: Vec::new(),
            max_dimension: 8192,
            max_duration: 3600.0,
            max_loop: 100,
            max_threads: 16,
        }
    }
}

const EXTRA_VALUE: OptSpec = OptSpec {
    name: "",
    scope: Scope::Both,
    spec: SpecKind::Stream,
    value: Value::Plain,
    muxers: &[],
    what: "allowed by the operator",
};
const EXTRA_FLAG: OptSpec = OptSpec {
    value: Value::Flag,
    ..EXTRA_VALUE
};

impl Config {
    /// Parses and checks the host's JSON (`"{}"` gives the defaults).
    pub fn from_json(text: &str) -> Result<Config, String> {
        let text = if text.trim().is_empty() { "{}" } else { text };
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("invalid plugin config: {e}"))?;
        if !value.is_object() {
            return Err("invalid plugin config: expected a JSON object".into());
        }
        let config: Config =
            serde_json::from_value(value).map_err(|e| format!("invalid plugin config: {e}"))?;
        config.validate()?;
        Ok(config)
    }

    /// Checks beyond the types: option and filter names, ranges.
    pub fn validate(&self) -> Result<(), String> {
        let option_name = |raw: &String| -> Result<(), String> {
            let name = raw
                .strip_prefix('-')
                .ok_or(format!("config: option '{raw}' must start with '-'"))?;
            let ok = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !ok {
                return Err(format!("config: '{raw}' is not an option name"));
            }
            Ok(())
        };
        for raw in self
            .extra_allowed_options
            .iter()
            .chain(&self.extra_allowed_flags)
        {
            option_name(raw)?;
            let name = &raw[1..];
            // Options that read or write files, or hand control to the tenant, stay refused.
            if let Some(why) = policy::refused_option(name) {
                return Err(format!("config: '{raw}' cannot be allowed: {why}"));
            }
            if name.starts_with('/') || policy::OPTIONS.iter().any(|o| o.name == name) {
                return Err(format!("config: '{raw}' is built in; no need to allow it"));
            }
        }
        for raw in &self.denied_options {
            option_name(raw)?;
        }
        for name in &self.denied_filters {
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!("config: '{name}' is not a filter name"));
            }
        }
        if !(16..=65_536).contains(&self.max_dimension) {
            return Err("config: max_dimension must be from 16 to 65536".into());
        }
        if !(self.max_duration >= 1.0 && self.max_duration <= 86_400.0) {
            return Err("config: max_duration must be from 1 to 86400 seconds".into());
        }
        if self.max_loop > 100_000 {
            return Err("config: max_loop must be at most 100000".into());
        }
        if !(1..=256).contains(&self.max_threads) {
            return Err("config: max_threads must be from 1 to 256".into());
        }
        Ok(())
    }

    /// The table entry for an option name (without `-`) in the given place, if allowed.
    pub fn option(&self, base: &str, input_side: bool) -> Option<OptSpec> {
        let dashed = format!("-{base}");
        if self.denied_options.contains(&dashed) {
            return None;
        }
        let fits = |o: &&OptSpec| match o.scope {
            Scope::Input => input_side,
            Scope::Output => !input_side,
            Scope::Both | Scope::Global | Scope::Strip => true,
        };
        // Prefer the entry for this side; fall back to one for the other side, so the caller
        // can say "only before an output".
        let built_in = policy::OPTIONS.iter().filter(|o| o.name == base);
        if let Some(found) = built_in
            .clone()
            .find(fits)
            .or_else(|| built_in.clone().next())
        {
            return Some(*found);
        }
        if self.extra_allowed_options.contains(&dashed) {
            return Some(EXTRA_VALUE);
        }
        if self.extra_allowed_flags.contains(&dashed) {
            return Some(EXTRA_FLAG);
        }
        None
    }

    pub fn filter_denied(&self, name: &str) -> bool {
        self.denied_filters.iter().any(|f| f == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_keys() {
        assert_eq!(Config::from_json("{}").unwrap(), Config::default());
        assert_eq!(Config::from_json("").unwrap(), Config::default());
        let c = Config::from_json(r#"{"extra_allowed_options":["-cq"],"denied_filters":["drawtext"],"max_dimension":4096}"#).unwrap();
        assert_eq!(c.max_dimension, 4096);
        assert!(c.option("cq", false).is_some());
        assert!(c.filter_denied("drawtext"));
    }

    #[test]
    fn refuses_bad_config() {
        for bad in [
            r#"{"denied_filter":["x"]}"#,
            r#"{"extra_allowed_options":["-filter_script"]}"#,
            r#"{"extra_allowed_flags":["-dump_attachment"]}"#,
            r#"{"extra_allowed_options":["cq"]}"#,
            r#"{"max_dimension":0}"#,
            r#"{"max_threads":"many"}"#,
            "[]",
        ] {
            assert!(Config::from_json(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn denied_options_win() {
        let c = Config::from_json(r#"{"denied_options":["-threads"]}"#).unwrap();
        assert!(c.option("threads", false).is_none());
        assert!(c.option("crf", false).is_some());
    }
}
