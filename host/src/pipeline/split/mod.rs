//! The split encode: *run* for a long task the command builder says may be split
//! (`plugins::types::splittable`), when the operator turned `[split]` on, the request did not
//! say `"split": false`, and the input lasts at least `split.min_duration_s`:
//!
//! ```text
//! one part for the audio (encoded once over the whole input), queued first
//!   → cut (stream copy at the keyframes nearest each split.segment_s)  commands.rs
//!   → one part per segment in the shared queue; any worker of any instance takes them
//!     (this coordinator too, while it waits)                         part.rs, db/parts.rs
//!   → mux (concat demuxer, -c copy) → check (frames, duration, timestamps, A/V)
//!                                                                    verify.rs, facts.rs
//! ```
//!
//! A part's failure fails the task; a part whose worker dies is taken again (leases, as jobs).
//! The parent's progress is the sum of its parts', and the time charged the sum of every
//! ffmpeg run's (the work done).

mod commands;
mod facts;
mod part;
mod schedule;
mod verify;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures_util::TryStreamExt;
use tokio::sync::watch;

use super::build::Built;
use super::resolve::{InputFile, Resolved};
use super::{Completed, Measured, estimate, register_run, run};
use crate::app::AppState;
use crate::clock;
use crate::db::{Directory, Part, PartStatus};
use crate::error::{AppError, AppResult};
use crate::media::scratch::Scratch;
use crate::media::{argv, inspect};
use crate::plugins::types::{BuiltCommand, StagedInput, splittable};
use crate::{metrics, names};

pub use part::work;

/// A segment whose worker died this many times fails the task (as a job's does).
const MAX_ATTEMPTS: u32 = 3;

/// Parts the stitch fetches from the store at once.
const STAGED_AT_ONCE: usize = 8;

/// Fewest frames a part carries: below this a part's fixed costs (staging, the sandbox,
/// ffmpeg's start-up, about 0.1 s) outweigh its share of the encode, and a tiny input of many
/// keyframes would become hundreds of runs (issue #32).
const MIN_PART_FRAMES: u64 = 250;

/// Most parts one task is cut into, however long: each is a row, two objects and a run.
const MAX_PARTS: u64 = 64;

/// Fewest frames of the last parts, which the schedule makes shorter so the workers finish
/// together (`schedule.rs`): about two seconds at 30 fps.
const TAIL_FRAMES: u64 = 60;

/// A part's own wall time beside its encode: the claim, staging the segment, the sandbox,
/// ffmpeg's start, storing the result (measured about 0.1 to 0.2 s).
const PART_COST_S: f64 = 0.2;

/// What is left until `deadline` (unix ms); zero once it passed.
fn time_left(deadline: i64) -> Duration {
    Duration::from_millis((deadline - clock::now_ms()).max(0) as u64)
}

/// The task's own timeout, for the whole split: wall time until the deadline, and the ffmpeg
/// time of every run summed.
fn timed_out(state: &AppState) -> AppError {
    AppError::TimedOut {
        what: "Processing",
        seconds: state.cfg.limits.process_timeout_s,
    }
}

/// The longest a part may be: `segment_s`, or longer where that would make more than
/// `MAX_PARTS` parts or parts of fewer than `MIN_PART_FRAMES` frames. `None`: not worth
/// splitting.
fn segment_length(frames: u64, duration: f64, segment_s: f64) -> Option<f64> {
    let parts = (frames / MIN_PART_FRAMES).min(MAX_PARTS);
    (parts >= 2 && duration > 0.0).then(|| segment_s.max(duration / parts as f64))
}

/// How a split encode will cut its input.
pub struct Plan {
    input: facts::Facts,
    cuts: Vec<f64>,
    /// Whether the output has sound: encoded as a part of its own.
    audio: bool,
}

