//! The default command builder's policy, run natively on a translator's task: what the host
//! would do with it. Shared by the ffmpeg harness and the library's property test (which
//! includes this file with `#[path]`); the parent module brings the translator's `Task` into
//! scope.

use command_builder::config::Config;
use command_builder::{FfmpegCommand, JobLayout, StagedInput};

use super::Task;

/// The translator's task as the builder's type (the same WIT record, bound twice).
pub fn builder_task(t: &Task) -> command_builder::Task {
    command_builder::Task {
        inputs: t
            .inputs
            .iter()
            .map(|i| command_builder::TaskInput {
                file_path: i.file_path.clone(),
                options: i.options.clone(),
            })
            .collect(),
        outputs: t
            .outputs
            .iter()
            .map(|o| command_builder::TaskOutput {
                file: o.file.clone(),
                options: o.options.clone(),
                maps: o.maps.clone(),
            })
            .collect(),
        filter_complex: t.filter_complex.clone(),
        output_dir_id: t.output_dir_id.clone(),
    }
}

/// Builds the command with the default policy, inputs staged in `in_dir` under their names.
pub fn build(t: &Task, in_dir: &str, out_dir: &str) -> Result<FfmpegCommand, String> {
    let layout = JobLayout {
        inputs: t
            .inputs
            .iter()
            .map(|i| StagedInput {
                name: i.file_path.clone(),
                path: format!("{in_dir}/{}", i.file_path),
            })
            .collect(),
        output_dir: out_dir.into(),
    };
    command_builder::task::build_task(&builder_task(t), &layout, &Config::default()).map_err(|r| {
        format!(
            "the command builder refused ({}): {}",
            r.subject.unwrap_or_default(),
            r.message
        )
    })
}

/// `<global-args> (<input args> -i <path>)... (<output args> <path>)...`, as the host runs it.
pub fn argv(cmd: &FfmpegCommand) -> Vec<String> {
    let mut out = cmd.global_args.clone();
    for i in &cmd.inputs {
        out.extend(i.args.iter().cloned());
        out.extend(["-i".to_string(), i.path.clone()]);
    }
    for o in &cmd.outputs {
        out.extend(o.args.iter().cloned());
        out.push(o.path.clone());
    }
    out
}
