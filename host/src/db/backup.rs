//! The database's side of backups (`backup.rs`): SurrealDB's export, which reads every table in
//! one transaction (a consistent snapshot while the server keeps writing), and its import into a
//! database that has nothing yet. Supported on the embedded engines; a SurrealDB server is backed
//! up with its own `surreal export` (docs/scale-out.md).

use std::path::Path;

use serde_json::json;

use super::{Db, DbError, DbResult};
use crate::config;

impl Db {
    /// Writes the whole database, as SurrealQL, to `path`.
    pub async fn export_to(&self, path: &Path) -> DbResult<()> {
        self.inner
            .export(path)
            .await
            .map_err(|e| DbError::Other(format!("export: {e}")))
    }

    /// The objects file records and result-cache entries point at, with the bytes each holds.
    pub async fn referenced_objects(&self) -> DbResult<Vec<(String, u64)>> {
        #[derive(serde::Deserialize)]
        struct Object {
            object_id: String,
            size: u64,
        }
        let files: Vec<Object> = self
            .rows(
                "SELECT object_id, size FROM file WHERE state = 'ready'",
                json!({}),
            )
            .await?;
        let cached: Vec<Vec<super::cache::CachedOutput>> = self
            .rows("SELECT VALUE outputs FROM cache_entry", json!({}))
            .await?;
        Ok(files
            .into_iter()
            .map(|o| (o.object_id, o.size))
            .chain(cached.into_iter().flatten().map(|o| (o.object_id, o.size)))
            .collect())
    }
}

/// Loads an export into the database of `cfg`, which must hold no file or job yet, before
/// `Db::connect` applies the schema (the export carries the definitions it was taken with).
/// One connection does both: an embedded store is locked by its opener.
pub async fn import(cfg: &config::Database, export: &Path) -> anyhow::Result<()> {
    let db = surrealdb::engine::any::connect(cfg.url.as_str()).await?;
    db.use_ns(cfg.namespace.as_str())
        .use_db(cfg.database.as_str())
        .await?;
    let mut found = db
        .query("RETURN count(SELECT 1 FROM file LIMIT 1) + count(SELECT 1 FROM job LIMIT 1)")
        .await?;
    let held: Option<u64> = found.take(0).unwrap_or(None);
    if held.unwrap_or(0) > 0 {
        anyhow::bail!(
            "the database at {} already holds files or jobs: restore into a fresh data directory",
            cfg.url
        );
    }
    db.import(export).await?;
    Ok(())
}
