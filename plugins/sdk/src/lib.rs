//! The SDK for Mediaforge plugins (`docs/plugins.md`): the bindings of the WIT contract (0.2.0
//! for builders and formatters, 0.3.0 for translators and recipes),
//! generated once; one trait and one export macro per world; strict typed config; and the
//! sample inputs of `docs/plugins/samples/` as Rust values for tests.
//!
//! A plugin is a type implementing [`CommandBuilder`], [`Translator`] or [`WebhookFormatter`],
//! exported with [`export_command_builder!`], [`export_translator!`] or
//! [`export_webhook_formatter!`]. The macro also exports `configure.check-config` (the host calls
//! it when it loads the plugin, so a bad config stops start-up with the plugin's message), parses
//! the config for every call, and installs a panic hook that sends the panic message to the
//! host's log (plugins' standard error is discarded). The macros export nothing in a native
//! build, so the same crate builds natively for unit tests.

pub mod bindings;
mod config;
pub mod fixtures;
#[doc(hidden)]
pub mod glue;

pub use config::{NoConfig, parse_config};
pub use serde;
pub use serde_json;

pub use bindings::builder::exports::mediaforge::plugin::builder::{
    CommandInput, CommandOutput, Decision, FfmpegCommand, FfprobeCommand, JobLayout, StagedInput,
};
pub use bindings::builder::mediaforge::plugin::types::{
    LogLevel, ProbeConfig, Refusal, Task, TaskInput, TaskOutput,
};
pub use bindings::formatter::exports::mediaforge::plugin::format::{
    CallbackRequest, Completion, Failure, Header, JobEvent, Outcome, OutputFile, Usage,
};
pub use bindings::recipe::exports::mediaforge::plugin::recipes::{
    Next, ProbeStep, RecipeInfo, Step, StepResult, TextFile,
};
pub use bindings::translator::exports::mediaforge::plugin::translate::{InputFacts, StreamFacts};
pub use bindings::translator_v3::exports::mediaforge::plugin::translate::{
    Answer, OfferedRecipe, RecipeCall,
};
pub use bindings::translator_v3::mediaforge::plugin::llm::{CompletionRequest, Message};

use serde::de::DeserializeOwned;

/// The `command-builder` world: tasks to ffmpeg argv, probe configurations to ffprobe options.
pub trait CommandBuilder {
    /// The plugin's `config` table (`[plugins.command_builder] config`); [`NoConfig`] for none.
    type Config: DeserializeOwned;

    /// Checks beyond what the types say (ranges, names). Runs at load and before every call.
    fn check_config(_config: &Self::Config) -> Result<(), String> {
        Ok(())
    }

    fn build_task(
        config: &Self::Config,
        task: Task,
        layout: JobLayout,
    ) -> Result<FfmpegCommand, Refusal>;

    fn build_probe(
        config: &Self::Config,
        probe: ProbeConfig,
        input_path: String,
    ) -> Result<FfprobeCommand, Refusal>;
}

/// The `translator` world: plain-language instructions to a task or a probe configuration.
pub trait Translator {
    type Config: DeserializeOwned;

    fn check_config(_config: &Self::Config) -> Result<(), String> {
        Ok(())
    }

    fn translate_task(
        config: &Self::Config,
        instructions: String,
        inputs: Vec<InputFacts>,
    ) -> Result<Task, Refusal>;

    /// What the host calls (WIT 0.3.0): a task, or one of the `recipes` the host offers
    /// ([`Answer::Recipe`], run over every input). By default, [`Self::translate_task`]'s task.
    fn translate(
        config: &Self::Config,
        instructions: String,
        inputs: Vec<InputFacts>,
        recipes: Vec<OfferedRecipe>,
    ) -> Result<Answer, Refusal> {
        let _ = recipes;
        Self::translate_task(config, instructions, inputs).map(Answer::Task)
    }

