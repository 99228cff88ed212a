//! Stage 2, *import*: URL inputs are fetched once into storage (into the output directory, made
//! now when the task had none), so that a queued job or a retry never fetches again. An import
//! is stored under a free name, but keeps the `@{name}` resolve gave it.

use super::resolve::{InputFile, Resolved};
use crate::app::AppState;
use crate::error::{AppError, AppResult};
use crate::net::NetError;
use crate::{directories, files, metering, names};

pub async fn import(state: &AppState, resolved: &mut Resolved) -> AppResult<()> {
    if !resolved
        .inputs
        .iter()
        .any(|i| matches!(i.file, InputFile::Url(_)))
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
    let (plan_name, plan) = state.plan_of(&resolved.account)?;
    let outputs: Vec<String> = resolved
        .task
        .outputs
        .iter()
        .map(|o| o.file.clone())
        .collect();
    let mut imported = false;
    for input in resolved.inputs.iter_mut() {
        let InputFile::Url(url) = &input.file else {
            continue;
        };
        let tmp = state
            .scratch_dir
            .join(format!("import-{}", names::random_id(16)));
        let fetched = state
            .net
            .download(
                url,
                &tmp,
                plan.max_file_size_bytes(),
                std::time::Duration::from_secs(state.cfg.limits.import_timeout_s),
            )
            .await;
        let stored = match fetched {
            Ok(_) => match free_name(state, &dir.dir_id, &input.name, &outputs).await {
                Ok(name) => files::store(state, &dir.dir_id, &name, &tmp, false).await,
                Err(e) => Err(e),
            },
            Err(NetError::TooLarge { size, .. }) => Err(AppError::file_too_large(
                &input.name,
                size,
                &plan_name,
                plan.max_file_size_mb,
            )),
            Err(e) => Err(e.into()),
        };
        let _ = tokio::fs::remove_file(&tmp).await;
        input.file = InputFile::Stored(stored?);
        imported = true;
    }
    if imported {
        metering::check_quota(state, &resolved.account, resolved.stored_bytes()).await?;
    }
    Ok(())
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
