//! A probe (POST /ffprobe/analyze) from request to filtered result: the input is a stored file of the
//! caller's or an https URL fetched (at most `limits.probe_max_bytes`) into the scratch
//! directory, never imported and never handed to ffprobe as a URL. The command-builder plugin
//! turns the probe configuration into ffprobe options; the host runs ffprobe in the sandbox
//! and keeps only the sections asked for, each exactly as ffprobe printed it. Frames and
//! packets are clipped: without `read_intervals` only the first 30 s are read, at most 3000
//! entries are returned, and ffprobe's output is read only up to `STDOUT_CAP`
//! (`probe_json.rs`), so one probe of a dense file cannot take the server's memory.
//! A URL's fetch counts in the probe's time limit, and a URL larger than the plan's file size
//! is refused as an upload would be.

use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::app::AppState;
use crate::db::Account;
use crate::error::{AppError, AppResult};
use crate::media::argv;
use crate::media::runner::{self, Exit, Killed, Spec};
use crate::media::sandbox::Rlimits;
use crate::media::scratch::Scratch;
use crate::net::NetError;
use crate::task::{ProbeConfig, Source, source_of};
use crate::usage::{Charge, Usage};
use crate::{directories, files, metering};

use super::probe_json::{self, Parsed};

pub const MAX_ENTRIES: usize = 3000;
pub const DEFAULT_INTERVAL: &str = "%+30";
/// ffprobe output kept: ample for 3000 entries of any kind, small next to the server's memory.
const STDOUT_CAP: usize = 16 * 1024 * 1024;

pub struct Probed {
    pub result: Value,
    /// ffprobe's own error text when it could not read the input.
    pub error: Option<String>,
    pub usage: Usage,
}

pub async fn analyze(
    state: &AppState,
    account: &Account,
    file_path: &str,
    probe: ProbeConfig,
) -> AppResult<Probed> {
    let admitted = super::admit(state, account)?;
    analyze_admitted(state, account, file_path, probe, &admitted).await
}

/// `analyze` for a caller that admitted the work already (a recipe's probe step).
pub async fn analyze_admitted(
    state: &AppState,
    account: &Account,
    file_path: &str,
    mut probe: ProbeConfig,
    _admitted: &crate::tenants::TaskPermit,
) -> AppResult<Probed> {
    let wants_entries = probe.frames.is_some() || probe.packets.is_some();
    if wants_entries && probe.select_streams.as_deref().is_none_or(str::is_empty) {
        return Err(AppError::BadRequest(
            "select_streams is required when requesting frames or packets".into(),
        ));
    }
    if wants_entries && probe.read_intervals.is_none() {
        probe.read_intervals = Some(DEFAULT_INTERVAL.into());
    }
    let limits = &state.cfg.limits;
    let deadline = Instant::now() + Duration::from_secs(limits.probe_timeout_s);
    let scratch = super::scratch(state)?;
    let (plan_name, plan) = state.plan_of(account)?;
    let input = scratch.inputs().join("probe");
    let input_bytes = match source_of(file_path).ok_or(AppError::InvalidFilePath)? {
        Source::Stored { dir_id, file_name } => {
            directories::owned(state, account, dir_id).await?;
            let file = files::readable(state, dir_id, file_name, &plan_name, plan).await?;
            metering::check_quota(state, account, file.size).await?;
            state.store.stage(&file.object_id, &input).await?;
            file.size
        }
        Source::Url(raw) => {
            let url = state.net.check(raw).await?;
            metering::check_quota(state, account, 0).await?;
            let fetched = state
                .net
                .download_prefix(
                    &url,
                    &input,
                    limits.probe_max_bytes,
                    plan.max_file_size_bytes(),
                    deadline.saturating_duration_since(Instant::now()),
                )
                .await;
            match fetched {
                // The probe's own limit, not the time left of it.
                Err(NetError::TimedOut(_)) => {
                    return Err(AppError::UrlTimedOut(limits.probe_timeout_s));
                }
                Err(NetError::TooLarge { size, .. }) => {
                    return Err(AppError::file_too_large(
                        &super::url_file_name(&url),
                        size,
                        &plan_name,
                        plan.max_file_size_mb,
                    ));
                }
                other => other?,
            }
        }
        // An object has no partial read here: the whole of it, within the plan's file size.
        Source::Bucket { credential, key } => {
            crate::credentials::check_object(credential, key)?;
            let bucket = crate::credentials::open(state, account, credential).await?;
            metering::check_quota(state, account, 0).await?;
            let limit = plan.max_file_size_bytes();
            let left = deadline.saturating_duration_since(Instant::now());
            match bucket.get(&state.net, key, &input, limit, left).await {
                Ok(n) => n,
                Err(NetError::TimedOut(_)) => {
                    return Err(AppError::UrlTimedOut(limits.probe_timeout_s));
                }
                Err(NetError::TooLarge { size, .. }) => {
                    return Err(AppError::file_too_large(
                        file_path,
                        size,
                        &plan_name,
                        plan.max_file_size_mb,
                    ));
                }
                Err(e) => return Err(crate::credentials::failed(&bucket, key, "read", e)),
            }
        }
    };
    let input = input.to_string_lossy().into_owned();
    let (exit, mut parsed) =
        ffprobe(state, &account.name, &scratch, &input, &probe, deadline).await?;
    let mut elapsed = exit.elapsed;
    let rest = ProbeConfig {
        frames: None,
        packets: None,
        ..probe.clone()
    };
    let rest_asked = [&rest.format, &rest.streams, &rest.chapters, &rest.programs]
        .iter()
        .any(|s| s.is_some());
    if !parsed.complete && rest_asked {
        // ffprobe prints frames and packets first: output cut at the cap lost the sections
        // after them, which a second run without frames and packets prints in full.
        tracing::info!(bytes = STDOUT_CAP, "ffprobe output cut at the cap");
        let (again, other) =
            ffprobe(state, &account.name, &scratch, &input, &rest, deadline).await?;
        elapsed += again.elapsed;
        for (name, value) in other.sections {
            parsed.sections.entry(name).or_insert(value);
        }
    }
    let error = (!exit.success()).then(|| {
        parsed.sections["error"]["string"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| "FFprobe could not read the input".into())
    });
    let mut result = keep_requested(parsed.sections, &probe);
    // ffprobe names the file it read: the staged path. Show the tenant's own path instead.
    if let Some(name) = result.get_mut("format").and_then(|f| f.get_mut("filename")) {
        *name = Value::String(file_path.to_string());
    }
    let usage = Usage::new(elapsed.as_secs_f64(), input_bytes, 0);
    if error.is_none() {
        metering::charge(
            state,
            &account.name,
            &Charge::of_run(input_bytes, 0, &usage),
        )
        .await?;
    }
    Ok(Probed {
        result,
        error,
        usage,
    })
}

