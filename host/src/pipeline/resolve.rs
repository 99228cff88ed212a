//! Stage 1, *resolve*: a task checked against the API's rules (at least one input and output,
//! valid names, `<dir_id>/<file_name>` or URL inputs from one directory, outputs that do not
//! overwrite an input), the caller's directories, the plan and the quota. No side effects: a
//! refused task leaves nothing behind. Each input's `@{name}` is fixed here, once, for every way
//! the task runs.

use crate::app::AppState;
use crate::db::{Account, Directory, FileRecord, QueuedInput, QueuedRun};
use crate::error::{AppError, AppResult};
use crate::task::{Source, Task};
use crate::{directories, files, metering, names};

/// Where an input's bytes are: a stored file of the caller's, or a URL or an object of the
/// tenant's bucket still to import.
#[derive(Debug, Clone)]
pub enum InputFile {
    Stored(FileRecord),
    Url(url::Url),
    Bucket {
        bucket: std::sync::Arc<crate::bucket::Bucket>,
        key: String,
    },
}

#[derive(Debug, Clone)]
pub struct Input {
    /// What `@{name}` means: a stored file's name, or a URL's last path segment (whatever name
    /// its import is stored under).
    pub name: String,
    /// The input as the tenant wrote it, for showing commands.
    pub shown: String,
    pub file: InputFile,
}

#[derive(Debug, Clone)]
pub struct Resolved {
    pub account: Account,
    pub task: Task,
    pub inputs: Vec<Input>,
    /// `None`: URL-only inputs and no `output_dir_id`; a directory is made on import.
    pub output_dir: Option<Directory>,
    /// The task's `export`, its bucket opened.
    pub export: Option<ExportTarget>,
}

/// Where a task's outputs are copied (`export.rs`).
#[derive(Debug, Clone)]
pub struct ExportTarget {
    pub bucket: std::sync::Arc<crate::bucket::Bucket>,
    pub prefix: String,
}

/// The task's `export` checked and its bucket opened (the caller's own credential only).
pub async fn export_target(
    state: &AppState,
    account: &Account,
    export: Option<&crate::task::Export>,
) -> AppResult<Option<ExportTarget>> {
    let Some(export) = export else {
        return Ok(None);
    };
    if !export.prefix.is_empty() {
        // A prefix is checked as the key of a file put under it.
        crate::credentials::check_object(&export.credential, &format!("{}x", export.prefix))?;
    }
    let bucket = crate::credentials::open(state, account, &export.credential).await?;
    Ok(Some(ExportTarget {
        bucket: std::sync::Arc::new(bucket),
        prefix: export.prefix.clone(),
    }))
}

impl Resolved {
    /// Bytes of the inputs already in storage (URL inputs count once imported).
    pub fn stored_bytes(&self) -> u64 {
        self.inputs
            .iter()
            .map(|i| match &i.file {
                InputFile::Stored(f) => f.size,
                InputFile::Url(_) | InputFile::Bucket { .. } => 0,
            })
            .sum()
    }

