//! Backups while serving, and restores into a fresh data directory (`mediaforge backup|restore`,
//! `POST /operator/backup`).
//!
//! A backup is a directory under `<data_dir>/backups/<name>/`: `db.surql`, SurrealDB's export
//! (every table read in one transaction, so the copy is consistent while requests keep writing);
//! `manifest.json`, the objects the copy's file records and cache entries point at, with their
//! sizes; and, with the local store, `objects/`, those objects hard-linked (copied across file
//! systems). Objects never change once written, so a link is a copy; they are linked before the
//! export and once more after it (for those written meanwhile), and the manifest says which of
//! the referenced ones are there. With S3 the manifest lists what to check against the bucket
//! (keep versioning or replication on; README, "Backups").

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::app::AppState;
use crate::clock;
use crate::config::{Backend, Config};
use crate::db;
use crate::error::{AppError, AppResult};

/// `manifest.json`.
#[derive(Debug, Clone, Serialize, Deserialize, salvo::oapi::ToSchema)]
pub struct Manifest {
    pub created_at: i64,
    pub server_version: String,
    /// `local` (objects in `objects/`) or `s3` (objects in the bucket).
    pub store: String,
    pub database: String,
    /// Every object the copy points at, with its size.
    pub objects: Vec<ManifestObject>,
    /// Those of them not in `objects/` (deleted between the export and the link): their
    /// records restore without bytes. Empty with S3, where nothing is copied.
    pub missing: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, salvo::oapi::ToSchema)]
pub struct ManifestObject {
    pub id: String,
    pub size: u64,
}

/// What a backup wrote.
#[derive(Debug, Clone, Serialize, salvo::oapi::ToSchema)]
pub struct Written {
    pub path: String,
    pub database_bytes: u64,
    pub objects: usize,
    pub object_bytes: u64,
    pub missing: usize,
}

fn check_name(name: &str) -> AppResult<()> {
    let ok = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'));
    ok.then_some(())
        .ok_or_else(|| AppError::BadRequest("name must be 1-64 letters, digits, '_' or '-'".into()))
}

/// Backs the instance up into `<data_dir>/backups/<name>` (default: the time).
pub async fn backup(state: &AppState, name: Option<&str>) -> AppResult<Written> {
    let name = match name {
        Some(n) => {
            check_name(n)?;
            n.to_string()
        }
        None => format!("backup-{}", clock::now_ms()),
    };
    let dir = state.cfg.server.data_dir.join("backups").join(&name);
    if dir.exists() {
        return Err(AppError::BadRequest(format!(
            "A backup named '{name}' already exists"
        )));
    }
    let objects = dir.join("objects");
    tokio::fs::create_dir_all(&objects)
        .await
        .map_err(internal)?;
    let store = state.local.as_ref().map(|l| l.root().to_path_buf());
    if let Some(root) = &store {
        link_all(&root.join("objects"), &objects).await?;
    }
    let export = dir.join("db.surql");
    state.db.export_to(&export).await.map_err(|e| match e {
        db::DbError::Other(why) if state.cfg.database.url.starts_with("ws") => {
            AppError::BadRequest(format!(
                "This instance uses a SurrealDB server, whose database is backed up with its own `surreal export` ({why})"
            ))
        }
        other => other.into(),
    })?;
    // Read after the export, so it names every object the copy does (and perhaps some written
    // since, whose files are complete before their records say so); linked after it.
    let referenced = state.db.referenced_objects().await?;
    if let Some(root) = &store {
        link_all(&root.join("objects"), &objects).await?;
    }
    let mut missing = Vec::new();
    let mut object_bytes = 0;
    if store.is_some() {
        for (id, size) in &referenced {
            if tokio::fs::metadata(shard(&objects, id)).await.is_ok() {
                object_bytes += size;
            } else {
                missing.push(id.clone());
            }
        }
    }
    let manifest = Manifest {
        created_at: clock::now_ms(),
        server_version: env!("CARGO_PKG_VERSION").into(),
        store: if store.is_some() { "local" } else { "s3" }.into(),
        database: "db.surql".into(),
        objects: referenced
            .iter()
            .map(|(id, size)| ManifestObject {
                id: id.clone(),
                size: *size,
            })
            .collect(),
        missing: missing.clone(),
    };
    let json = serde_json::to_vec_pretty(&manifest).map_err(internal)?;
    tokio::fs::write(dir.join("manifest.json"), json)
        .await
        .map_err(internal)?;
    let database_bytes = tokio::fs::metadata(&export)
        .await
        .map(|m| m.len())
        .unwrap_or(0);
    tracing::info!(path = %dir.display(), objects = referenced.len(), missing = missing.len(), "backup written");
    Ok(Written {
        path: dir.display().to_string(),
        database_bytes,
        objects: referenced.len(),
        object_bytes,
        missing: missing.len(),
    })
}

