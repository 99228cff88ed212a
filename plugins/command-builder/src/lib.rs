//! The default command builder: turns a tenant's task into ffmpeg arguments and a probe
//! configuration into ffprobe arguments, refusing anything that could make ffmpeg read, write
//! or reach what the job does not own ("parse, then allow": what is not understood is refused).
//!
//! This file is the WebAssembly glue; the logic lives in plain Rust modules, tested natively:
//! - `task` builds the ffmpeg command (argv layout, global arguments, outputs, maps);
//! - `options` reads option lists with each option's arity against the allow-list;
//! - `filtergraph` parses and re-serialises ffmpeg's filter graph syntax;
//! - `filters` applies the filter policy (allow-list, `@{name}` files, caps);
//! - `frames` follows what flows through a graph (frame sizes, bounded inputs);
//! - `probe` builds the ffprobe arguments;
//! - `cache` and `split` add the decisions the host's result cache and split encode read;
//! - `policy` holds the allow-lists as data tables; `values` the value syntaxes;
//! - `expr` bounds size expressions; `placeholders` resolves `@{name}`; `config` reads settings.

wit_bindgen::generate!({
    path: "../../wit",
    world: "command-builder",
    // The component is exported by the `command-builder-component` package (`component/`), so
    // that plugins can use this crate as a library and export their own `builder`.
    pub_export_macro: true,
    default_bindings_module: "command_builder",
});

pub mod cache;
pub mod config;
pub mod expr;
pub mod filtergraph;
pub mod filters;
pub mod frames;
pub mod options;
pub mod placeholders;
pub mod policy;
pub mod probe;
pub mod split;
pub mod task;
pub mod values;

pub use exports::mediaforge::plugin::builder::{
    CommandInput, CommandOutput, Decision, FfmpegCommand, FfprobeCommand, JobLayout, StagedInput,
};
pub use mediaforge::plugin::types::{ProbeConfig, Refusal, Task, TaskInput, TaskOutput};

/// The `builder` implementation, exported by the `command-builder-component` package
/// (`component/`) with `command_builder::export!`; this crate exports nothing itself, so other
/// plugins can use it as a library. Only built for WebAssembly: a native build has no host.
#[cfg(target_arch = "wasm32")]
pub mod glue {
    use crate::exports::mediaforge::plugin::builder::Guest;
    use crate::mediaforge::plugin::host;
    use crate::mediaforge::plugin::types::LogLevel;
    use crate::{
        FfmpegCommand, FfprobeCommand, JobLayout, ProbeConfig, Refusal, Task, config, probe,
        refusal, task,
    };

    pub struct Builder;

    impl Guest for Builder {
        fn build_task(task: Task, layout: JobLayout) -> Result<FfmpegCommand, Refusal> {
            let config = load_config()?;
            task::build_task(&task, &layout, &config)
        }

        fn build_probe(probe: ProbeConfig, _input_path: String) -> Result<FfprobeCommand, Refusal> {
            // Probing has no configurable policy, but a broken config still fails closed.
            load_config()?;
            probe::build_probe(&probe)
        }
    }

    /// Reads the operator's settings. A bad config refuses every request (and says why in the
    /// host's log) rather than running with a policy the operator did not write.
    fn load_config() -> Result<config::Config, Refusal> {
        config::Config::from_json(&host::config()).map_err(|e| {
            host::log(LogLevel::Error, &e);
            refusal(
                "config",
                "The command builder is misconfigured; the operator has been told",
            )
        })
    }
}

/// A refusal about `subject`.
pub fn refusal(subject: impl Into<String>, message: impl Into<String>) -> Refusal {
    Refusal {
        message: message.into(),
        subject: Some(subject.into()),
    }
}

/// A tenant-supplied string made safe to quote in a message: control characters replaced,
/// long values cut.
pub fn show(s: &str) -> String {
    const MAX: usize = 80;
    let mut out: String = s
        .chars()
        .take(MAX)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if s.chars().count() > MAX {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests;