/// The plan, when the task is to be split; `None` runs it whole. `staged` holds the bytes.
pub async fn plan(
    state: &AppState,
    resolved: &Resolved,
    built: &Built,
    staged: &[StagedInput],
) -> AppResult<Option<Plan>> {
    let cfg = &state.cfg.split;
    if !cfg.enabled || !resolved.task.split || !splittable(&built.decisions) {
        return Ok(None);
    }
    let (Some(input), [at]) = (resolved.inputs.first(), staged) else {
        return Ok(None);
    };
    // The stored file's facts are kept: a long input is probed once, not per submission.
    let InputFile::Stored(file) = &input.file else {
        return Ok(None);
    };
    let account = &resolved.account.name;
    let duration = inspect::inspect_staged(state, account, file, Path::new(&at.path))
        .await
        .and_then(|f| inspect::duration_of(&f));
    if duration.is_none_or(|d| d < cfg.min_duration_s) {
        return Ok(None);
    }
    let input = facts::read(state, account, Path::new(&at.path)).await?;
    let Some(video) = &input.video else {
        return Ok(None);
    };
    let Some(longest) = segment_length(video.frames, video.duration(), cfg.segment_s) else {
        return Ok(None);
    };
    let output = built.parts.outputs.first();
    let audio = input.audio.is_some() && output.is_some_and(|o| !o.args.iter().any(|a| a == "-an"));
    let duration = video.duration();
    let speed = async |kind: estimate::Kind| estimate::speed(state, account, &kind).await;
    let costs = schedule::Costs {
        video: 1.0 / speed(estimate::kind_of(&resolved.task)).await?,
        audio: if audio {
            duration / speed(estimate::Kind::audio()).await?
        } else {
            0.0
        },
        cut: duration / speed(estimate::Kind::copy()).await?,
        part: PART_COST_S,
    };
    let bounds = schedule::Bounds {
        shortest: TAIL_FRAMES as f64 * duration / video.frames as f64,
        longest,
        most: MAX_PARTS as usize,
    };
    let workers = takers(state).await?;
    let cuts = schedule::cuts(&video.keyframes, duration, workers, costs, bounds);
    Ok((!cuts.is_empty()).then_some(Plan { input, cuts, audio }))
}

tokio::task_local! {
    /// Set while a job's worker runs the task (`jobs/worker.rs`): the coordinator is then one of
    /// the takers already counted.
    pub static ON_WORKER: ();
}

/// The workers that will take this split's parts: this instance's (known here, even before its
/// row is written), every other instance's where `[split]` is on, and the coordinator (which
/// takes parts while it waits) unless it is one of them.
async fn takers(state: &AppState) -> AppResult<usize> {
    let others = state
        .db
        .other_takers(&state.instance, clock::now_ms())
        .await? as usize;
    let coordinator = usize::from(ON_WORKER.try_with(|_| ()).is_err());
    Ok(state.cfg.jobs.workers + others + coordinator)
}

