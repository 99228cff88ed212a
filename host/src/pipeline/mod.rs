//! The one run pipeline: every way a task runs (POST /ffmpeg/process, the async worker, the
//! natural-language endpoints, legacy /ffmpeg/run, and the dry run POST /ffmpeg/validate) goes
//! through these stages, each a module with a typed hand-off:
//!
//! ```text
//! resolve (rules, ownership, plan, quota)       → Resolved      resolve.rs
//!   → import (URL inputs into storage)          → Resolved      import.rs
//!   → stage (scratch dir, inputs laid out; bytes copied in only when ffmpeg runs)
//!                                               → StagedInput[] stage.rs, concat.rs
//!   → build (plugin, then the host's argv check)→ Built         build.rs   ← the dry run stops here
//!   → cache (hit, or join an identical run)     → Completed?    cached.rs
//!   → run (sandboxed ffmpeg, progress)          → Duration      run.rs
//!     or split (segments on every worker, stitched and checked)      split/
//!   → register (outputs into the directory)     → StoredOutput[] register.rs
//!   → charge (sync here; a job in the transaction that completes it)
//! ```
//!
//! Probes (`probe.rs`) are the same shape with ffprobe and no outputs; a recipe's analysis
//! (`measure.rs`) the same with the null muxer and ffmpeg's log as its result; a file a plugin
//! wrote (`text.rs`) joins at *register*.

mod build;
mod cached;
mod concat;
pub mod estimate;
mod export;
mod import;
pub mod measure;
pub mod probe;
mod probe_json;
mod register;
mod resolve;
mod run;
pub mod split;
mod stage;
pub mod text;

use std::sync::Arc;

use serde::Serialize;
use tokio::sync::watch;

pub use import::import_url;

/// Whether an input is a concat list, as staging will judge it: declared by its name or
/// options, or found by its first bytes at `path`.
pub async fn is_concat_list(
    name: &str,
    options: &[String],
    path: &std::path::Path,
) -> AppResult<bool> {
    Ok(concat::declared(name, options) || concat::sniffed(path).await?)
}
pub use export::outputs as export_outputs;
pub use resolve::{
    ExportTarget, Input, InputFile, Resolved, export_target, file_name_of, reload, resolve,
    resolve_unmetered, url_file_name,
};

use crate::app::AppState;
use crate::cache::Outcome;
use crate::db::{Account, Directory, StoredOutput};
use crate::error::{AppError, AppResult};
use crate::media::scratch::Scratch;
use crate::plugins::types::PolicyDecision;
use crate::task::Task;
use crate::tenants::TaskPermit;
use crate::usage::{Charge, Estimate, Usage};
use crate::{files, metering};

/// A run that finished: its outputs registered, its figures measured (not yet charged).
#[derive(Debug, Clone)]
pub struct Completed {
    pub outputs: Vec<StoredOutput>,
    pub usage: Usage,
    pub charge: Charge,
    /// The argv that ran, as the tenant reads it (what the dry run showed).
    pub command: Vec<String>,
    /// Whether the outputs came from the result cache.
    pub cache: Outcome,
}

/// What a task would run, without running it.
#[derive(Debug, Clone)]
pub struct DryRun {
    pub command: Vec<String>,
    pub decisions: Vec<PolicyDecision>,
    pub output_dir_id: Option<String>,
}

/// An output with a fresh download URL, as responses and callbacks show it.
#[derive(Debug, Clone, Serialize, salvo::oapi::ToSchema)]
pub struct OutputLink {
    pub file_name: String,
    pub size_bytes: u64,
    /// Presigned GET URL, valid `storage.download_url_ttl_s` seconds.
    pub download_url: String,
    /// For an HLS playlist or a DASH manifest: a URL under the directory's playback prefix
    /// (`api/share.rs`), where the files it names resolve too, so a player plays it from here.
    /// Valid `storage.playback_url_ttl_s` seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playback_url: Option<String>,
    /// Where the task's `export` copied it: `s3://<credential>/<key>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exported_to: Option<String>,
}

/// Resolves and imports: what a submission or a sync run does before anything else.
pub async fn prepare(state: &AppState, account: &Account, task: Task) -> AppResult<Resolved> {
    prepare_checked(state, account, task, true).await
}

