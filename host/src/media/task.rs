//! A task from request to registered outputs, shared by the sync, async, natural-language and
//! legacy endpoints: resolve and check the inputs (spec 4.1 rules 1–4, plan and quota), import
//! URL inputs into storage, stage everything in a scratch directory, ask the command-builder
//! plugin for argv, check it, run ffmpeg in the sandbox, register the outputs (rule 5), charge.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::watch;

use super::argv;
use super::runner::{self, Killed, OutputCap, Spec};
use super::sandbox::Rlimits;
use crate::api::directories::{DEFAULT_TTL_S, new_directory, owned_directory};
use crate::api::files::readable_input;
use crate::app::AppState;
use crate::clock;
use crate::db::{Account, DbError, Directory, FileRecord, FileState};
use crate::error::{AppError, AppResult};
use crate::metering::{self, Usage};
use crate::names;
use crate::net::NetError;
use crate::plugins::PluginError;
use crate::plugins::builder::{Decision, StagedInput};
use crate::task::{Source, Task};

/// An input after resolution: a stored file of the caller's, or a URL still to import.
#[derive(Debug, Clone)]
pub enum Input {
    Stored(FileRecord),
    Url { url: url::Url, name: String },
}

impl Input {
    /// The name `@{name}` placeholders use.
    pub fn name(&self) -> &str {
        match self {
            Input::Stored(f) => &f.file_name,
            Input::Url { name, .. } => name,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Resolved {
    pub account: Account,
    pub task: Task,
    pub inputs: Vec<Input>,
    /// `None`: URL-only inputs and no `output_dir_id`; a temporary directory is made on import.
    pub output_dir: Option<Directory>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OutputFile {
    pub file_name: String,
    pub size_bytes: u64,
    pub download_url: String,
    #[serde(skip)]
    pub object_id: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Completed {
    pub result: Vec<OutputFile>,
    pub usage: Usage,
    #[serde(skip)]
    pub input_bytes: u64,
    #[serde(skip)]
    pub output_bytes: u64,
}

/// Checks a task against the spec's rules, the caller's directories, plan and quota. No side
/// effects: a refused task leaves nothing behind.
pub async fn resolve(state: &AppState, account: &Account, task: Task) -> AppResult<Resolved> {
    let limits = &state.cfg.limits;
    if task.inputs.is_empty() {
        return Err(AppError::BadRequest(
            "Task must have at least one input".into(),
        ));
    }
    if task.outputs.is_empty() {
        return Err(AppError::BadRequest(
            "Task must have at least one output".into(),
        ));
    }
    if task.inputs.len() > limits.max_inputs || task.outputs.len() > limits.max_outputs {
        return Err(AppError::BadRequest(format!(
            "A task may have at most {} inputs and {} outputs",
            limits.max_inputs, limits.max_outputs
        )));
    }
    for output in &task.outputs {
        if !names::valid_file_name(&output.file) || output.file.starts_with('-') {
            return Err(AppError::BadRequest(format!(
                "Invalid output file name '{}'",
                output.file
            )));
        }
    }

    let mut input_dir: Option<&str> = None;
    for input in &task.inputs {
        match input.source() {
            None => return Err(AppError::InvalidFilePath),
            Some(Source::Stored { dir_id, .. }) => match input_dir {
                Some(d) if d != dir_id => return Err(AppError::MixedDirectories),
                _ => input_dir = Some(dir_id),
            },
            Some(Source::Url(_)) => {}
        }
    }
    let input_dir = match input_dir {
        Some(d) => Some(owned_directory(state, account, d).await?),
        None => None,
    };
    let (plan_name, plan) = state.plan_of(account)?;
    let mut inputs = Vec::with_capacity(task.inputs.len());
    for input in &task.inputs {
        inputs.push(match input.source().expect("checked above") {
            Source::Stored { dir_id, file_name } => {
                Input::Stored(readable_input(state, dir_id, file_name, &plan_name, plan).await?)
            }
            Source::Url(raw) => {
                let url = state.net.check(raw).await.map_err(net_error)?;
                Input::Url {
                    name: url_file_name(&url),
                    url,
                }
            }
        });
    }
    let output_dir = match &task.output_dir_id {
        Some(id) => Some(owned_directory(state, account, id).await?),
        None => input_dir.clone(),
    };
    // Rule 4: outputs may not overwrite an input in the same directory.
    if let (Some(out), Some(inp)) = (&output_dir, &input_dir) {
        if out.dir_id == inp.dir_id {
            for output in &task.outputs {
                if inputs
                    .iter()
                    .any(|i| matches!(i, Input::Stored(f) if f.file_name == output.file))
                {
                    return Err(AppError::OutputConflict(output.file.clone()));
                }
            }
        }
    }
    metering::check_quota(state, account, stored_bytes(&inputs)).await?;
    Ok(Resolved {
        account: account.clone(),
        task,
        inputs,
        output_dir,
    })
}

/// Bytes of the inputs already in storage (URL inputs count once imported).
fn stored_bytes(inputs: &[Input]) -> u64 {
    inputs
        .iter()
        .map(|i| if let Input::Stored(f) = i { f.size } else { 0 })
        .sum()
}

/// Imports URL inputs into storage (into the output directory, made now when the task had
/// none), so that a queued job or a retry never fetches again.
pub async fn import(state: &AppState, resolved: &mut Resolved) -> AppResult<()> {
    if !resolved
        .inputs
        .iter()
        .any(|i| matches!(i, Input::Url { .. }))
    {
        return Ok(());
    }
    let dir = match &resolved.output_dir {
        Some(d) => d.clone(),
        None => {
            let d = new_directory(state, &resolved.account, DEFAULT_TTL_S).await?;
            resolved.output_dir = Some(d.clone());
            d
        }
    };
    let (plan_name, plan) = state.plan_of(&resolved.account)?;
    let output_names: Vec<&str> = resolved
        .task
        .outputs
        .iter()
        .map(|o| o.file.as_str())
        .collect();
    let mut imported_bytes = 0;
    for input in resolved.inputs.iter_mut() {
        let Input::Url { url, name } = input else {
            continue;
        };
        let stored_name = free_name(state, &dir.dir_id, name, &output_names).await?;
        let record = FileRecord {
            object_id: names::random_id(32),
            dir_id: dir.dir_id.clone(),
            file_name: stored_name.clone(),
            state: FileState::Pending,
            size: 0,
            content_type: None,
            added_at: clock::now_ms(),
        };
        state.db.create_file(&record).await?;
        let tmp = state
            .scratch_dir
            .join(format!("import-{}", record.object_id));
        let fetched = state
            .net
            .download(url, &tmp, plan.max_file_size_bytes())
            .await;
        let size = match fetched {
            Ok(size) => size,
            Err(e) => {
                let _ = tokio::fs::remove_file(&tmp).await;
                state.db.finish_delete(&record.object_id).await?;
                return Err(match e {
                    NetError::TooLarge { size, .. } => {
                        AppError::file_too_large(name, size, &plan_name, plan.max_file_size_mb)
                    }
                    other => net_error(other),
                });
            }
        };
        state.store.put_file(&record.object_id, &tmp).await?;
        let _ = tokio::fs::remove_file(&tmp).await;
        let content_type = crate::api::blob::guess_type(&stored_name);
        let file = state
            .db
            .mark_uploaded(&record.object_id, size, content_type.as_deref())
            .await?
            .ok_or_else(|| AppError::Internal(anyhow::anyhow!("imported file vanished")))?;
        imported_bytes += size;
        *input = Input::Stored(FileRecord {
            file_name: stored_name,
            ..file
        });
    }
    if imported_bytes > 0 {
        metering::check_quota(state, &resolved.account, stored_bytes(&resolved.inputs)).await?;
    }
    Ok(())
}

/// A name for an imported file that clashes with no file of the directory and no output.
async fn free_name(
    state: &AppState,
    dir_id: &str,
    wanted: &str,
    outputs: &[&str],
) -> AppResult<String> {
    let (stem, ext) = match wanted.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_string(), format!(".{e}")),
        _ => (wanted.to_string(), String::new()),
    };
    for n in 0..100 {
        let candidate = if n == 0 {
            wanted.to_string()
        } else {
            format!("{stem}_{n}{ext}")
        };
        if !outputs.contains(&candidate.as_str())
            && state.db.file(dir_id, &candidate).await?.is_none()
        {
            return Ok(candidate);
        }
    }
    Ok(format!("{stem}_{}{ext}", names::random_id(8)))
}

/// The last path segment of a URL, made into a valid file name.
fn url_file_name(url: &url::Url) -> String {
    let last = url
        .path_segments()
        .and_then(|mut s| s.next_back())
        .unwrap_or("");
    let decoded = percent_encoding::percent_decode_str(last).decode_utf8_lossy();
    let clean: String = decoded
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .take(120)
        .collect();
    let clean = clean.trim_matches('.').to_string();
    if clean.is_empty() {
        "input".into()
    } else {
        clean
    }
}

pub fn net_error(e: NetError) -> AppError {
    match e {
        NetError::Refused(m) => AppError::BadRequest(m),
        NetError::Status(code) => AppError::BadRequest(format!(
            "Could not fetch input URL: the server answered HTTP {code}"
        )),
        NetError::TooLarge { limit, .. } => {
            AppError::Forbidden(format!("Input URL is larger than {limit} bytes"))
        }
        NetError::Transport(m) => AppError::Upstream(format!("Could not fetch input URL: {m}")),
    }
}

pub fn plugin_error(e: PluginError) -> AppError {
    match e {
        PluginError::Refused { message, .. } => AppError::BadRequest(message),
        PluginError::Failed { .. } => {
            tracing::warn!("{e}");
            AppError::Processing {
                message: e.to_string(),
                details: None,
            }
        }
        PluginError::Missing(world) => {
            AppError::Unavailable(format!("No {world} plugin is configured"))
        }
    }
}

/// A scratch directory that is removed whatever happens to the run.
pub struct Scratch {
    pub dir: PathBuf,
}

impl Scratch {
    pub fn new(state: &AppState) -> std::io::Result<Scratch> {
        let dir = state.scratch_dir.join(names::random_id(16));
        std::fs::create_dir_all(dir.join("in"))?;
        std::fs::create_dir_all(dir.join("out"))?;
        Ok(Scratch { dir })
    }
    pub fn inputs(&self) -> PathBuf {
        self.dir.join("in")
    }
    pub fn outputs(&self) -> PathBuf {
        self.dir.join("out")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Where an input is staged: its index and a tidy extension (formats are guessed from it).
fn staged_path(dir: &Path, index: usize, name: &str) -> PathBuf {
    let ext: String = name
        .rsplit_once('.')
        .map(|(_, e)| {
            e.chars()
                .filter(char::is_ascii_alphanumeric)
                .take(10)
                .collect::<String>()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    if ext.is_empty() {
        dir.join(format!("{index}"))
    } else {
        dir.join(format!("{index}.{ext}"))
    }
}

/// What the plugin and the host decided for a task, without running it.
pub struct Plan {
    pub argv: Vec<String>,
    pub decisions: Vec<Decision>,
}

/// Asks the command builder for argv and checks it; `staged` are the paths inputs will have.
pub async fn plan(
    state: &AppState,
    task: &Task,
    staged: &[StagedInput],
    job: &Path,
) -> AppResult<Plan> {
    let out = job.join("out");
    let cmd = state
        .plugins
        .build_task(task, staged, out.to_str().unwrap_or_default())
        .await
        .map_err(plugin_error)?;
    let argv = argv::ffmpeg_argv(&cmd, staged, job, &out).map_err(|r| {
        tracing::warn!("command-builder output refused by the host: {}", r.0);
        AppError::BadRequest(format!(
            "The command builder produced a command the host refuses: {}",
            r.0
        ))
    })?;
    Ok(Plan {
        argv,
        decisions: cmd.decisions,
    })
}

/// Runs a resolved (and imported) task to completion; the caller charges it (a job does so in
/// the same transaction that completes it).
pub async fn execute(
    state: &AppState,
    resolved: &Resolved,
    progress: Option<watch::Sender<u64>>,
) -> AppResult<Completed> {
    let output_dir = resolved
        .output_dir
        .clone()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("no output directory")))?;
    let scratch = Scratch::new(state).map_err(|e| AppError::Internal(e.into()))?;
    let mut staged = Vec::new();
    let mut input_bytes = 0;
    for (i, (input, original)) in resolved
        .inputs
        .iter()
        .zip(&resolved.task.inputs)
        .enumerate()
    {
        let Input::Stored(file) = input else {
            return Err(AppError::Internal(anyhow::anyhow!("input not imported")));
        };
        let path = staged_path(&scratch.inputs(), i, &file.file_name);
        state.store.stage(&file.object_id, &path).await?;
        input_bytes += file.size;
        // URL inputs are named in `@{...}` by the URL's file name, whatever name the import chose.
        let name = match original.source() {
            Some(Source::Url(raw)) => url::Url::parse(raw)
                .map(|u| url_file_name(&u))
                .unwrap_or_default(),
            _ => file.file_name.clone(),
        };
        staged.push(StagedInput {
            name,
            path: path.to_string_lossy().into_owned(),
        });
    }
    let plan = plan(state, &resolved.task, &staged, &scratch.dir).await?;
    let limits = &state.cfg.limits;
    let outcome = {
        let _permit = state.process_permits.acquire().await.expect("never closed");
        runner::run(
            &state.sandbox,
            Spec {
                program: &state.cfg.sandbox.ffmpeg_path,
                args: plan.argv,
                read_only: vec![scratch.inputs()],
                writable: vec![scratch.outputs()],
                cwd: &scratch.outputs(),
                timeout: Duration::from_secs(limits.process_timeout_s),
                rlimits: Rlimits {
                    file_size: limits.max_output_bytes,
                    cpu_seconds: limits.process_timeout_s * 4,
                    open_files: 1024,
                },
                output_cap: Some(OutputCap {
                    dir: scratch.outputs(),
                    max_bytes: limits.max_output_bytes,
                    max_files: limits.max_output_files,
                }),
                stdout_cap: 0,
                progress,
            },
        )
        .await
        .map_err(|e| AppError::Internal(anyhow::anyhow!("cannot start ffmpeg: {e}")))?
    };
    match outcome.killed {
        Some(Killed::Timeout) => {
            return Err(AppError::Processing {
                message: format!("Processing timed out after {} s", limits.process_timeout_s),
                details: None,
            });
        }
        Some(Killed::OutputCap) => {
            return Err(AppError::Processing {
                message: format!(
                    "Outputs exceeded the limit of {} bytes or {} files",
                    limits.max_output_bytes, limits.max_output_files
                ),
                details: None,
            });
        }
        None => {}
    }
    if !outcome.success() {
        let code = outcome
            .code
            .or(outcome.signal.map(|s| 128 + s))
            .unwrap_or(-1);
        return Err(AppError::FfmpegFailed {
            code,
            details: sanitize_stderr(&outcome.stderr_tail, &scratch, &staged),
        });
    }
    let result = register_outputs(state, &output_dir, &scratch.outputs()).await?;
    let output_bytes = result.iter().map(|o| o.size_bytes).sum();
    let usage = Usage::new(outcome.elapsed.as_secs_f64(), input_bytes, output_bytes);
    Ok(Completed {
        result,
        usage,
        input_bytes,
        output_bytes,
    })
}

/// Moves every file ffmpeg wrote into the store, as records of the output directory.
async fn register_outputs(
    state: &AppState,
    dir: &Directory,
    out: &Path,
) -> AppResult<Vec<OutputFile>> {
    let mut entries = tokio::fs::read_dir(out)
        .await
        .map_err(|e| AppError::Internal(e.into()))?;
    let mut produced = Vec::new();
    while let Some(entry) = entries
        .next_entry()
        .await
        .map_err(|e| AppError::Internal(e.into()))?
    {
        let meta = tokio::fs::symlink_metadata(entry.path())
            .await
            .map_err(|e| AppError::Internal(e.into()))?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if meta.is_file() && names::valid_file_name(&name) {
            produced.push((name, entry.path()));
        }
    }
    if produced.is_empty() {
        return Err(AppError::Processing {
            message: "FFmpeg produced no output file".into(),
            details: None,
        });
    }
    produced.sort();
    let ttl = state.cfg.storage.download_url_ttl_s;
    let mut result = Vec::with_capacity(produced.len());
    for (name, path) in produced {
        // Re-running a task replaces its earlier outputs of the same name.
        if let Some(old) = state.db.mark_deleting(&dir.dir_id, &name).await? {
            state.store.delete(&old.object_id).await?;
            state.db.finish_delete(&old.object_id).await?;
        }
        let object_id = names::random_id(32);
        let record = FileRecord {
            object_id: object_id.clone(),
            dir_id: dir.dir_id.clone(),
            file_name: name.clone(),
            state: FileState::Pending,
            size: 0,
            content_type: None,
            added_at: clock::now_ms(),
        };
        match state.db.create_file(&record).await {
            Ok(()) => {}
            Err(DbError::Conflict) => {
                return Err(AppError::Processing {
                    message: format!("Output '{name}' was created concurrently"),
                    details: None,
                });
            }
            Err(e) => return Err(e.into()),
        }
        let size = state.store.put_file(&object_id, &path).await?;
        let content_type = crate::api::blob::guess_type(&name);
        state
            .db
            .mark_uploaded(&object_id, size, content_type.as_deref())
            .await?;
        let url = state
            .store
            .presign_download(&object_id, &name, ttl)
            .await?
            .url;
        result.push(OutputFile {
            file_name: name,
            size_bytes: size,
            download_url: url,
            object_id,
        });
    }
    Ok(result)
}

/// At most 2000 characters of ffmpeg's stderr, with scratch paths replaced by the tenant's own
/// names and any other absolute path hidden.
pub fn sanitize_stderr(stderr: &str, scratch: &Scratch, staged: &[StagedInput]) -> Option<String> {
    let mut text = stderr.to_string();
    for s in staged {
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