/// Runs the plan: cut, parts, audio, mux, check, register. `scratch` has the input staged.
#[allow(clippy::too_many_arguments)]
pub async fn run(
    state: &Arc<AppState>,
    resolved: &Resolved,
    output_dir: &Directory,
    scratch: &Scratch,
    staged: &[StagedInput],
    input_bytes: u64,
    built: Built,
    plan: Plan,
    progress: watch::Sender<u64>,
) -> AppResult<Completed> {
    metrics::count(metrics::SPLIT_RUNS);
    let deadline = clock::now_ms() + (state.cfg.limits.process_timeout_s * 1000) as i64;
    let account = resolved.account.name.as_str();
    let split_id = names::random_id(16);
    // Phase times in the log: where a split's wall time goes, for operators tuning `[split]`.
    let started = std::time::Instant::now();
    let work = Scratch::new(&state.scratch_dir).map_err(|e| AppError::Internal(e.into()))?;
    let output = built
        .parts
        .outputs
        .first()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("no output")))?;
    let name = Path::new(&output.path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    let ext = name.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    let input_path = staged[0].path.as_str();
    let _cleanup = Cleanup {
        state: state.clone(),
        split_id: split_id.clone(),
    };

    // A segment's part (`Some(index)`), or the audio's (`None`).
    let part =
        |segment: Option<usize>, input_object: String, input_ext: &str, args, output_name| Part {
            part_id: match segment {
                Some(index) => format!("split-{split_id}-{index}"),
                None => format!("split-{split_id}-audio"),
            },
            split_id: split_id.clone(),
            account: account.to_string(),
            index: segment.unwrap_or(0) as u32,
            status: PartStatus::Pending,
            audio: segment.is_none(),
            input_object,
            input_ext: input_ext.to_string(),
            args,
            output_name,
            output_object: None,
            media_s: 0.0,
            processed_s: 0.0,
            elapsed_s: 0.0,
            failure: None,
            deadline,
            lease_token: None,
            lease_until: 0,
            attempts: 0,
            alive_until: clock::now_ms() + alive_ms(state),
            created_at: clock::now_ms(),
        };
    let named = |stem: String| match ext {
        "" => stem,
        ext => format!("{stem}.{ext}"),
    };
    // The audio, encoded once over the whole input (per-segment audio drifts) and read from the
    // stored input, is queued first: it needs no cut, so a worker encodes it while this one cuts.
    let mut made = 0;
    if let (true, Some(InputFile::Stored(file))) =
        (plan.audio, resolved.inputs.first().map(|i| &i.file))
    {
        let input_ext = Path::new(input_path)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        let args = commands::audio_args(&output.args);
        let row = part(
            None,
            file.object_id.clone(),
            input_ext,
            args,
            named("audio".into()),
        );
        state.db.create_part(&row).await?;
        state.wakers.jobs.notify_waiters();
        made += 1;
    }
    crate::timing::mark("audio");

    // Cut, and hand each segment to the queue: every worker takes them.
    let cut = commands::cut(input_path, &plan.cuts, &scratch.outputs());
    let mut elapsed = ffmpeg(state, account, scratch, staged, &cut, deadline).await?;
    let segments: Vec<_> = super::register::produced(&scratch.outputs())
        .await?
        .into_iter()
        .map(|(_, path)| path)
        .collect();
    let video = plan.input.video.as_ref().expect("planned on video");
    let mut starts = vec![0.0];
    starts.extend(&plan.cuts);
    starts.push(video.duration());
    for (index, segment) in segments.iter().enumerate() {
        let input_object = format!("split-{split_id}-{index}-cut");
        state.store.put_file(&input_object, segment).await?;
        let args = commands::segment_args(&output.args);
        let mut row = part(
            Some(index),
            input_object,
            commands::CUT_EXT,
            args,
            named(format!("part_{index}")),
        );
        row.media_s =
            (starts.get(index + 1).unwrap_or(&0.0) - starts.get(index).unwrap_or(&0.0)).max(0.0);
        state.db.create_part(&row).await?;
        made += 1;
        let _ = tokio::fs::remove_file(segment).await;
    }
    state.wakers.jobs.notify_waiters();
    let queued = started.elapsed();
    crate::timing::mark("cut");

    // Wait for the parts, encoding any still pending here.
    let parts = tokio::select! {
        parts = gather(state, &split_id, made, &progress, deadline, elapsed) => parts?,
        () = keep_alive(state, &split_id) => unreachable!("keeps the parts alive until dropped"),
    };
    let encoded = started.elapsed();
    crate::timing::mark("parts");

    // Stitch and check, a few parts fetched at a time (the other workers are idle meanwhile;
    // a long input has hundreds of parts, not worth as many connections).
    let inputs = work.inputs();
    futures_util::stream::iter(parts.iter().map(Ok::<_, anyhow::Error>))
        .try_for_each_concurrent(STAGED_AT_ONCE, |p| {
            let (object, at) = (p.output_object.as_deref(), inputs.join(&p.output_name));
            async move { state.store.stage(object.unwrap_or_default(), &at).await }
        })
        .await?;
    crate::timing::mark("fetch");
    let mut files = Vec::with_capacity(parts.len());
    let mut audio = None;
    for p in &parts {
        let at = inputs.join(&p.output_name);
        elapsed += Duration::from_secs_f64(p.elapsed_s.max(0.0));
        if p.audio {
            audio = Some(at.to_string_lossy().into_owned());
        } else {
            files.push(p.output_name.clone());
        }
    }
    let list = work.inputs().join("parts.ffconcat");
    tokio::fs::write(&list, commands::concat_list(&files))
        .await
        .map_err(|e| AppError::Internal(e.into()))?;
    let list = list.to_string_lossy().into_owned();
    let mut mux_inputs = vec![StagedInput {
        name: "segments".into(),
        path: list.clone(),
    }];
    if let Some(audio) = &audio {
        mux_inputs.push(StagedInput {
            name: "audio".into(),
            path: audio.clone(),
        });
    }
    let stitched = work.outputs().join(&name);
    let mux = commands::mux(&list, audio.as_deref(), &output.args, &stitched);
    elapsed += ffmpeg(state, account, &work, &mux_inputs, &mux, deadline).await?;
    crate::timing::mark("stitch");
    let made = facts::read(state, account, &stitched).await?;
    verify::check(&plan.input, &made, audio.is_some()).map_err(AppError::SplitCheck)?;
    crate::timing::mark("check");
    tokio::fs::rename(&stitched, scratch.outputs().join(&name))
        .await
        .map_err(|e| AppError::Internal(e.into()))?;
    let secs = |d: Duration| (d.as_secs_f64() * 100.0).round() / 100.0;
    tracing::info!(
        split_id,
        parts = parts.len(),
        cut_and_queued_s = secs(queued),
        encoded_s = secs(encoded - queued),
        stitched_and_checked_s = secs(started.elapsed() - encoded),
        "split encode stitched"
    );

    progress.send_replace((video.duration() * 1e6) as u64);
    let measured = Measured {
        media_s: video.duration(),
        elapsed,
        input_bytes,
    };
    register_run(state, resolved, output_dir, scratch, measured, built.shown).await
}