    fn translate_probe(
        config: &Self::Config,
        instructions: String,
        input: InputFacts,
    ) -> Result<ProbeConfig, Refusal>;
}

/// The `webhook-formatter` world: a job event to the callback request the host sends.
pub trait WebhookFormatter {
    type Config: DeserializeOwned;

    fn check_config(_config: &Self::Config) -> Result<(), String> {
        Ok(())
    }

    /// An error fails the delivery attempt (and is not retried); the operator sees it.
    fn format_event(config: &Self::Config, event: JobEvent) -> Result<CallbackRequest, String>;
}

/// The `recipe` world (WIT 0.3.0, `docs/recipes.md`): named jobs, each a JSON Schema of its
/// parameters and a plan of steps the host runs through its pipeline.
pub trait Recipes {
    type Config: DeserializeOwned;

    fn check_config(_config: &Self::Config) -> Result<(), String> {
        Ok(())
    }

    /// What the plugin offers; the host reads it when it loads the plugin.
    fn recipes(config: &Self::Config) -> Vec<RecipeInfo>;

    /// The next steps of `recipe` (its `params` passed the schema), given every step's result
    /// so far; [`Next::Done`] with the recipe's data when there is nothing left to run.
    fn plan(
        config: &Self::Config,
        recipe: &str,
        params: &serde_json::Value,
        inputs: Vec<InputFacts>,
        results: Vec<StepResult>,
    ) -> Result<Next, Refusal>;
}

/// A line in the host's log, under the plugin's world, through the `host` import of the world
/// the host called (0.2.0's or 0.3.0's). Outside a call from the host (natively, in tests) it
/// goes nowhere.
pub fn log(level: LogLevel, message: &str) {
    if let Some(host) = glue::entered() {
        (host.log)(level, message)
    }
}

/// The operator's `config` table as JSON, as the host gives it. Plugins get it parsed instead
/// (their trait's `Config`); this is for a plugin that wraps another with a different config.
/// Outside a call from the host, `{}`.
pub fn config_json() -> String {
    glue::entered().map_or_else(|| "{}".to_string(), |host| (host.config)())
}

/// One chat-completions call made by the host (translators the operator granted `llm`).
pub fn complete(request: &CompletionRequest) -> Result<String, String> {
    bindings::translator_v3::mediaforge::plugin::llm::complete(request)
}

impl CallbackRequest {
    /// A JSON body with no extra headers, the usual callback.
    pub fn json(body: &serde_json::Value) -> CallbackRequest {
        CallbackRequest {
            content_type: "application/json".into(),
            body: body.to_string(),
            headers: Vec::new(),
        }
    }
}

/// A refusal the tenant sees, about `subject` (the option, filter or phrase concerned).
pub fn refusal(subject: impl Into<String>, message: impl Into<String>) -> Refusal {
    Refusal {
        message: message.into(),
        subject: Some(subject.into()),
    }
}

/// Exports `$plugin` (a [`CommandBuilder`]) as the component's `builder` and `configure`.
#[macro_export]
macro_rules! export_command_builder {
    ($plugin:ty) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            use $crate::bindings::builder::exports::mediaforge::plugin as exports;
            use $crate::bindings::configure::exports::mediaforge::plugin::configure;
            struct Export;
            impl exports::builder::Guest for Export {
                fn build_task(
                    task: $crate::Task,
                    layout: $crate::JobLayout,
                ) -> Result<$crate::FfmpegCommand, $crate::Refusal> {
                    $crate::glue::build_task::<$plugin>(task, layout)
                }
                fn build_probe(
                    probe: $crate::ProbeConfig,
                    input_path: String,
                ) -> Result<$crate::FfprobeCommand, $crate::Refusal> {
                    $crate::glue::build_probe::<$plugin>(probe, input_path)
                }
            }
            impl configure::Guest for Export {
                fn check_config() -> Result<(), String> {
                    $crate::glue::check_builder::<$plugin>()
                }
            }
            $crate::bindings::builder::__export_command_builder_world!(Export with_types_in $crate::bindings::builder);
            $crate::bindings::configure::__export_configure_world!(Export with_types_in $crate::bindings::configure);
        };
    };
}

