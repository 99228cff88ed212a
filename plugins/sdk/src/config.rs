//! Strict typed config: the operator's `config` table, which the host hands over as a JSON
//! object, read into the plugin's own type. Unknown keys must be refused, so a typo is reported
//! rather than silently ignored: give the type `#[serde(deny_unknown_fields)]` (and `default`
//! for optional keys).

use serde::Deserialize;
use serde::de::DeserializeOwned;

/// The config of a plugin that has none: any key is an error.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoConfig {}

/// Reads the host's config JSON (`""` and `"{}"`: no keys) into `T`. The error is one line for
/// the operator, e.g. ``config: unknown field `chanel`, expected `channel` ``.
pub fn parse_config<T: DeserializeOwned>(json: &str) -> Result<T, String> {
    let json = if json.trim().is_empty() { "{}" } else { json };
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("config is not JSON: {e}"))?;
    if !value.is_object() {
        return Err("config must be a table".into());
    }
    serde_json::from_value(value).map_err(|e| {
        // serde_json's position is that of its own re-encoding: no help to the operator.
        let text = e.to_string();
        let text = text
            .rsplit_once(" at line ")
            .map_or(text.as_str(), |(t, _)| t);
        format!("config: {text}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields, default)]
    struct Chat {
        channel: String,
    }

    impl Default for Chat {
        fn default() -> Self {
            Chat {
                channel: "#media".into(),
            }
        }
    }

    #[test]
    fn keys_are_read_and_defaulted() {
        let chat: Chat = parse_config(r##"{"channel":"#ops"}"##).unwrap();
        assert_eq!(chat.channel, "#ops");
        assert_eq!(parse_config::<Chat>("{}").unwrap(), Chat::default());
        assert_eq!(parse_config::<Chat>("").unwrap(), Chat::default());
    }

    #[test]
    fn unknown_keys_and_bad_values_are_one_line() {
        let e = parse_config::<Chat>(r#"{"chanel":"x"}"#).unwrap_err();
        assert_eq!(e, "config: unknown field `chanel`, expected `channel`");
        let e = parse_config::<Chat>(r#"{"channel":3}"#).unwrap_err();
        assert!(e.starts_with("config: invalid type: integer `3`"), "{e}");
        assert!(!e.contains("line"), "{e}");
        let e = parse_config::<NoConfig>(r#"{"x":1}"#).unwrap_err();
        assert!(e.contains("unknown field `x`"), "{e}");
        assert_eq!(
            parse_config::<Chat>("[1]").unwrap_err(),
            "config must be a table"
        );
    }
}
