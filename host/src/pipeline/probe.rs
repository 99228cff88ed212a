//! A probe (POST /ffprobe/analyze) from request to filtered result: the input is a stored file of the
//! caller's or an https URL fetched (at most `limits.probe_max_bytes`) into the scratch
//! directory, never imported and never handed to ffprobe as a URL. The command-builder plugin
//! turns the probe configuration into ffprobe options; the host runs ffprobe in the sandbox
//! and keeps only the sections asked for. Frames and packets are clipped: without
//! `read_intervals` only the first 30 s are read, and at most 3000 entries are returned.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::app::AppState;
use crate::db::Account;
use crate::error::{AppError, AppResult};
use crate::media::argv;
use crate::media::runner::{self, Killed, Spec};
use crate::media::sandbox::Rlimits;
use crate::task::{ProbeConfig, Source, source_of};
use crate::usage::{Charge, Usage};
use crate::{directories, files, metering};

pub const MAX_ENTRIES: usize = 3000;
pub const DEFAULT_INTERVAL: &str = "%+30";

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
    mut probe: ProbeConfig,
) -> AppResult<Probed> {
    let _admitted = super::admit(state, account)?;
    let wants_entries = probe.frames.is_some() || probe.packets.is_some();
    if wants_entries && probe.select_streams.as_deref().is_none_or(str::is_empty) {
        return Err(AppError::BadRequest(
            "select_streams is required when requesting frames or packets".into(),
        ));
    }
    if wants_entries && probe.read_intervals.is_none() {
        probe.read_intervals = Some(DEFAULT_INTERVAL.into());
    }
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
            let cap = state
                .cfg
                .limits
                .probe_max_bytes
                .min(plan.max_file_size_bytes());
            state.net.download_prefix(&url, &input, cap).await?
        }
    };
    let input = input.to_string_lossy().into_owned();
    let cmd = state.plugins.build_probe(&probe, &input).await?;
    let args =
        argv::ffprobe_argv(&cmd, &input, &scratch.dir).map_err(|r| AppError::HostRefused(r.0))?;
    let limits = &state.cfg.limits;
    let exit = {
        let _slot = state.tenants.process_slot(&account.name).await;
        runner::run(
            &state.sandbox,
            Spec {
                program: &state.cfg.sandbox.ffprobe_path,
                args,
                read_only: vec![scratch.inputs()],
                writable: vec![],
                cwd: &scratch.inputs(),
                timeout: Duration::from_secs(limits.probe_timeout_s),
                rlimits: Rlimits {
                    file_size: 0,
                    cpu_seconds: limits.probe_timeout_s * 2,
                    open_files: 256,
                },
                output_cap: None,
                stdout_cap: 256 * 1024 * 1024,
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
    let parsed: Value = serde_json::from_slice(&exit.stdout).map_err(|_| {
        if exit.success() {
            AppError::ParseResponse
        } else {
            AppError::FfmpegFailed {
                code: exit.code.unwrap_or(-1),
                details: None,
            }
        }
    })?;
    let error = (!exit.success()).then(|| {
        parsed["error"]["string"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| "FFprobe could not read the input".into())
    });
    let mut result = keep_requested(parsed, &probe);
    // ffprobe names the file it read: the staged path. Show the tenant's own path instead.
    if let Some(name) = result.get_mut("format").and_then(|f| f.get_mut("filename")) {
        *name = Value::String(file_path.to_string());
    }
    let usage = Usage::new(exit.elapsed.as_secs_f64(), input_bytes, 0);
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

/// Only the sections asked for, and at most `MAX_ENTRIES` frames or packets.
fn keep_requested(parsed: Value, probe: &ProbeConfig) -> Value {
    let Value::Object(sections) = parsed else {
        return Value::Object(Map::new());
    };
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
    let fields = |name: &str| -> Option<&Vec<String>> {
        match name {
            "format" => probe.format.as_ref(),
            "streams" => probe.streams.as_ref(),
            "chapters" => probe.chapters.as_ref(),
            "programs" => probe.programs.as_ref(),
            "frames" => probe.frames.as_ref(),
            "packets" => probe.packets.as_ref(),
            "error" => probe.error.as_ref(),
            _ => None,
        }
    };
    let mut out = Map::new();
    for (name, mut value) in sections {
        if !asked(&name) {
            continue;
        }
        if let Value::Array(entries) = &mut value {
            entries.truncate(MAX_ENTRIES);
        }
        // ffprobe adds subsections of its own (an empty side_data_list, say): a field list
        // returns exactly those fields.
        if let Some(list) = fields(&name).filter(|l| !l.is_empty()) {
            let keep: Vec<&str> = list.iter().map(|f| top_key(f)).collect();
            match &mut value {
                Value::Array(entries) => entries.iter_mut().for_each(|e| retain_keys(e, &keep)),
                other => retain_keys(other, &keep),
            }
        }
        out.insert(name, value);
    }
    Value::Object(out)
}

/// The key a requested field lives under: `tags:language` and `TAG:language` under `tags`,
/// `disposition:default` under `disposition`.
fn top_key(field: &str) -> &str {
    match field.split_once(':') {
        Some((head, _)) if head.eq_ignore_ascii_case("tag") || head == "tags" => "tags",
        Some((head, _)) => head,
        None => field,
    }
}

fn retain_keys(value: &mut Value, keep: &[&str]) {
    if let Value::Object(map) = value {
        map.retain(|k, _| keep.contains(&k.as_str()));
    }
}
