//! An example command builder: named presets on top of the default policy.
//!
//! An output whose options are exactly `["-mf_preset", "NAME"]` is replaced by the real
//! options the preset stands for ([`presets::expand`]); the rewritten task then goes through
//! the default command builder (the `command-builder` crate, used as a library), so a preset's
//! options are checked exactly like a tenant's. Everything else is the default policy
//! unchanged, including `build-probe` and the operator's config.
//!
//! The logic is plain Rust ([`build_task`], [`build_probe`]), tested natively; only the `glue`
//! module touches the host, and it is built for WebAssembly alone.

wit_bindgen::generate!({
    path: "../../../wit",
    world: "command-builder",
    // Share the `types` records (task, refusal, …) with the default builder, so tasks pass
    // between the two crates without copying field by field.
    with: {
        "mediaforge:plugin/types@0.1.0": command_builder::mediaforge::plugin::types,
    },
    generate_all,
});

pub mod presets;

use command_builder::config::Config;
use command_builder::{FfmpegCommand, FfprobeCommand, JobLayout, ProbeConfig, Refusal, Task};

/// Expands the task's presets, then builds the command with the default policy. The preset
/// decisions come first in the dry run's list.
pub fn build_task(
    task: &Task,
    layout: &JobLayout,
    config: &Config,
) -> Result<FfmpegCommand, Refusal> {
    let expanded = presets::expand(task)?;
    let mut command = command_builder::task::build_task(&expanded.task, layout, config)?;
    command.decisions.splice(0..0, expanded.decisions);
    Ok(command)
}

/// Probes are the default policy's business.
pub fn build_probe(probe: &ProbeConfig) -> Result<FfprobeCommand, Refusal> {
    command_builder::probe::build_probe(probe)
}

/// The exported functions. Only built for WebAssembly: a native build (the tests) cannot
/// export component names, and has no host to call. The `builder` records are this crate's
/// own bindings, so they are converted to and from the default builder's (same fields).
#[cfg(target_arch = "wasm32")]
mod glue {
    use crate::exports::mediaforge::plugin::builder as wit;
    use crate::mediaforge::plugin::host;
    use command_builder::mediaforge::plugin::types::LogLevel;
    use command_builder::{ProbeConfig, Refusal, Task, config::Config, refusal};

    struct PresetBuilder;

    impl wit::Guest for PresetBuilder {
        fn build_task(task: Task, layout: wit::JobLayout) -> Result<wit::FfmpegCommand, Refusal> {
            let config = load_config()?;
            let layout = command_builder::JobLayout {
                inputs: layout
                    .inputs
                    .into_iter()
                    .map(|s| command_builder::StagedInput {
                        name: s.name,
                        path: s.path,
                    })
                    .collect(),
                output_dir: layout.output_dir,
            };
            let c = crate::build_task(&task, &layout, &config)?;
            Ok(wit::FfmpegCommand {
                global_args: c.global_args,
                inputs: c
                    .inputs
                    .into_iter()
                    .map(|i| wit::CommandInput {
                        args: i.args,
                        path: i.path,
                    })
                    .collect(),
                outputs: c
                    .outputs
                    .into_iter()
                    .map(|o| wit::CommandOutput {
                        args: o.args,
                        path: o.path,
                    })
                    .collect(),
                decisions: decisions(c.decisions),
            })
        }

        fn build_probe(
            probe: ProbeConfig,
            _input_path: String,
        ) -> Result<wit::FfprobeCommand, Refusal> {
            load_config()?;
            let c = crate::build_probe(&probe)?;
            Ok(wit::FfprobeCommand {
                args: c.args,
                decisions: decisions(c.decisions),
            })
        }
    }

    fn decisions(list: Vec<command_builder::Decision>) -> Vec<wit::Decision> {
        list.into_iter()
            .map(|d| wit::Decision {
                subject: d.subject,
                allowed: d.allowed,
                reason: d.reason,
            })
            .collect()
    }

    /// The plugin's `config` table is the default policy's (`max_dimension`, `denied_filters`,
    /// …). A bad one refuses every request, as the default builder does.
    fn load_config() -> Result<Config, Refusal> {
        Config::from_json(&host::config()).map_err(|e| {
            host::log(LogLevel::Error, &e);
            refusal(
                "config",
                "The command builder is misconfigured; the operator has been told",
            )
        })
    }

    crate::export!(PresetBuilder with_types_in crate);
}

#[cfg(test)]
mod tests;
