//! A recipe's `params` checked against the JSON Schema it publishes (the `jsonschema` crate),
//! before the plugin sees them: the first error, naming the parameter.

use serde_json::Value;

use crate::error::{AppError, AppResult};

/// The schema, compiled; `Err`: the plugin published one that does not compile.
pub fn validator(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::validator_for(schema).map_err(|e| e.to_string())
}

/// `params` against `schema`, or the 400 naming the first parameter that does not fit.
pub fn check(recipe: &str, validator: &jsonschema::Validator, params: &Value) -> AppResult<()> {
    let Some(error) = validator.iter_errors(params).next() else {
        return Ok(());
    };
    let at = error.instance_path().to_string();
    let at = at.trim_start_matches('/');
    let why = if at.is_empty() {
        error.to_string()
    } else {
        format!("{at}: {error}")
    };
    Err(AppError::RecipeParams {
        recipe: recipe.to_string(),
        why,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_message_names_the_parameter() {
        let schema = json!({
            "type": "object",
            "properties": {"rungs": {"type": "array", "items": {"type": "integer", "maximum": 2160}}},
            "additionalProperties": false,
        });
        let v = validator(&schema).unwrap();
        assert!(check("hls", &v, &json!({"rungs": [720]})).is_ok());
        let e = check("hls", &v, &json!({"rungs": [720, 5000]})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid params for recipe 'hls': rungs/1: 5000 is greater than the maximum of 2160"
        );
        let e = check("hls", &v, &json!({"rung": 1}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("'rung'"), "{e}");
    }
}
