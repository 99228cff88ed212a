//! One segment of a split encode, on whichever worker claimed it (`db/parts.rs`): the segment
//! staged from the store, encoded in the sandbox as any run is (`run.rs`), the result put back
//! in the store, all while the lease is renewed with the progress. Losing the lease drops the
//! encode (and kills its ffmpeg); only the lease holder records the end.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use super::super::run;
use crate::app::AppState;
use crate::clock;
use crate::db::{Part, PartFailure};
use crate::error::{AppError, AppResult};
use crate::media::argv;
use crate::media::scratch::Scratch;
use crate::plugins::types::{BuiltCommand, CommandPart, StagedInput};
use crate::{metrics, names};

/// Encodes `part`, held with `token`, and records how it ended.
pub async fn work(state: &Arc<AppState>, part: Part, token: &str) {
    metrics::count(metrics::SPLIT_PARTS);
    tracing::info!(
        part = part.part_id,
        attempt = part.attempts,
        "split segment started"
    );
    let (tx, rx) = watch::channel(0u64);
    let ended = tokio::select! {
        r = encode(state, &part, tx) => r,
        () = keep(state, &part, token, rx) => {
            tracing::warn!(part = part.part_id, "segment lease lost; another worker owns it now");
            return;
        }
    };
    let recorded = match &ended {
        Ok((object, elapsed)) => {
            let kept = state
                .db
                .finish_part(&part.part_id, token, Ok((object, *elapsed)))
                .await;
            if !matches!(kept, Ok(true))
                && let Err(e) = state.store.delete(object).await
            {
                tracing::warn!("removing an unrecorded segment: {e:#}");
            }
            kept
        }
        Err(e) => {
            let failure = PartFailure {
                status: e.status().as_u16(),
                message: e.to_string(),
                details: e.details().map(str::to_string),
            };
            state
                .db
                .finish_part(&part.part_id, token, Err(&failure))
                .await
        }
    };
    match recorded {
        Ok(true) => tracing::info!(part = part.part_id, "split segment finished"),
        Ok(false) => tracing::warn!(part = part.part_id, "segment taken over before it ended"),
        Err(e) => tracing::error!(part = part.part_id, "cannot record a segment's end: {e}"),
    }
}

/// Stages, encodes and stores the segment; the stored object and how long ffmpeg ran.
async fn encode(
    state: &Arc<AppState>,
    part: &Part,
    progress: watch::Sender<u64>,
) -> AppResult<(String, f64)> {
    let scratch = Scratch::new(&state.scratch_dir).map_err(|e| AppError::Internal(e.into()))?;
    let input = scratch
        .inputs()
        .join(format!("segment.{}", part.input_ext))
        .to_string_lossy()
        .into_owned();
    state
        .store
        .stage(&part.input_object, std::path::Path::new(&input))
        .await?;
    let staged = vec![StagedInput {
        name: format!("segment {}", part.index + 1),
        path: input.clone(),
    }];
    let cmd = BuiltCommand {
        global_args: Vec::new(),
        inputs: vec![CommandPart {
            args: Vec::new(),
            path: input,
        }],
        outputs: vec![CommandPart {
            args: part.args.clone(),
            path: scratch
                .outputs()
                .join(&part.output_name)
                .to_string_lossy()
                .into_owned(),
        }],
        decisions: Vec::new(),
    };
    let argv = argv::ffmpeg_argv(&cmd, &staged, &scratch.dir, &scratch.outputs())
        .map_err(|r| AppError::HostRefused(r.0))?;
    let elapsed = run::ffmpeg_within(
        state,
        &part.account,
        &scratch,
        &staged,
        argv,
        Some(progress),
        super::time_left(part.deadline),
    )
    .await?;
    // Each attempt its own object: one that lost its lease removes only its own.
    let object = format!("{}-{}", part.part_id, names::random_id(8));
    state
        .store
        .put_file(&object, &scratch.outputs().join(&part.output_name))
        .await?;
    Ok((object, elapsed.as_secs_f64()))
}

/// Renews the part's lease with its progress until it is lost; never returns otherwise.
async fn keep(state: &AppState, part: &Part, token: &str, progress: watch::Receiver<u64>) {
    let lease_ms = (state.cfg.jobs.lease_s * 1000) as i64;
    let every = Duration::from_millis((lease_ms as u64 / 3).clamp(200, 1000));
    loop {
        tokio::time::sleep(every).await;
        let processed = *progress.borrow() as f64 / 1e6;
        match state
            .db
            .renew_part(&part.part_id, token, clock::now_ms() + lease_ms, processed)
            .await
        {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => tracing::warn!(part = part.part_id, "segment lease renewal failed: {e}"),
        }
    }
}
