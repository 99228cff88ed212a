//! Stage 5, *run*: ffmpeg in the sandbox, read-only inputs, one writable output folder, with
//! the configured time, size and file limits, reporting progress as it goes.

use std::time::Duration;

use tokio::sync::watch;

use crate::app::AppState;
use crate::error::{AppError, AppResult};
use crate::media::runner::{self, Killed, OutputCap, Spec};
use crate::media::sandbox::Rlimits;
use crate::media::scratch::Scratch;
use crate::plugins::types::StagedInput;

/// Runs a checked argv within `limits.process_timeout_s`; returns how long ffmpeg ran.
pub async fn ffmpeg(
    state: &AppState,
    account: &str,
    scratch: &Scratch,
    staged: &[StagedInput],
    argv: Vec<String>,
    progress: Option<watch::Sender<u64>>,
) -> AppResult<Duration> {
    let whole = Duration::from_secs(state.cfg.limits.process_timeout_s);
    ffmpeg_within(state, account, scratch, staged, argv, progress, whole).await
}

/// `ffmpeg` given only `timeout` (at most the configured one): what a split task's runs have
/// left of the task's own time.
pub async fn ffmpeg_within(
    state: &AppState,
    account: &str,
    scratch: &Scratch,
    staged: &[StagedInput],
    argv: Vec<String>,
    progress: Option<watch::Sender<u64>>,
    timeout: Duration,
) -> AppResult<Duration> {
    let run = Run {
        argv,
        progress,
        timeout,
        stderr_cap: runner::STDERR_TAIL,
    };
    Ok(checked(state, account, scratch, staged, run).await?.elapsed)
}

/// The most of a measuring run's log kept (its end: summaries come last).
const MAX_LOG: usize = 1024 * 1024;

/// A run for what ffmpeg measures (a recipe's analysis step): ffmpeg at `info` level, and its
/// log, at most its last `MAX_LOG` bytes, with the run's paths replaced by the tenant's names.
pub async fn ffmpeg_logged(
    state: &AppState,
    account: &str,
    scratch: &Scratch,
    staged: &[StagedInput],
    mut argv: Vec<String>,
) -> AppResult<(Duration, String)> {
    // The host's own lead (`media/argv.rs`) sets the level; nothing of the tenant's is changed.
    if let Some(at) = argv.iter().take(8).position(|a| a == "-loglevel") {
        argv[at + 1] = "info".into();
    }
    let run = Run {
        argv,
        progress: None,
        timeout: Duration::from_secs(state.cfg.limits.process_timeout_s),
        stderr_cap: MAX_LOG,
    };
    let exit = checked(state, account, scratch, staged, run).await?;
    let mut log = exit.stderr_tail;
    for s in staged.iter().rev() {
        log = log.replace(&s.path, &s.name);
    }
    log = log.replace(&scratch.dir.display().to_string(), "");
    Ok((exit.elapsed, log))
}

/// One ffmpeg run as the pipeline asks for it.
struct Run {
    argv: Vec<String>,
    progress: Option<watch::Sender<u64>>,
    timeout: Duration,
    stderr_cap: usize,
}

/// Runs ffmpeg in the sandbox; its exit, or the error its failure is.
async fn checked(
    state: &AppState,
    account: &str,
    scratch: &Scratch,
    staged: &[StagedInput],
    run: Run,
) -> AppResult<runner::Exit> {
    let Run {
        argv,
        progress,
        timeout,
        stderr_cap,
    } = run;
    let limits = &state.cfg.limits;
    let timeout = timeout.min(Duration::from_secs(limits.process_timeout_s));
    if timeout.is_zero() {
        return Err(AppError::TimedOut {
            what: "Processing",
            seconds: limits.process_timeout_s,
        });
    }
    let exit = {
        let _slot = state.tenants.process_slot(account).await;
        crate::metrics::count(crate::metrics::FFMPEG_RUNS);
        runner::run(
            &state.sandbox,
            Spec {
                program: &state.cfg.sandbox.ffmpeg_path,
                args: argv,
                read_only: vec![scratch.inputs()],
                writable: vec![scratch.outputs()],
                cwd: &scratch.outputs(),
                timeout,
                rlimits: Rlimits {
                    file_size: limits.max_output_bytes,
                    cpu_seconds: timeout.as_secs().max(1) * 4,
                    open_files: 1024,
                },
                output_cap: Some(OutputCap {
                    dir: scratch.outputs(),
                    max_bytes: limits.max_output_bytes,
                    max_files: limits.max_output_files,
                }),
                stdout_cap: 0,
                stderr_cap,
                progress,
            },
        )
        .await
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::ArgumentListTooLong => AppError::CommandTooLong(e.to_string()),
            _ => AppError::Internal(anyhow::anyhow!("cannot start ffmpeg: {e}")),
        })?
    };
    match exit.killed {
        Some(Killed::Timeout) => {
            return Err(AppError::TimedOut {
                what: "Processing",
                seconds: limits.process_timeout_s,
            });
        }
        Some(Killed::OutputCap) => {
            return Err(AppError::OutputsTooLarge {
                max_bytes: limits.max_output_bytes,
                max_files: limits.max_output_files,
            });
        }
        None => {}
    }
    if exit.out_of_memory {
        return Err(AppError::OutOfMemory(limits.process_memory_mb));
    }
    if !exit.success() {
        let code = exit.code.or(exit.signal.map(|s| 128 + s)).unwrap_or(-1);
        return Err(AppError::FfmpegFailed {
            code,
            details: sanitize_stderr(&exit.stderr_tail, scratch, staged),
        });
    }
    Ok(exit)
}

/// At most 2000 characters of ffmpeg's stderr, with scratch paths replaced by the tenant's own
/// names and any other absolute path hidden.
pub fn sanitize_stderr(stderr: &str, scratch: &Scratch, staged: &[StagedInput]) -> Option<String> {
    let mut text = stderr.to_string();
    for s in staged.iter().rev() {
        text = text.replace(&s.path, &s.name);
    }
    text = text.replace(&format!("{}/", scratch.outputs().display()), "");
    text = text.replace(&scratch.dir.display().to_string(), "");
    let mut out = String::new();
    for line in text
        .lines()
        .rev()
        .take(20)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        let line: String = line
            .split(' ')
            .map(|w| {
                if w.trim_start_matches(['\'', '"']).starts_with('/') {
                    "<path>"
                } else {
                    w
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
        out.push_str(&line);
        out.push('\n');
    }
    let out: String = out
        .trim()
        .chars()
        .rev()
        .take(2000)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    (!out.is_empty()).then_some(out)
}
