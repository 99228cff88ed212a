//! Table tests over the public behaviour: one module per concern, sharing the builders below
//! (tasks, layouts, and the host's argv assembly). They live inside the library so that the
//! workspace's `cargo test --lib` runs them.

mod allowed;
mod attacks;
mod cache;
mod ffmpeg_runs;
mod probe;
mod split;

use crate::config::Config;
use crate::{FfmpegCommand, JobLayout, Refusal, StagedInput, Task, TaskInput, TaskOutput};

pub fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// One input: tenant file name and options.
pub fn input(name: &str, options: &[&str]) -> TaskInput {
    TaskInput {
        file_path: format!("dir1/{name}"),
        options: strings(options),
    }
}

pub fn output(file: &str, options: &[&str], maps: &[&str]) -> TaskOutput {
    TaskOutput {
        file: file.into(),
        options: strings(options),
        maps: strings(maps),
    }
}

pub fn task(
    inputs: Vec<TaskInput>,
    outputs: Vec<TaskOutput>,
    filter_complex: Option<&str>,
) -> Task {
    Task {
        inputs,
        outputs,
        filter_complex: filter_complex.map(str::to_string),
        output_dir_id: None,
    }
}

/// The layout the host would make: input i of name n staged at `<dir>/in/<i>-<n>`.
pub fn layout_in(task: &Task, dir: &str) -> JobLayout {
    JobLayout {
        inputs: task
            .inputs
            .iter()
            .enumerate()
            .map(|(i, inp)| {
                let name = inp.file_path.rsplit('/').next().unwrap().to_string();
                StagedInput {
                    path: format!("{dir}/in/{i}-{name}"),
                    name,
                }
            })
            .collect(),
        output_dir: format!("{dir}/out"),
    }
}

pub fn build(task: &Task) -> Result<FfmpegCommand, Refusal> {
    build_with(task, &Config::default())
}

pub fn build_with(task: &Task, config: &Config) -> Result<FfmpegCommand, Refusal> {
    crate::task::build_task(task, &layout_in(task, "/job"), config)
}

/// `<global-args> (<input.args> -i <input.path>)... (<output.args> <output.path>)...`, without
/// the host's own flags.
pub fn argv(cmd: &FfmpegCommand) -> Vec<String> {
    let mut out = cmd.global_args.clone();
    for i in &cmd.inputs {
        out.extend(i.args.iter().cloned());
        out.push("-i".into());
        out.push(i.path.clone());
    }
    for o in &cmd.outputs {
        out.extend(o.args.iter().cloned());
        out.push(o.path.clone());
    }
    out
}
