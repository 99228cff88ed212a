//! Stage 4, *build*: the command-builder plugin turns the task into ffmpeg argv over the staged
//! paths, and the host checks that argv (`media/argv.rs`). The dry run stops after this stage.

use super::resolve::Input;
use crate::app::AppState;
use crate::error::{AppError, AppResult};
use crate::media::argv;
use crate::media::scratch::Scratch;
use crate::plugins::types::{BuiltCommand, PolicyDecision, StagedInput};
use crate::plugins::{Failure, World};
use crate::task::Task;

/// A checked command, ready to run.
pub struct Built {
    pub argv: Vec<String>,
    pub decisions: Vec<PolicyDecision>,
    /// The same command as the tenant reads it: `ffmpeg` and the argv with each staged path
    /// replaced by the input as written, and outputs by their names. Never a host path.
    pub shown: Vec<String>,
    /// The argv with every path of this run replaced (inputs by their positions, outputs by
    /// their names): equal for equal work, whatever the scratch directory. Cache keys use it.
    pub canonical: Vec<String>,
    /// The plugin's command in its parts (global, per input, per output), as checked: a split
    /// encode (`split/`) runs the output's options over each segment.
    pub parts: BuiltCommand,
}

pub async fn build(
    state: &AppState,
    task: &Task,
    inputs: &[Input],
    staged: &[StagedInput],
    scratch: &Scratch,
) -> AppResult<Built> {
    let out = scratch.outputs();
    let cmd = state
        .plugins
        .build_task(task, staged, out.to_str().unwrap_or_default())
        .await?;
    let argv = argv::ffmpeg_argv(&cmd, staged, &scratch.dir, &out).map_err(|r| {
        let why = format!("the host refuses its command: {}", r.0);
        state
            .plugins
            .report(World::CommandBuilder, Failure::Output, &why);
        AppError::HostRefused(r.0)
    })?;
    let out_prefix = format!("{}/", out.display());
    let scratch_dir = scratch.dir.display().to_string();
    // Highest index first: `in/1` is a prefix of `in/10`.
    let replace_paths = |arg: &str, input_as: &dyn Fn(usize, &Input) -> String| {
        let mut arg = arg.replace(&out_prefix, "");
        for (i, (at, input)) in staged.iter().zip(inputs).enumerate().rev() {
            arg = arg.replace(&at.path, &input_as(i, input));
        }
        arg
    };
    let shown = std::iter::once("ffmpeg".to_string())
        .chain(
            argv.iter()
                .map(|arg| replace_paths(arg, &|_, input| input.shown.clone())),
        )
        .collect();
    let canonical = argv
        .iter()
        .map(|arg| {
            replace_paths(arg, &|i, _| format!("{{input {i}}}")).replace(&scratch_dir, "{scratch}")
        })
        .collect();
    Ok(Built {
        argv,
        decisions: cmd.decisions.clone(),
        shown,
        canonical,
        parts: cmd,
    })
}