/// One sandboxed ffprobe run of `probe` on the staged input, its output parsed with bounded
/// memory. A failed run still parses (ffprobe's `error` section tells why).
async fn ffprobe(
    state: &AppState,
    account: &str,
    scratch: &Scratch,
    input: &str,
    probe: &ProbeConfig,
    deadline: Instant,
) -> AppResult<(Exit, Parsed)> {
    let limits = &state.cfg.limits;
    let cmd = state.plugins.build_probe(probe, input).await?;
    let args =
        argv::ffprobe_argv(&cmd, input, &scratch.dir).map_err(|r| AppError::HostRefused(r.0))?;
    let exit = {
        let _slot = state.tenants.process_slot(account).await;
        runner::run(
            &state.sandbox,
            Spec {
                program: &state.cfg.sandbox.ffprobe_path,
                args,
                read_only: vec![scratch.inputs()],
                writable: vec![],
                cwd: &scratch.inputs(),
                timeout: deadline.saturating_duration_since(Instant::now()),
                rlimits: Rlimits {
                    file_size: 0,
                    cpu_seconds: limits.probe_timeout_s * 2,
                    open_files: 256,
                },
                output_cap: None,
                stdout_cap: STDOUT_CAP,
                stderr_cap: runner::STDERR_TAIL,
                progress: None,
            },
        )
        .await
        .map_err(|e| AppError::Internal(anyhow::anyhow!("cannot start ffprobe: {e}")))?
    };
    if exit.killed == Some(Killed::Timeout) {
        return Err(AppError::TimedOut {
            what: "Analysis",
            seconds: limits.probe_timeout_s,
        });
    }
    let parsed = probe_json::parse(&exit.stdout, MAX_ENTRIES).map_err(|_| {
        if exit.success() {
            AppError::ParseResponse
        } else {
            AppError::FfmpegFailed {
                code: exit.code.unwrap_or(-1),
                details: None,
            }
        }
    })?;
    Ok((exit, parsed))
}

/// Only the sections asked for, as ffprobe printed them (the entries already cut to
/// `MAX_ENTRIES`). No field is dropped: ffprobe prints a subsection it was not asked for (an
/// empty element of `side_data_list`, say) and the result is ffprobe's, field for field.
fn keep_requested(sections: Map<String, Value>, probe: &ProbeConfig) -> Value {
    let asked = |name: &str| match name {
        "format" => probe.format.is_some(),
        "streams" => probe.streams.is_some(),
        "chapters" => probe.chapters.is_some(),
        "programs" => probe.programs.is_some(),
        "frames" | "packets" | "packets_and_frames" => {
            probe.frames.is_some() || probe.packets.is_some()
        }
        "error" => probe.error.is_some(),
        _ => false,
    };
    Value::Object(
        sections
            .into_iter()
            .filter(|(name, _)| asked(name))
            .collect(),
    )
}