/// Runs one of the host's own commands through the fence and the sandbox, by `deadline`.
async fn ffmpeg(
    state: &AppState,
    account: &str,
    scratch: &Scratch,
    staged: &[StagedInput],
    cmd: &BuiltCommand,
    deadline: i64,
) -> AppResult<Duration> {
    let argv = argv::ffmpeg_argv(cmd, staged, &scratch.dir, &scratch.outputs())
        .map_err(|r| AppError::HostRefused(r.0))?;
    let left = time_left(deadline);
    run::ffmpeg_within(state, account, scratch, staged, argv, None, left).await
}

/// The parts once all are done, publishing their summed progress; the first failure fails
/// the task, and so does its timeout (the deadline passed, or the parts' ffmpeg time and
/// `spent` add up to more than it). Pending parts are taken here too, so a split never waits
/// for a free worker.
async fn gather(
    state: &Arc<AppState>,
    split_id: &str,
    made: usize,
    progress: &watch::Sender<u64>,
    deadline: i64,
    spent: Duration,
) -> AppResult<Vec<Part>> {
    let budget = state.cfg.limits.process_timeout_s as f64;
    let lease_ms = (state.cfg.jobs.lease_s * 1000) as i64;
    let poll = Duration::from_millis(state.cfg.jobs.poll_interval_ms.clamp(50, 250));
    loop {
        // Any change to a part (here or on another instance, `jobs/worker.rs`) wakes this up:
        // the stitch starts as the last part lands, not at the next poll.
        let changed = state.wakers.jobs.notified();
        // The workers give back dead workers' segments too, but all of them may be busy.
        requeue(state, clock::now_ms()).await;
        let parts = state.db.parts_of(split_id).await?;
        if parts.len() != made {
            // Taken away as abandoned (`sweep`): this coordinator stalled past the grace.
            return Err(AppError::Internal(anyhow::anyhow!(
                "split {split_id}: {} of {made} parts left",
                parts.len()
            )));
        }
        if let Some(failure) = parts.iter().find_map(|p| p.failure.as_ref()) {
            return Err(AppError::Joined {
                status: failure.status,
                message: failure.message.clone(),
                details: failure.details.clone(),
            });
        }
        let charged: f64 = parts.iter().map(|p| p.elapsed_s.max(0.0)).sum();
        if clock::now_ms() >= deadline || spent.as_secs_f64() + charged > budget {
            return Err(timed_out(state));
        }
        let processed: f64 = parts
            .iter()
            .filter(|p| !p.audio)
            .map(|p| p.processed_s)
            .sum();
        progress.send_replace((processed * 1e6) as u64);
        if parts.iter().all(|p| p.status == PartStatus::Done) {
            return Ok(parts);
        }
        let token = names::random_id(24);
        match state
            .db
            .claim_part(Some(split_id), &token, clock::now_ms(), lease_ms)
            .await?
        {
            Some(part) => work(state, part, &token).await,
            None => tokio::select! {
                () = changed => {}
                () = tokio::time::sleep(poll.min(time_left(deadline))) => {}
            },
        }
    }
}

