//! A translator backed by a language model: it describes the task (or probe configuration)
//! JSON and the facts of each input to the model through the host's `llm` import, asks for an
//! answer constrained by a JSON schema, then parses and checks the answer before returning it.
//! The host's command-builder policy validates whatever comes back, as for any task.
//!
//! This file is the WebAssembly glue and the flow of one call; the rest is plain Rust, tested
//! natively with a fake model:
//! - `config` reads the operator's settings;
//! - `prompt` builds the messages (system text, examples, input facts);
//! - `schema` writes the JSON schemas the answer must follow;
//! - `answer` parses the model's answer strictly and checks it.

wit_bindgen::generate!({
    path: "../../wit",
    world: "translator",
});

pub mod answer;
pub mod config;
pub mod prompt;
pub mod schema;

pub use exports::mediaforge::plugin::translate::{InputFacts, StreamFacts};
pub use mediaforge::plugin::llm::{CompletionRequest, Message};
pub use mediaforge::plugin::types::{ProbeConfig, Refusal, Task, TaskInput, TaskOutput};

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

/// The exported functions. Only built for WebAssembly: a native build (the tests) cannot export
/// component names, and has no host to call.
#[cfg(target_arch = "wasm32")]
mod glue {
    use crate::exports::mediaforge::plugin::translate::{Guest, InputFacts};
    use crate::mediaforge::plugin::types::LogLevel;
    use crate::mediaforge::plugin::{host, llm};
    use crate::{CompletionRequest, ProbeConfig, Refusal, Task};

    struct Translator;

    /// Calls the model, logging failures and the size of what came back.
    fn complete(request: CompletionRequest) -> Result<String, String> {
        let answer = llm::complete(&request);
        match &answer {
            Ok(text) => host::log(
                LogLevel::Debug,
                &format!("model answered {} bytes", text.len()),
            ),
            Err(e) => host::log(LogLevel::Warn, &format!("llm call failed: {e}")),
        }
        answer
    }

    fn logged<T>(result: Result<T, Refusal>) -> Result<T, Refusal> {
        if let Err(r) = &result {
            host::log(LogLevel::Info, &format!("refused: {}", r.message));
        }
        result
    }

    impl Guest for Translator {
        fn translate_task(instructions: String, inputs: Vec<InputFacts>) -> Result<Task, Refusal> {
            logged(crate::translate_task(
                &host::config(),
                &instructions,
                &inputs,
                complete,
            ))
        }

        fn translate_probe(
            instructions: String,
            input: InputFacts,
        ) -> Result<ProbeConfig, Refusal> {
            logged(crate::translate_probe(
                &host::config(),
                &instructions,
                &input,
                complete,
            ))
        }
    }

    crate::export!(Translator with_types_in crate);
}

#[cfg(test)]
mod tests;