/// `prepare`; without `early_quota`, the quota is checked here only before an import would
/// fetch bytes: for a caller that holds the quota next (`metering::hold` refuses as the check
/// would, atomically), a task of stored inputs asks the database once, not twice.
async fn prepare_checked(
    state: &AppState,
    account: &Account,
    task: Task,
    early_quota: bool,
) -> AppResult<Resolved> {
    let mut resolved = resolve_unmetered(state, account, task).await?;
    let imports = resolved
        .inputs
        .iter()
        .any(|i| !matches!(i.file, InputFile::Stored(_)));
    if early_quota || imports {
        metering::check_quota(state, account, resolved.stored_bytes()).await?;
    }
    crate::timing::mark("resolve");
    import::import(state, &mut resolved).await?;
    crate::timing::mark("import");
    Ok(resolved)
}

/// Admits one sync task, probe or plain-language call of the account (its plan's
/// `max_concurrent_tasks`), for as long as the permit lives.
pub fn admit(state: &AppState, account: &Account) -> AppResult<TaskPermit> {
    let (_, plan) = state.plan_of(account)?;
    state
        .tenants
        .admit_task(&account.name, plan.max_concurrent_tasks)
}

/// A task run now, for the request that waits for it: admit, prepare, execute, charge.
pub async fn run_now(state: &Arc<AppState>, account: &Account, task: Task) -> AppResult<Completed> {
    run_now_watched(state, account, task, None).await
}

/// `run_now`, publishing ffmpeg's progress (microseconds of media processed) as it goes.
pub async fn run_now_watched(
    state: &Arc<AppState>,
    account: &Account,
    task: Task,
    progress: Option<watch::Sender<u64>>,
) -> AppResult<Completed> {
    let permit = admit(state, account)?;
    run_admitted(state, account, task, &permit, progress).await
}

/// `run_now` for a caller that admitted the task already (it did work of its own first).
pub async fn run_admitted(
    state: &Arc<AppState>,
    account: &Account,
    task: Task,
    _admitted: &TaskPermit,
    progress: Option<watch::Sender<u64>>,
) -> AppResult<Completed> {
    let resolved = prepare_checked(state, account, task, false).await?;
    let hold = metering::hold(
        state,
        account,
        resolved.stored_bytes(),
        crate::names::random_id(20),
    )
    .await?;
    crate::timing::mark("quota");
    match execute(state, &resolved, progress).await {
        Ok(done) => {
            hold.settle(&done.charge).await?;
            crate::timing::mark("charge");
            Ok(done)
        }
        Err(e) => {
            hold.release().await;
            Err(e)
        }
    }
}

/// The same pipeline stopped after *build*: URL inputs are not fetched, nothing runs or is
/// charged. The command and decisions are exactly those a run would have.
pub async fn dry_run(state: &AppState, account: &Account, task: Task) -> AppResult<DryRun> {
    let resolved = resolve(state, account, task).await?;
    let scratch = scratch(state)?;
    let staged = stage::plan(state, &scratch, &resolved.task, &resolved.inputs).await?;
    let built = build::build(state, &resolved.task, &resolved.inputs, &staged, &scratch).await?;
    Ok(DryRun {
        command: built.shown,
        decisions: built.decisions,
        output_dir_id: resolved.output_dir.map(|d| d.dir_id),
    })
}

/// What a task would cost, refused as a run would refuse it (the policy builds its command
/// against the staging layout), but not checked against the quota: the caller reports the fit.
pub async fn estimate(
    state: &AppState,
    account: &Account,
    task: Task,
) -> AppResult<(Resolved, Estimate)> {
    let resolved = resolve_unmetered(state, account, task).await?;
    let scratch = scratch(state)?;
    let staged = stage::plan(state, &scratch, &resolved.task, &resolved.inputs).await?;
    build::build(state, &resolved.task, &resolved.inputs, &staged, &scratch).await?;
    let expected = estimate::of(state, &resolved).await?;
    Ok((resolved, expected))
}