/// Gives back segments whose worker stopped renewing their lease.
pub async fn requeue(state: &AppState, now: i64) {
    if let Err(e) = state.db.requeue_parts(now, MAX_ATTEMPTS).await {
        tracing::warn!("segment requeue failed: {e}");
    }
}

/// How long parts stay claimable without a heartbeat from their coordinator.
fn alive_ms(state: &AppState) -> i64 {
    (state.cfg.jobs.lease_s * 3000) as i64
}

/// The coordinator's heartbeat on its parts, three per `alive_ms`; never returns. Not more:
/// each beat writes every part, and each write wakes every instance's live query.
async fn keep_alive(state: &AppState, split_id: &str) {
    let every = Duration::from_millis((alive_ms(state) as u64 / 3).max(200));
    loop {
        tokio::time::sleep(every).await;
        if let Err(e) = state
            .db
            .keep_parts_alive(split_id, clock::now_ms() + alive_ms(state))
            .await
        {
            tracing::warn!(split_id, "split heartbeat failed: {e}");
        }
    }
}

/// Removes a split's parts and their objects however the coordinator ends (done, failed, or
/// dropped with a lost lease).
struct Cleanup {
    state: Arc<AppState>,
    split_id: String,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let (state, split_id) = (self.state.clone(), std::mem::take(&mut self.split_id));
        tokio::spawn(async move {
            match state.db.take_parts(Some(&split_id), clock::now_ms()).await {
                Ok(parts) => remove_objects(&state, &parts).await,
                Err(e) => tracing::warn!(split_id, "split cleanup failed: {e}"),
            }
        });
    }
}

/// How long after its coordinator's last heartbeat a split counts as abandoned. Far beyond
/// the heartbeat's own margin: a coordinator starved of CPU for a while must find its parts.
const ABANDONED_AFTER_MS: i64 = 10 * 60 * 1000;

/// Parts whose coordinator stopped renewing them (it died): removed with their objects. The
/// sweeper calls it.
pub async fn sweep(state: &AppState) -> anyhow::Result<()> {
    let cutoff = clock::now_ms() - ABANDONED_AFTER_MS;
    let parts = state.db.take_parts(None, cutoff).await?;
    remove_objects(state, &parts).await;
    Ok(())
}

async fn remove_objects(state: &AppState, parts: &[Part]) {
    for p in parts {
        // The audio part reads the task's own input: never removed with the part.
        let cut = (!p.audio).then_some(&p.input_object);
        for object in cut.into_iter().chain(&p.output_object) {
            if let Err(e) = state.store.delete(object).await {
                tracing::warn!(object, "removing a split segment: {e:#}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_carry_enough_frames_and_are_bounded_in_number() {
        // 400 one-frame keyframes over a long time: not worth one extra run.
        assert_eq!(segment_length(400, 12_000.0, 30.0), None);
        // 60 s at 30 fps: the configured length stands.
        assert_eq!(segment_length(1800, 60.0, 10.0), Some(10.0));
        // 600 frames: two parts at most, whatever segment_s says.
        assert_eq!(segment_length(600, 60.0, 1.0), Some(30.0));
        // Ten hours at 30 fps: at most MAX_PARTS parts.
        assert_eq!(
            segment_length(1_080_000, 36_000.0, 30.0),
            Some(36_000.0 / 64.0)
        );
    }
}
