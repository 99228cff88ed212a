//! A task run for what it measures (a recipe's analysis step): resolved, imported, staged and
//! built exactly as any task (the command builder and the argv check decide), but every output
//! must use the null muxer, nothing is registered, and ffmpeg's log is the result. Charged as a
//! run with no output bytes.

use std::sync::Arc;

use super::{build, run, stage};
use crate::app::AppState;
use crate::db::Account;
use crate::error::{AppError, AppResult};
use crate::task::Task;
use crate::tenants::TaskPermit;
use crate::usage::{Charge, Usage};
use crate::{metering, names};

/// What an analysis run left: ffmpeg's log and the run's figures.
pub struct Measurement {
    pub log: String,
    pub usage: Usage,
    pub charge: Charge,
}

pub async fn measure(
    state: &Arc<AppState>,
    account: &Account,
    task: Task,
    _admitted: &TaskPermit,
) -> AppResult<Measurement> {
    let resolved = super::prepare(state, account, task).await?;
    let hold = metering::hold(
        state,
        account,
        resolved.stored_bytes(),
        names::random_id(20),
    )
    .await?;
    let scratch = super::scratch(state)?;
    let (staged, input_bytes) =
        stage::stage(state, &scratch, &resolved.task, &resolved.inputs).await?;
    let built = build::build(state, &resolved.task, &resolved.inputs, &staged, &scratch).await?;
    if let Some(o) = built
        .parts
        .outputs
        .iter()
        .find(|o| !o.args.windows(2).any(|w| w[0] == "-f" && w[1] == "null"))
    {
        let name = o.path.rsplit('/').next().unwrap_or_default();
        return Err(AppError::HostRefused(format!(
            "an analysis writes nothing: its output '{name}' must use the null muxer (-f null)"
        )));
    }
    let (elapsed, log) =
        run::ffmpeg_logged(state, &account.name, &scratch, &staged, built.argv).await?;
    let usage = Usage::new(elapsed.as_secs_f64(), input_bytes, 0);
    let charge = Charge::of_run(input_bytes, 0, &usage);
    hold.settle(&charge).await?;
    Ok(Measurement { log, usage, charge })
}