/// Stage, build, run and register a resolved and imported task, or answer it from the result
/// cache. The caller charges it.
pub async fn execute(
    state: &Arc<AppState>,
    resolved: &Resolved,
    progress: Option<watch::Sender<u64>>,
) -> AppResult<Completed> {
    let output_dir = resolved
        .output_dir
        .clone()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("no output directory")))?;
    let scratch = scratch(state)?;
    let staged = stage::layout(&scratch, &resolved.task, &resolved.inputs);
    crate::timing::mark("stage");
    let built = build::build(state, &resolved.task, &resolved.inputs, &staged, &scratch).await?;
    crate::timing::mark("build");
    let key = cached::key(state, resolved, &staged, &built).await?;
    crate::timing::mark("cache");
    let shown = built.shown.clone();
    // On the heap: the run's state (a split encode's included) is large, and unoptimised builds
    // move futures through the stack; inline, it overflowed tokio's worker stacks.
    let run = || {
        Box::pin(process(
            state,
            resolved,
            &output_dir,
            &scratch,
            built,
            progress,
        ))
    };
    let mut done = match key {
        Some(key) => cached::run_once(state, resolved, &output_dir, &key, &shown, run).await,
        None => {
            crate::metrics::count(crate::metrics::CACHE_MISSES);
            run().await
        }
    }?;
    crate::timing::mark("cache");
    if let Some(target) = &resolved.export {
        export::outputs(state, target, &mut done.outputs).await?;
        crate::timing::mark("export");
    }
    Ok(done)
}

/// Stage the bytes, run ffmpeg (whole, or split in segments), register the outputs, record
/// the figures.
async fn process(
    state: &Arc<AppState>,
    resolved: &Resolved,
    output_dir: &Directory,
    scratch: &Scratch,
    built: build::Built,
    progress: Option<watch::Sender<u64>>,
) -> AppResult<Completed> {
    crate::timing::mark("cache");
    let (staged, input_bytes) =
        stage::stage(state, scratch, &resolved.task, &resolved.inputs).await?;
    crate::timing::mark("stage");
    let progress = progress.unwrap_or_else(|| watch::channel(0).0);
    if let Some(plan) = split::plan(state, resolved, &built, &staged).await? {
        crate::timing::mark("plan");
        return split::run(
            state,
            resolved,
            output_dir,
            scratch,
            &staged,
            input_bytes,
            built,
            plan,
            progress,
        )
        .await;
    }
    let processed = progress.subscribe();
    let elapsed = run::ffmpeg(
        state,
        &resolved.account.name,
        scratch,
        &staged,
        built.argv,
        Some(progress),
    )
    .await?;
    crate::timing::mark("ffmpeg");
    let media_s = *processed.borrow() as f64 / 1e6;
    let measured = Measured {
        media_s,
        elapsed,
        input_bytes,
    };
    register_run(state, resolved, output_dir, scratch, measured, built.shown).await
}

/// What a run measured, for its usage and the estimates.
struct Measured {
    media_s: f64,
    elapsed: std::time::Duration,
    input_bytes: u64,
}

/// Registers what a run left in the scratch's output folder and records its figures.
async fn register_run(
    state: &Arc<AppState>,
    resolved: &Resolved,
    output_dir: &Directory,
    scratch: &Scratch,
    m: Measured,
    shown: Vec<String>,
) -> AppResult<Completed> {
    let outputs = register::outputs(
        state,
        &resolved.account,
        output_dir,
        &resolved.inputs,
        &scratch.outputs(),
    )
    .await?;
    crate::timing::mark("register");
    let output_bytes = outputs.iter().map(|o| o.size_bytes).sum();
    estimate::record(
        state,
        &resolved.account.name,
        &resolved.task,
        m.media_s,
        m.elapsed,
        output_bytes,
    );
    let usage = Usage::new(m.elapsed.as_secs_f64(), m.input_bytes, output_bytes);
    Ok(Completed {
        charge: Charge::of_run(m.input_bytes, output_bytes, &usage),
        outputs,
        usage,
        command: shown,
        cache: Outcome::Miss,
    })
}

/// Fresh download URLs for stored outputs.
pub async fn links(state: &AppState, outputs: &[StoredOutput]) -> AppResult<Vec<OutputLink>> {
    let mut links = Vec::with_capacity(outputs.len());
    for o in outputs {
        links.push(OutputLink {
            file_name: o.file_name.clone(),
            size_bytes: o.size_bytes,
            download_url: files::download_url(state, &o.object_id, &o.file_name).await?,
            playback_url: o
                .dir_id
                .as_deref()
                .and_then(|dir| files::playback_url(state, dir, &o.file_name)),
            exported_to: o.exported_to.clone(),
        });
    }
    Ok(links)
}

fn scratch(state: &AppState) -> AppResult<Scratch> {
    Scratch::new(&state.scratch_dir).map_err(|e| AppError::Internal(e.into()))
}
