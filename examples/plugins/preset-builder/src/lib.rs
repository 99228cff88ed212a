//! An example command builder: named presets on top of the default policy.
//!
//! An output whose options are exactly `["-mf_preset", "NAME"]` is replaced by the real
//! options the preset stands for ([`presets::expand`]); the rewritten task then goes through
//! the default command builder (the `command-builder` crate, used as a library), so a preset's
//! options are checked exactly like a tenant's. Everything else is the default policy
//! unchanged, including `build-probe` and the operator's config (the default's `Config`).
//!
//! Both builders speak the SDK's types (`mediaforge-plugin`), so wrapping the default one is a
//! trait implementation that calls it: no bindings of its own, no field copying.

pub mod presets;

use command_builder::config::Config;
use command_builder::{
    DefaultBuilder, FfmpegCommand, FfprobeCommand, JobLayout, ProbeConfig, Refusal, Task,
};
use mediaforge_plugin::CommandBuilder;

pub struct PresetBuilder;

impl CommandBuilder for PresetBuilder {
    type Config = Config;

    fn check_config(config: &Config) -> Result<(), String> {
        DefaultBuilder::check_config(config)
    }

    fn build_task(
        config: &Config,
        task: Task,
        layout: JobLayout,
    ) -> Result<FfmpegCommand, Refusal> {
        build_task(&task, &layout, config)
    }

    fn build_probe(
        config: &Config,
        probe: ProbeConfig,
        path: String,
    ) -> Result<FfprobeCommand, Refusal> {
        DefaultBuilder::build_probe(config, probe, path)
    }
}

mediaforge_plugin::export_command_builder!(PresetBuilder);

/// Expands the task's presets, then builds the command with the default policy. The preset
/// decisions come first in the dry run's list.
pub fn build_task(
    task: &Task,
    layout: &JobLayout,
    config: &Config,
) -> Result<FfmpegCommand, Refusal> {
    let expanded = presets::expand(task)?;
    let mut command = DefaultBuilder::build_task(config, expanded.task, layout.clone())?;
    command.decisions.splice(0..0, expanded.decisions);
    Ok(command)
}

/// Probes are the default policy's business.
pub fn build_probe(probe: &ProbeConfig) -> Result<FfprobeCommand, Refusal> {
    command_builder::probe::build_probe(probe)
}

#[cfg(test)]
mod tests;
