//! A translator backed by a language model: it describes the task (or probe configuration)
//! JSON and the facts of each input to the model through the host's `llm` import, asks for an
//! answer constrained by a JSON schema, then parses and checks the answer before returning it.
//! The host's command-builder policy validates whatever comes back, as for any task.
//!
//! This file is the plugin (exported with the SDK) and the flow of one call; the rest is plain Rust, tested
//! natively with a fake model:
//! - `config` reads the operator's settings;
//! - `prompt` builds the messages (system text, examples, input facts);
//! - `schema` writes the JSON schemas the answer must follow;
//! - `answer` parses the model's answer strictly and checks it.
//!
//! Before the model is asked, the offline translator's final refusals hold
//! (`translator::final_refusal`): the model answers only what that one did not understand.

pub mod answer;
pub mod config;
pub mod prompt;
pub mod schema;

pub use mediaforge_plugin::{
    CompletionRequest, InputFacts, Message, ProbeConfig, Refusal, StreamFacts, Task, TaskInput,
    TaskOutput,
};

/// Translates `instructions` over `inputs` into a task, asking `complete` (the `llm` import, or
/// a fake in tests) for the answer.
pub fn translate_task(
    config_json: &str,
    instructions: &str,
    inputs: &[InputFacts],
    complete: impl FnOnce(CompletionRequest) -> Result<String, String>,
) -> Result<Task, Refusal> {
    let config = config::Config::from_json(config_json).map_err(config_refusal)?;
    if inputs.is_empty() {
        return Err(refusal(None, "There is no input to work on"));
    }
    // What the offline translator understood and refused stays refused, whoever asks the
    // model (the fallback of `plugins.translator`, or this plugin alone): a model answers an
    // upload, a stream or an impossible plan with a task that does part of it.
    if let Some(refused) = translator::final_refusal(instructions, inputs) {
        return Err(refused);
    }
    let request = CompletionRequest {
        messages: prompt::task_messages(&config, instructions, inputs),
        json_schema: Some(schema::task_schema(inputs)),
        max_tokens: Some(config.max_tokens),
        temperature: Some(0.0),
    };
    let answer = complete(request).map_err(model_unreachable)?;
    answer::task_from_answer(&answer, inputs)
}

/// Translates a question about `input` into a probe configuration.
pub fn translate_probe(
    config_json: &str,
    instructions: &str,
    input: &InputFacts,
    complete: impl FnOnce(CompletionRequest) -> Result<String, String>,
) -> Result<ProbeConfig, Refusal> {
    let config = config::Config::from_json(config_json).map_err(config_refusal)?;
    if let Some(refused) = translator::final_probe_refusal(instructions) {
        return Err(refused);
    }
    let request = CompletionRequest {
        messages: prompt::probe_messages(&config, instructions, input),
        json_schema: Some(schema::probe_schema()),
        max_tokens: Some(config.max_tokens),
        temperature: Some(0.0),
    };
    let answer = complete(request).map_err(model_unreachable)?;
    answer::probe_from_answer(&answer)
}

/// A refusal, about `subject` when there is one.
pub fn refusal(subject: Option<&str>, message: impl Into<String>) -> Refusal {
    Refusal {
        message: message.into(),
        subject: subject.map(str::to_string),
    }
}

fn config_refusal(e: config::ConfigError) -> Refusal {
    refusal(
        Some(&e.key),
        format!("The LLM translator is misconfigured: {}", e.message),
    )
}

fn model_unreachable(e: String) -> Refusal {
    refusal(
        None,
        format!("The language model could not answer: {}", show(&e, 300)),
    )
}

/// A string made safe to quote in a message: control characters replaced, long values cut.
pub fn show(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .take(max)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if s.chars().count() > max {
        out.push('…');
    }
    out
}

/// The plugin. Its config is read by `config` (which names the key at fault), so the SDK hands
/// it over as JSON; `check_config` lets the host refuse a bad one at start-up.
pub struct LlmTranslator;

impl mediaforge_plugin::Translator for LlmTranslator {
    type Config = serde_json::Value;

    fn check_config(config: &serde_json::Value) -> Result<(), String> {
        config::Config::from_json(&config.to_string())
            .map(drop)
            .map_err(|e| format!("config key `{}`: {}", e.key, e.message))
    }

    fn translate_task(
        config: &serde_json::Value,
        instructions: String,
        inputs: Vec<InputFacts>,
    ) -> Result<Task, Refusal> {
        logged(translate_task(
            &config.to_string(),
            &instructions,
            &inputs,
            complete,
        ))
    }

    fn translate_probe(
        config: &serde_json::Value,
        instructions: String,
        input: InputFacts,
    ) -> Result<ProbeConfig, Refusal> {
        logged(translate_probe(
            &config.to_string(),
            &instructions,
            &input,
            complete,
        ))
    }
}

mediaforge_plugin::export_translator!(LlmTranslator);

/// Calls the model through the host, logging failures and the size of what came back.
fn complete(request: CompletionRequest) -> Result<String, String> {
    use mediaforge_plugin::{LogLevel, log};
    let answer = mediaforge_plugin::complete(&request);
    match &answer {
        Ok(text) => log(
            LogLevel::Debug,
            &format!("model answered {} bytes", text.len()),
        ),
        Err(e) => log(LogLevel::Warn, &format!("llm call failed: {e}")),
    }
    answer
}

fn logged<T>(result: Result<T, Refusal>) -> Result<T, Refusal> {
    if let Err(r) = &result {
        let message = format!("refused: {}", r.message);
        mediaforge_plugin::log(mediaforge_plugin::LogLevel::Info, &message);
    }
    result
}

#[cfg(test)]
mod tests;
