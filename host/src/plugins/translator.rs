//! Typed calls into the translator plugin, and the `llm` import made on its behalf.

use std::time::Duration;

use serde_json::json;

use super::types::{CompletionRequest, InputFacts, OfferedRecipe, StreamFacts, Translation};
use super::{LlmAccess, Loaded, PluginError, PluginHost, World, Worlds, wit};
use crate::task::ProbeConfig;

impl PluginHost {
    /// A task or, from a 0.3.0 translator, one of the `offered` recipes.
    pub async fn translate_task(
        &self,
        instructions: &str,
        inputs: &[InputFacts],
        offered: &[OfferedRecipe],
    ) -> Result<Translation, PluginError> {
        let ask = |fallback: bool| {
            let select = Self::translator_or_fallback(fallback);
            let (instructions, inputs) = (instructions.to_string(), inputs.to_vec());
            let offered = offered.to_vec();
            self.call(select, World::Translator, move |t, store| {
                Box::pin(async move {
                    t.translate_task(store, &instructions, &inputs, &offered)
                        .await
                })
            })
        };
        self.or_fallback(ask(false).await, || ask(true)).await
    }

    pub async fn translate_probe(
        &self,
        instructions: &str,
        input: &InputFacts,
    ) -> Result<ProbeConfig, PluginError> {
        let ask = |fallback: bool| {
            let select = Self::translator_or_fallback(fallback);
            let (instructions, input) = (instructions.to_string(), input.clone());
            self.call(select, World::Translator, move |t, store| {
                Box::pin(async move { t.translate_probe(store, &instructions, &input).await })
            })
        };
        self.or_fallback(ask(false).await, || ask(true)).await
    }

    fn translator_or_fallback(fallback: bool) -> fn(&Worlds) -> Option<&Loaded<wit::Translator>> {
        if fallback {
            |w| w.translator_fallback.as_ref()
        } else {
            |w| w.translator.as_ref()
        }
    }

    /// A refusal goes to the fallback translator, when there is one. If the fallback cannot
    /// answer either, the first refusal stands: it says what the offline translator did not
    /// understand, and the fallback's failure (a model endpoint down, say) is the operator's.
    async fn or_fallback<R>(
        &self,
        first: Result<R, PluginError>,
        fallback: impl AsyncFnOnce() -> Result<R, PluginError>,
    ) -> Result<R, PluginError> {
        match first {
            Err(refused @ PluginError::Refused { .. })
                if self.worlds().translator_fallback.is_some() =>
            {
                match fallback().await {
                    Ok(answer) => Ok(answer),
                    Err(e) => {
                        tracing::info!("the fallback translator did not answer either: {e}");
                        Err(refused)
                    }
                }
            }
            other => other,
        }
    }
}

/// One chat-completions call to the operator's endpoint, through the one outbound client.
pub(super) async fn complete(
    access: &LlmAccess,
    request: CompletionRequest,
) -> Result<String, String> {
    let url = format!(
        "{}/chat/completions",
        access.grant.endpoint.trim_end_matches('/')
    );
    let mut body = json!({
        "model": access.grant.model,
        "messages": request.messages.iter().map(|(role, content)| json!({"role": role, "content": content})).collect::<Vec<_>>(),
    });
    if let Some(max) = request.max_tokens {
        body["max_tokens"] = json!(max);
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(schema) = &request.json_schema {
        let schema: serde_json::Value =
            serde_json::from_str(schema).map_err(|e| format!("json-schema: {e}"))?;
        body["response_format"] = json!({
            "type": "json_schema",
            "json_schema": { "name": "answer", "schema": schema, "strict": true },
        });
    }
    let timeout = Duration::from_secs(access.grant.timeout_s);
    let reply = access
        .net
        .post_json(&url, access.api_key.as_deref(), &body, timeout, 1024 * 1024)
        .await
        .map_err(|e| format!("model endpoint: {e}"))?;
    reply["choices"][0]["message"]["content"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| "model endpoint: no message content in the answer".to_string())
}

/// What a translator learns about an input, from ffprobe's JSON (`None`: the name and size only).
pub fn facts_from_probe(name: &str, size: u64, probe: Option<&serde_json::Value>) -> InputFacts {
    let num = |v: &serde_json::Value| -> Option<f64> {
        v.as_f64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
    };
    let rate = |v: &serde_json::Value| -> Option<f64> {
        let (n, d) = v.as_str()?.split_once('/')?;
        let (n, d): (f64, f64) = (n.parse().ok()?, d.parse().ok()?);
        (d > 0.0 && n > 0.0).then_some(n / d)
    };
    let streams = probe
        .and_then(|p| p["streams"].as_array())
        .map(|streams| {
            streams
                .iter()
                .map(|s| StreamFacts {
                    index: s["index"].as_u64().unwrap_or(0) as u32,
                    kind: s["codec_type"].as_str().unwrap_or("data").to_string(),
                    codec: s["codec_name"].as_str().unwrap_or("").to_string(),
                    width: s["width"].as_u64().map(|w| w as u32),
                    height: s["height"].as_u64().map(|h| h as u32),
                    frame_rate: rate(&s["avg_frame_rate"]).or_else(|| rate(&s["r_frame_rate"])),
                    channels: s["channels"].as_u64().map(|c| c as u32),
                    sample_rate: num(&s["sample_rate"]).map(|r| r as u32),
                    duration: num(&s["duration"]),
                })
                .collect()
        })
        .unwrap_or_default();
    InputFacts {
        name: name.to_string(),
        size,
        container: probe
            .and_then(|p| p["format"]["format_name"].as_str())
            .unwrap_or("")
            .to_string(),
        duration: probe.and_then(|p| num(&p["format"]["duration"])),
        streams,
    }
}