/// Exports `$plugin` (a [`Translator`]) as the component's `translate` and `configure` (WIT
/// 0.3.0: the host offers it recipes; [`Translator::translate`] may answer with one).
#[macro_export]
macro_rules! export_translator {
    ($plugin:ty) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            use $crate::bindings::translator_v3::exports::mediaforge::plugin as exports;
            use $crate::bindings::configure_v3::exports::mediaforge::plugin::configure;
            struct Export;
            impl exports::translate::Guest for Export {
                fn translate_task(
                    instructions: String,
                    inputs: Vec<$crate::InputFacts>,
                    recipes: Vec<$crate::OfferedRecipe>,
                ) -> Result<$crate::Answer, $crate::Refusal> {
                    $crate::glue::translate::<$plugin>(instructions, inputs, recipes)
                }
                fn translate_probe(
                    instructions: String,
                    input: $crate::InputFacts,
                ) -> Result<$crate::ProbeConfig, $crate::Refusal> {
                    $crate::glue::translate_probe::<$plugin>(instructions, input)
                }
            }
            impl configure::Guest for Export {
                fn check_config() -> Result<(), String> {
                    $crate::glue::check_translator::<$plugin>()
                }
            }
            $crate::bindings::translator_v3::__export_translator_v3_world!(Export with_types_in $crate::bindings::translator_v3);
            $crate::bindings::configure_v3::__export_configure_v3_world!(Export with_types_in $crate::bindings::configure_v3);
        };
    };
}

/// Exports `$plugin` (a [`WebhookFormatter`]) as the component's `format` and `configure`.
#[macro_export]
macro_rules! export_webhook_formatter {
    ($plugin:ty) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            use $crate::bindings::formatter::exports::mediaforge::plugin as exports;
            use $crate::bindings::configure::exports::mediaforge::plugin::configure;
            struct Export;
            impl exports::format::Guest for Export {
                fn format_event(
                    event: $crate::JobEvent,
                ) -> Result<$crate::CallbackRequest, String> {
                    $crate::glue::format_event::<$plugin>(event)
                }
            }
            impl configure::Guest for Export {
                fn check_config() -> Result<(), String> {
                    $crate::glue::check_formatter::<$plugin>()
                }
            }
            $crate::bindings::formatter::__export_webhook_formatter_world!(Export with_types_in $crate::bindings::formatter);
            $crate::bindings::configure::__export_configure_world!(Export with_types_in $crate::bindings::configure);
        };
    };
}

/// Exports `$plugin` (a [`Recipes`]) as the component's `recipes` and `configure` (WIT 0.3.0).
#[macro_export]
macro_rules! export_recipes {
    ($plugin:ty) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            use $crate::bindings::recipe::exports::mediaforge::plugin as exports;
            use $crate::bindings::configure_v3::exports::mediaforge::plugin::configure;
            struct Export;
            impl exports::recipes::Guest for Export {
                fn recipes() -> Vec<$crate::RecipeInfo> {
                    $crate::glue::recipes::<$plugin>()
                }
                fn plan(
                    recipe: String,
                    params: String,
                    inputs: Vec<$crate::InputFacts>,
                    results: Vec<$crate::StepResult>,
                ) -> Result<$crate::Next, $crate::Refusal> {
                    $crate::glue::plan::<$plugin>(recipe, params, inputs, results)
                }
            }
            impl configure::Guest for Export {
                fn check_config() -> Result<(), String> {
                    $crate::glue::check_recipes::<$plugin>()
                }
            }
            $crate::bindings::recipe::__export_recipe_world!(Export with_types_in $crate::bindings::recipe);
            $crate::bindings::configure_v3::__export_configure_v3_world!(Export with_types_in $crate::bindings::configure_v3);
        };
    };
}
