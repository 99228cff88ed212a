//! Stage 2, *import*: URL inputs and objects of the tenant's buckets are fetched once into
//! storage (into the output directory, made now when the task had none), so that a queued job
//! or a retry never fetches again. An import is stored under a free name, but keeps the
//! `@{name}` resolve gave it; it is cut at the plan's file size and counts toward the quota.

use super::resolve::{InputFile, Resolved, url_file_name};
use crate::app::AppState;
use crate::db::{Account, FileRecord};
use crate::error::{AppError, AppResult};
use crate::net::NetError;
use crate::task::{Source, source_of};
use crate::{directories, files, metering, names};

pub async fn import(state: &AppState, resolved: &mut Resolved) -> AppResult<()> {
    if !resolved
        .inputs
        .iter()
        .any(|i| matches!(i.file, InputFile::Url(_) | InputFile::Bucket { .. }))
    {
        return Ok(());
    }
    let dir = match &resolved.output_dir {
        Some(d) => d.clone(),
        None => {
            let d =
                directories::create(state, &resolved.account, directories::DEFAULT_TTL_S).await?;
            resolved.output_dir = Some(d.clone());
            d
        }
    };
    let outputs: Vec<String> = resolved
        .task
        .outputs
        .iter()
        .map(|o| o.file.clone())
        .collect();
    let mut imported = false;
    for input in resolved.inputs.iter_mut() {
        let origin = match &input.file {
            InputFile::Url(url) => Origin::Url(url),
            InputFile::Bucket { bucket, key } => Origin::Bucket(bucket, key),
            InputFile::Stored(_) => continue,
        };
        let name = free_name(state, &dir.dir_id, &input.name, &outputs).await?;
        let stored = fetch(
            state,
            &resolved.account,
            &dir.dir_id,
            origin,
            &name,
            &input.name,
        )
        .await?;
        input.file = InputFile::Stored(stored);
        imported = true;
    }
    if imported {
        metering::check_quota(state, &resolved.account, resolved.stored_bytes()).await?;
    }
    Ok(())
}

/// One URL stored as a file of its own (the MCP tool `import_url`), by the same rules as a
/// task's URL input: the outbound policy, the plan's file size, the quota, a directory of the
/// caller's (a new one without `dir_id`). Without `file_name` the URL's last segment names it,
/// made free in the directory; a given name must be valid and free (409 otherwise).
pub async fn import_url(
    state: &AppState,
    account: &Account,
    raw_url: &str,
    dir_id: Option<&str>,
    file_name: Option<&str>,
) -> AppResult<FileRecord> {
    if let Some(name) = file_name {
        if !names::valid_file_name(name) {
            return Err(AppError::BadRequest(names::INVALID_FILE_NAME.into()));
        }
    }
    let url = match source_of(raw_url) {
        Some(Source::Url(raw)) => state.net.check(raw).await?,
        _ => return Err(AppError::BadRequest("url must be an http(s) URL".into())),
    };
    metering::check_quota(state, account, 0).await?;
    let dir = match dir_id {
        Some(id) => directories::owned(state, account, id).await?,
        None => directories::create(state, account, directories::DEFAULT_TTL_S).await?,
    };
    let name = match file_name {
        Some(name) => {
            if state.db.file(&dir.dir_id, name).await?.is_some() {
                return Err(AppError::FileExists(name.to_string()));
            }
            name.to_string()
        }
        None => free_name(state, &dir.dir_id, &url_file_name(&url), &[]).await?,
    };
    fetch(state, account, &dir.dir_id, Origin::Url(&url), &name, &name).await
}

/// Where an imported input's bytes come from.
enum Origin<'a> {
    Url(&'a url::Url),
    Bucket(&'a crate::bucket::Bucket, &'a str),
}

/// Fetches a URL or an object (at most the plan's file size, streamed to disk) and stores it as
/// `name` in `dir_id`; a refusal over the size names it `shown`.
async fn fetch(
    state: &AppState,
    account: &Account,
    dir_id: &str,
    origin: Origin<'_>,
    name: &str,
    shown: &str,
) -> AppResult<FileRecord> {
    let (plan_name, plan) = state.plan_of(account)?;
    let tmp = state
        .scratch_dir
        .join(format!("import-{}", names::random_id(16)));
    let limit = plan.max_file_size_bytes();
    let deadline = std::time::Duration::from_secs(state.cfg.limits.import_timeout_s);
    let fetched = match origin {
        Origin::Url(url) => state.net.download(url, &tmp, limit, deadline).await,
        Origin::Bucket(bucket, key) => bucket.get(&state.net, key, &tmp, limit, deadline).await,
    };
    let stored = match fetched {
        Ok(_) => files::store(state, dir_id, name, &tmp, account).await,
        Err(NetError::TooLarge { size, .. }) => Err(AppError::file_too_large(
            shown,
            size,
            &plan_name,
            plan.max_file_size_mb,
        )),
        Err(e) => Err(match origin {
            Origin::Url(_) => e.into(),
            Origin::Bucket(bucket, key) => crate::credentials::failed(bucket, key, "read", e),
        }),
    };
    let _ = tokio::fs::remove_file(&tmp).await;
    stored
}

/// A name for an imported file that clashes with no file of the directory and no output.
async fn free_name(
    state: &AppState,
    dir_id: &str,
    wanted: &str,
    outputs: &[String],
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
        if !outputs.contains(&candidate) && state.db.file(dir_id, &candidate).await?.is_none() {
            return Ok(candidate);
        }
    }
    Ok(format!("{stem}_{}{ext}", names::random_id(8)))
}
