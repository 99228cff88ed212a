//! The default command builder: turns a tenant's task into ffmpeg arguments and a probe
//! configuration into ffprobe arguments, refusing anything that could make ffmpeg read, write
//! or reach what the job does not own ("parse, then allow": what is not understood is refused).
//!
//! This file is the plugin ([`DefaultBuilder`]); the logic lives in plain Rust modules, tested
//! natively:
//! - `task` builds the ffmpeg command (argv layout, global arguments, outputs, maps);
//! - `options` reads option lists with each option's arity against the allow-list;
//! - `filtergraph` parses and re-serialises ffmpeg's filter graph syntax;
//! - `filters` applies the filter policy (allow-list, `@{name}` files, caps);
//! - `frames` follows what flows through a graph (frame sizes, bounded inputs);
//! - `probe` builds the ffprobe arguments;
//! - `cache` and `split` add the decisions the host's result cache and split encode read;
//! - `policy` holds the allow-lists as data tables; `values` the value syntaxes;
//! - `expr` bounds size expressions; `placeholders` resolves `@{name}`; `config` reads settings.

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

pub use mediaforge_plugin::{
    CommandInput, CommandOutput, Decision, FfmpegCommand, FfprobeCommand, JobLayout, ProbeConfig,
    Refusal, StagedInput, Task, TaskInput, TaskOutput,
};

/// The default command builder as an SDK plugin: exported by the `command-builder-component`
/// package (`component/`); this crate exports nothing itself, so another plugin can wrap it
/// (implement `CommandBuilder` and call these methods; `examples/plugins/preset-builder`).
pub struct DefaultBuilder;

impl mediaforge_plugin::CommandBuilder for DefaultBuilder {
    type Config = config::Config;

    /// A bad config stops start-up rather than running with a policy the operator did not write.
    fn check_config(config: &config::Config) -> Result<(), String> {
        config.validate()
    }

    fn build_task(
        config: &config::Config,
        task: Task,
        layout: JobLayout,
    ) -> Result<FfmpegCommand, Refusal> {
        task::build_task(&task, &layout, config)
    }

    /// Probing has no configurable policy.
    fn build_probe(
        _config: &config::Config,
        probe: ProbeConfig,
        _input_path: String,
    ) -> Result<FfprobeCommand, Refusal> {
        probe::build_probe(&probe)
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
