//! Typed calls into the translator plugin, and the `llm` import made on its behalf.

use std::time::Duration;

use serde_json::json;

use super::bindings::translator::exports::mediaforge::plugin::translate as wit;
use super::bindings::translator::mediaforge::plugin::llm;
use super::builder::{from_wit_probe, from_wit_task, refused};
use super::{LlmAccess, PluginError, PluginHost, World};
use crate::task::{ProbeConfig, Task};

pub use wit::{InputFacts, StreamFacts};

impl PluginHost {
    pub fn has_translator(&self) -> bool {
        self.translator.is_some()
    }

    pub async fn translate_task(
        &self,
        instructions: &str,
        inputs: Vec<InputFacts>,
    ) -> Result<Task, PluginError> {
        let instructions = instructions.to_string();
        let result = self
            .call(
                self.translator.as_ref(),
                World::Translator,
                |pre, store| pre.instantiate(store),
                move |b, store| {
                    b.mediaforge_plugin_translate().call_translate_task(
                        store,
                        &instructions,
                        &inputs,
                    )
                },
            )
            .await?;
        result.map(from_wit_task).map_err(refused)
    }

    pub async fn translate_probe(
        &self,
        instructions: &str,
        input: InputFacts,
    ) -> Result<ProbeConfig, PluginError> {
        let instructions = instructions.to_string();
        let result = self
            .call(
                self.translator.as_ref(),
                World::Translator,
                |pre, store| pre.instantiate(store),
                move |b, store| {
                    b.mediaforge_plugin_translate().call_translate_probe(
                        store,
                        &instructions,
                        &input,
                    )
                },
            )
            .await?;
        result.map(from_wit_probe).map_err(refused)
    }
}

/// One chat-completions call to the operator's endpoint, through the one outbound client.
pub(super) async fn complete(
    access: &LlmAccess,
    request: llm::CompletionRequest,
) -> Result<String, String> {
    let url = format!(
        "{}/chat/completions",
        access.grant.endpoint.trim_end_matches('/')
    );
    let mut body = json!({
        "model": access.grant.model,
        "messages": request.messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect::<Vec<_>>(),
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
