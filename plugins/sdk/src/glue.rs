//! What the `export_*!` macros call: the panic hook, the config read for every call, and the
//! trait method. Generic, so the macros stay a few lines each.

use std::sync::{Once, OnceLock};

use crate::{
    Answer, CallbackRequest, CommandBuilder, FfmpegCommand, FfprobeCommand, InputFacts, JobEvent,
    JobLayout, LogLevel, Next, OfferedRecipe, ProbeConfig, RecipeInfo, Recipes, Refusal,
    StepResult, Task, Translator, WebhookFormatter, parse_config,
};

/// The host imports a world's component may use: 0.2.0's, or 0.3.0's for a recipe or a
/// translator.
#[derive(Clone, Copy)]
pub struct Host {
    pub config: fn() -> String,
    pub log: fn(LogLevel, &str),
}

const V2: Host = Host {
    config: crate::bindings::builder::mediaforge::plugin::host::config,
    log: crate::bindings::builder::mediaforge::plugin::host::log,
};

/// The imports of the world this component was entered through (set on every call, before the
/// plugin's code runs). `crate::log` goes through it rather than naming one version's import:
/// a component that imported both versions' `host` would fit neither world.
static ENTERED: OnceLock<Host> = OnceLock::new();

pub fn entered() -> Option<Host> {
    ENTERED.get().copied()
}

const V3: Host = Host {
    config: crate::bindings::recipe::mediaforge::plugin::host::config,
    log: crate::bindings::recipe::mediaforge::plugin::host::log,
};

/// Panics trap the call and the host reports only "it trapped"; the hook puts the message (and
/// where it was raised) in the host's log first.
fn panic_hook(host: Host) {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(move |info| {
            let message = info.payload_as_str().unwrap_or("(no message)");
            let line = match info.location() {
                Some(at) => format!("plugin panicked at {at}: {message}"),
                None => format!("plugin panicked: {message}"),
            };
            (host.log)(LogLevel::Error, &line.replace('\n', " "));
        }))
    });
}

/// The plugin's config, parsed and checked; an error is logged for the operator.
fn config<C: serde::de::DeserializeOwned>(
    check: fn(&C) -> Result<(), String>,
) -> Result<C, String> {
    config_of(V2, check)
}

fn config_of<C: serde::de::DeserializeOwned>(
    host: Host,
    check: fn(&C) -> Result<(), String>,
) -> Result<C, String> {
    let _ = ENTERED.set(host);
    panic_hook(host);
    let config = parse_config::<C>(&(host.config)()).and_then(|c| check(&c).map(|()| c));
    if let Err(e) = &config {
        (host.log)(LogLevel::Error, e);
    }
    config
}

/// A config error as the tenant sees it: the detail is the operator's (in the log).
fn misconfigured(world: &str) -> impl FnOnce(String) -> Refusal {
    move |_| {
        crate::refusal(
            "config",
            format!("The {world} is misconfigured; the operator has been told"),
        )
    }
}

pub fn check_builder<P: CommandBuilder>() -> Result<(), String> {
    config::<P::Config>(P::check_config).map(drop)
}

pub fn build_task<P: CommandBuilder>(
    task: Task,
    layout: JobLayout,
) -> Result<FfmpegCommand, Refusal> {
    let config = config(P::check_config).map_err(misconfigured("command builder"))?;
    P::build_task(&config, task, layout)
}

pub fn build_probe<P: CommandBuilder>(
    probe: ProbeConfig,
    input_path: String,
) -> Result<FfprobeCommand, Refusal> {
    let config = config(P::check_config).map_err(misconfigured("command builder"))?;
    P::build_probe(&config, probe, input_path)
}

pub fn check_translator<P: Translator>() -> Result<(), String> {
    config_of::<P::Config>(V3, P::check_config).map(drop)
}

pub fn translate<P: Translator>(
    instructions: String,
    inputs: Vec<InputFacts>,
    recipes: Vec<OfferedRecipe>,
) -> Result<Answer, Refusal> {
    let config = config_of(V3, P::check_config).map_err(misconfigured("translator"))?;
    P::translate(&config, instructions, inputs, recipes)
}

pub fn translate_probe<P: Translator>(
    instructions: String,
    input: InputFacts,
) -> Result<ProbeConfig, Refusal> {
    let config = config_of(V3, P::check_config).map_err(misconfigured("translator"))?;
    P::translate_probe(&config, instructions, input)
}

pub fn check_formatter<P: WebhookFormatter>() -> Result<(), String> {
    config::<P::Config>(P::check_config).map(drop)
}

pub fn format_event<P: WebhookFormatter>(event: JobEvent) -> Result<CallbackRequest, String> {
    let config = config(P::check_config)?;
    P::format_event(&config, event)
}

pub fn check_recipes<P: Recipes>() -> Result<(), String> {
    config_of::<P::Config>(V3, P::check_config).map(drop)
}

pub fn recipes<P: Recipes>() -> Vec<RecipeInfo> {
    match config_of(V3, P::check_config) {
        Ok(config) => P::recipes(&config),
        Err(_) => Vec::new(),
    }
}

pub fn plan<P: Recipes>(
    recipe: String,
    params: String,
    inputs: Vec<InputFacts>,
    results: Vec<StepResult>,
) -> Result<Next, Refusal> {
    let config = config_of(V3, P::check_config).map_err(misconfigured("recipe plugin"))?;
    let params: serde_json::Value = serde_json::from_str(&params)
        .map_err(|e| crate::refusal("params", format!("params are not JSON: {e}")))?;
    P::plan(&config, &recipe, &params, inputs, results)
}