fn internal(e: impl Into<anyhow::Error>) -> AppError {
    AppError::Internal(e.into())
}

/// `objects/<ab>/<id>` under `root`, as the local store lays them out.
fn shard(root: &Path, id: &str) -> PathBuf {
    root.join(id.get(..2).unwrap_or("__")).join(id)
}

/// Hard-links (or copies) every object under `from` that `to` does not have yet.
async fn link_all(from: &Path, to: &Path) -> AppResult<()> {
    let mut shards = tokio::fs::read_dir(from).await.map_err(internal)?;
    while let Some(dir) = shards.next_entry().await.map_err(internal)? {
        let Ok(mut entries) = tokio::fs::read_dir(dir.path()).await else {
            continue;
        };
        let target = to.join(dir.file_name());
        tokio::fs::create_dir_all(&target).await.map_err(internal)?;
        while let Some(entry) = entries.next_entry().await.map_err(internal)? {
            let dest = target.join(entry.file_name());
            if tokio::fs::metadata(&dest).await.is_ok() {
                continue;
            }
            if tokio::fs::hard_link(entry.path(), &dest).await.is_err() {
                // Another file system, or the object was deleted meanwhile.
                let _ = tokio::fs::copy(entry.path(), &dest).await;
            }
        }
    }
    Ok(())
}

/// What a restore did.
#[derive(Debug, Serialize)]
pub struct Restored {
    pub objects: usize,
    /// Objects the backup's records point at that it does not hold (also listed by the backup).
    pub missing: Vec<String>,
}

/// Restores the backup in `from` into the (empty) database and local store of `cfg`, with no
/// server running on them.
pub async fn restore(cfg: &Config, from: &Path) -> anyhow::Result<Restored> {
    let manifest: Manifest = serde_json::from_slice(&std::fs::read(from.join("manifest.json"))?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", from.join("manifest.json").display()))?;
    if cfg.database.url.starts_with("ws") || cfg.database.url.starts_with("http") {
        anyhow::bail!(
            "restore loads an embedded database; load db.surql into a SurrealDB server with `surreal import`"
        );
    }
    db::backup::import(&cfg.database, &from.join(&manifest.database)).await?;
    let mut copied = 0;
    let mut missing = Vec::new();
    if manifest.store == "local" {
        if cfg.storage.backend != Backend::Local {
            anyhow::bail!("this backup's objects are local files; the config's store is S3");
        }
        let objects = cfg.storage.path.join("objects");
        for object in &manifest.objects {
            let src = shard(&from.join("objects"), &object.id);
            let dest = shard(&objects, &object.id);
            if dest.exists() {
                continue;
            }
            std::fs::create_dir_all(dest.parent().expect("a shard"))?;
            match std::fs::copy(&src, &dest) {
                Ok(_) => copied += 1,
                Err(_) => missing.push(object.id.clone()),
            }
        }
    }
    Ok(Restored {
        objects: copied,
        missing,
    })
}