    /// What a queued job keeps to run exactly this later; `None` before URL inputs are imported.
    pub fn queued(&self) -> Option<QueuedRun> {
        let inputs = self
            .inputs
            .iter()
            .map(|i| match &i.file {
                InputFile::Stored(f) => Some(QueuedInput {
                    name: i.name.clone(),
                    dir_id: f.dir_id.clone(),
                    file_name: f.file_name.clone(),
                }),
                InputFile::Url(_) | InputFile::Bucket { .. } => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(QueuedRun {
            inputs,
            output_dir_id: self.output_dir.as_ref()?.dir_id.clone(),
        })
    }
}

pub async fn resolve(state: &AppState, account: &Account, task: Task) -> AppResult<Resolved> {
    let resolved = resolve_unmetered(state, account, task).await?;
    metering::check_quota(state, account, resolved.stored_bytes()).await?;
    Ok(resolved)
}

/// Every check of `resolve` but the quota (for estimates, which report whether a task fits).
pub async fn resolve_unmetered(
    state: &AppState,
    account: &Account,
    task: Task,
) -> AppResult<Resolved> {
    let limits = &state.cfg.limits;
    if task.inputs.is_empty() {
        return Err(AppError::NoInputs);
    }
    if task.outputs.is_empty() {
        return Err(AppError::NoOutputs);
    }
    if task.inputs.len() > limits.max_inputs || task.outputs.len() > limits.max_outputs {
        return Err(AppError::TooManyFiles {
            inputs: limits.max_inputs,
            outputs: limits.max_outputs,
        });
    }
    for output in &task.outputs {
        if !names::valid_file_name(&output.file) || output.file.starts_with('-') {
            return Err(AppError::InvalidOutputName(output.file.clone()));
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
            Some(Source::Bucket { credential, key }) => {
                crate::credentials::check_object(credential, key)?;
            }
        }
    }
    let input_dir = match input_dir {
        Some(d) => Some(directories::owned(state, account, d).await?),
        None => None,
    };
    let (plan_name, plan) = state.plan_of(account)?;
    let mut inputs = Vec::with_capacity(task.inputs.len());
    let mut buckets: Vec<std::sync::Arc<crate::bucket::Bucket>> = Vec::new();
    for input in &task.inputs {
        inputs.push(match input.source().expect("checked above") {
            Source::Stored { dir_id, file_name } => Input {
                name: file_name.to_string(),
                shown: input.file_path.clone(),
                file: InputFile::Stored(
                    files::readable(state, dir_id, file_name, &plan_name, plan).await?,
                ),
            },
            Source::Url(raw) => {
                let url = state.net.check(raw).await?;
                Input {
                    name: url_file_name(&url),
                    shown: input.file_path.clone(),
                    file: InputFile::Url(url),
                }
            }
            Source::Bucket { credential, key } => {
                let bucket = match buckets.iter().find(|b| b.credential == credential) {
                    Some(b) => b.clone(),
                    None => {
                        let b = std::sync::Arc::new(
                            crate::credentials::open(state, account, credential).await?,
                        );
                        buckets.push(b.clone());
                        b
                    }
                };
                Input {
                    name: file_name_of(key.rsplit('/').next().unwrap_or("")),
                    shown: input.file_path.clone(),
                    file: InputFile::Bucket {
                        bucket,
                        key: key.to_string(),
                    },
                }
            }
        });
    }
    let output_dir = match &task.output_dir_id {
        Some(id) => Some(directories::owned(state, account, id).await?),
        None => input_dir.clone(),
    };
    // Outputs may not overwrite an input in the same directory.
    if let (Some(out), Some(inp)) = (&output_dir, &input_dir) {
        if out.dir_id == inp.dir_id {
            for output in &task.outputs {
                if inputs
                    .iter()
                    .any(|i| matches!(&i.file, InputFile::Stored(f) if f.file_name == output.file))
                {
                    return Err(AppError::OutputConflict(output.file.clone()));
                }
            }
        }
    }
    let export = export_target(state, account, task.export.as_ref()).await?;
    Ok(Resolved {
        account: account.clone(),
        task,
        inputs,
        output_dir,
        export,
    })
}

/// A queued job's task resolved again when a worker takes it: the same inputs under the same
/// `@{name}`s (URL inputs as their imports), still readable. The worker then holds the quota
/// for the run (`metering::hold`), which checks it once more.
pub async fn reload(
    state: &AppState,
    account: &Account,
    task: &Task,
    run: &QueuedRun,
) -> AppResult<Resolved> {
    let (plan_name, plan) = state.plan_of(account)?;
    let mut inputs = Vec::with_capacity(run.inputs.len());
    for (queued, original) in run.inputs.iter().zip(&task.inputs) {
        directories::owned(state, account, &queued.dir_id).await?;
        let file =
            files::readable(state, &queued.dir_id, &queued.file_name, &plan_name, plan).await?;
        inputs.push(Input {
            name: queued.name.clone(),
            shown: original.file_path.clone(),
            file: InputFile::Stored(file),
        });
    }
    let resolved = Resolved {
        account: account.clone(),
        task: task.clone(),
        inputs,
        output_dir: Some(directories::owned(state, account, &run.output_dir_id).await?),
        export: export_target(state, account, task.export.as_ref()).await?,
    };
    Ok(resolved)
}

/// The last path segment of a URL, made into a valid file name.
pub fn url_file_name(url: &url::Url) -> String {
    let last = url
        .path_segments()
        .and_then(|mut s| s.next_back())
        .unwrap_or("");
    file_name_of(&percent_encoding::percent_decode_str(last).decode_utf8_lossy())
}

/// A path's last segment (a URL's, an object key's) made into a valid file name.
pub fn file_name_of(last: &str) -> String {
    let clean: String = last
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let clean = clean.trim_matches('.');
    if clean.is_empty() {
        return "input".into();
    }
    // Cut by bytes, not characters (a name holds 255 bytes, `names.rs`), keeping a short
    // extension: the format is guessed from it.
    let (stem, ext) = match clean.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && ext.len() <= 16 => (stem, ext),
        _ => (clean, ""),
    };
    let room = MAX_URL_NAME_BYTES - if ext.is_empty() { 0 } else { ext.len() + 1 };
    let mut cut = room.min(stem.len());
    while !stem.is_char_boundary(cut) {
        cut -= 1;
    }
    match ext {
        "" => stem[..cut].to_string(),
        ext => format!("{}.{ext}", &stem[..cut]),
    }
}

/// The longest name a URL input is stored under: room is left within the 255 bytes of a name
/// for the `_<n>` or `_<8 characters>` that `import.rs` adds on a clash.
const MAX_URL_NAME_BYTES: usize = 200;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_names_fit_in_a_name_by_bytes() {
        let long = "𝒜".repeat(120);
        let url = url::Url::parse(&format!("https://example.com/{long}.mp4")).unwrap();
        let name = url_file_name(&url);
        assert!(name.len() <= MAX_URL_NAME_BYTES, "{} bytes", name.len());
        assert!(name.ends_with(".mp4"), "{name}");
        assert!(crate::names::valid_file_name(&name));
        let url = url::Url::parse("https://example.com/a%2Fb/..").unwrap();
        assert_eq!(url_file_name(&url), "input");
    }
}
