//! The one place that talks to SurrealDB: the connection, the schema, and every query, as typed
//! functions. Rows travel as `serde_json::Value` (which the SDK converts natively) and are
//! (de)serialised into the plain structs below. Times are unix milliseconds, so comparisons
//! need no datetime casts and every instance agrees on them.

/// The one statement that adds a run (`$charge`, a `usage::Charge`) to account `$a`'s month
/// `$m`; a macro so that transactions can splice it in with `concat!`.
macro_rules! add_usage {
    () => {
        "UPSERT type::record('usage', [$a, $m]) SET account = $a, month = $m,
            input_bytes = (input_bytes OR 0) + $charge.input_bytes,
            output_bytes = (output_bytes OR 0) + $charge.output_bytes,
            time_sec = (time_sec OR 0.0) + $charge.time_sec,
            gb_sec = (gb_sec OR 0.0) + $charge.gb_sec RETURN NONE"
    };
}

mod accounts;
pub mod backup;
mod cache;
mod credentials;
mod jobs;
mod kept;
mod parts;
mod queue;
mod schema;
mod tus;
mod uploads;

pub use cache::{CacheEntry, CacheFlight, CachedOutput, FlightFailure};
pub use credentials::{CredentialRow, SealedCredential};
pub use parts::{Part, PartFailure, PartStatus};
pub use tus::{TusAdvance, TusLock, TusPart, TusTail, TusUpload};
pub use uploads::UploadRefusal;

pub use jobs::{
    ClaimView, DeliveryState, Job, JobEnd, JobStatus, ListQuery, Priority, Progress, QueuedInput,
    QueuedRun, StoredOutput, Webhook,
};

use std::future::IntoFuture;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use surrealdb::Surreal;
use surrealdb::engine::any::Any;

use crate::config;
use crate::usage::Charge;

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("already exists")]
    Conflict,
    /// A file written to a directory that expired (or was retired) meanwhile.
    #[error("directory is gone")]
    DirectoryGone,
    /// A file that would take its account past its storage limit.
    #[error("storage limit reached")]
    StorageFull,
    /// A database server down or unreachable: no connection, or no answer within
    /// `database.query_timeout_s`.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    #[error("database: {0}")]
    Other(String),
}

impl From<surrealdb::Error> for DbError {
    fn from(e: surrealdb::Error) -> Self {
        let text = e.to_string();
        if e.is_connection() {
            DbError::Unavailable(text)
        } else if text.contains("already contains") || text.contains("already exists") {
            DbError::Conflict
        } else if text.contains(DIRECTORY_GONE) {
            DbError::DirectoryGone
        } else if text.contains(STORAGE_FULL) {
            DbError::StorageFull
        } else {
            DbError::Other(text)
        }
    }
}

impl From<DbError> for crate::error::AppError {
    fn from(e: DbError) -> Self {
        match e {
            DbError::Unavailable(_) => {
                tracing::warn!("{e}");
                crate::error::AppError::DatabaseUnavailable
            }
            e => crate::error::AppError::Internal(anyhow::anyhow!(e)),
        }
    }
}

pub type DbResult<T> = Result<T, DbError>;

/// Logs a query's wall time when dropped, at trace level only.
struct Timed<'a> {
    sql: &'a str,
    started: Option<std::time::Instant>,
}

impl<'a> Timed<'a> {
    fn new(sql: &'a str) -> Timed<'a> {
        let started = tracing::enabled!(tracing::Level::TRACE).then(std::time::Instant::now);
        Timed { sql, started }
    }
}

impl Drop for Timed<'_> {
    fn drop(&mut self) {
        if let Some(started) = self.started {
            let sql: String = self.sql.split_whitespace().collect::<Vec<_>>().join(" ");
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            let head: String = sql.chars().take(160).collect();
            tracing::trace!(ms = format!("{ms:.2}"), "query {head}");
        }
    }
}

/// What `create_file` throws when the directory is no longer live.
const DIRECTORY_GONE: &str = "mediaforge: directory is gone";
/// What `replace_file` throws when the file would take its account past its limit.
const STORAGE_FULL: &str = "mediaforge: storage limit reached";

/// The bytes of the visible files in account `$a`'s live directories at `$now`, as SurrealQL
/// (`storage_used`, and the check `replace_file` makes in its transaction): a `LET` of the
/// directories, then the sum. The list must be a value: `dir_id IN (SELECT ...)` is planned as
/// a scan of every tenant's files that runs the inner select again for each (with 20,000 of
/// another account's files, 0.3 s for an account holding one and 8.6 s for the account holding
/// them), where `IN $dirs` reads the `file_name_unique` index (1 ms and 0.1 s).
macro_rules! storage_used {
    () => {
        "LET $dirs = (SELECT VALUE dir_id FROM directory WHERE account = $a AND expires_at > $now);
         LET $used = math::sum(SELECT VALUE size FROM file WHERE dir_id IN $dirs AND state != 'deleting');"
    };
}

/// What `replace_file` checks a file against: `adding` bytes more must fit the `account`'s
/// storage `limit`.
#[derive(Clone, Copy, Debug)]
pub struct Room<'a> {
    pub account: &'a str,
    pub limit: u64,
    pub adding: u64,
}

#[derive(Clone)]
pub struct Db {
    /// Shared, never cloned: a clone of a `Surreal` handle is a new session, which the client
    /// sets up again on a server (attach, sign in, namespace) and a server verifies the
    /// password of (Argon2). Cloned with every `Db`, every write that ran as its own task,
    /// every quota hold and every lease paid that: a server at full CPU signing in, a job's
    /// output taking a second to record (tests/api/scaleout.rs, issue #34).
    inner: std::sync::Arc<Surreal<Any>>,
    query_timeout: std::time::Duration,
    /// Directories never change once made and are removed only after they expire, so every
    /// instance may keep copies (checking `expires_at` on each read): the hottest look-up of
    /// the API then costs no query.
    directories: std::sync::Arc<std::sync::RwLock<std::collections::HashMap<String, Directory>>>,
    /// File listings, when this process is the store's only writer (embedded); `None` on a
    /// server, where other instances write too.
    listings: Option<std::sync::Arc<kept::Kept<Vec<FileListing>>>>,
    /// Job views, on the same terms (`kept.rs`).
    jobs: Option<std::sync::Arc<kept::Kept<Job>>>,
    /// The pending queue for job views, on the same terms (`queue.rs`).
    queue: Option<std::sync::Arc<queue::Queue>>,
    /// Throughput figures (estimates), on the same terms: read on every submission and before
    /// every run's own is folded in.
    throughputs: Option<std::sync::Arc<kept::Kept<Throughput>>>,
    /// The result cache's bytes, on the same terms (`cache.rs`).
    cache_held: Option<std::sync::Arc<cache::HeldBytes>>,
    /// Whether this process is the store's only writer (`sole_writer`).
    sole_writer: bool,
}

/// Files a directory's listing may hold to be kept in memory.
const MAX_LISTED_FILES: usize = 1_000;

/// Most directories kept in memory per instance (a few hundred bytes each).
const DIRECTORY_CACHE_MAX: usize = 100_000;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Account {
    pub name: String,
    pub plan: String,
}

pub use accounts::{AccountRow, AuditEntry, KeyFound, KeyRow, KeyScope, Source};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Directory {
    pub dir_id: String,
    pub account: String,
    pub ttl: u64,
    pub added_at: i64,
    pub expires_at: i64,
}

/// Bytes of an account's month set aside for a run between its quota check and its charge.
#[derive(Debug, Clone)]
pub struct QuotaHold {
    pub id: String,
    pub account: String,
    pub month: String,
    pub bytes: u64,
    /// When the hold lapses by itself (unix ms), should its run never end it (a crash).
    pub until: i64,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FileState {
    /// Record made, bytes not (yet) uploaded.
    Pending,
    Ready,
    /// Being removed: invisible, bytes deleted next, then the record.
    Deleting,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRecord {
    pub object_id: String,
    pub dir_id: String,
    pub file_name: String,
    pub state: FileState,
    pub size: u64,
    pub content_type: Option<String>,
    pub added_at: i64,
    /// SHA-256 of the bytes (hex), taken as they came in; `None` for an upload made straight to
    /// S3 until a task first stages it (`pipeline/stage.rs`).
    #[serde(default)]
    pub sha256: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct FileListing {
    pub file_name: String,
    pub added_at: i64,
}

impl Db {
    /// Connects (waiting up to `connect_timeout_s` for a server) and brings the schema up to date.
    pub async fn connect(cfg: &config::Database) -> anyhow::Result<Db> {
        let deadline =
            std::time::Instant::now() + std::time::Duration::from_secs(cfg.connect_timeout_s);
        let inner = loop {
            match Self::try_connect(cfg).await {
                Ok(db) => break db,
                Err(e) if std::time::Instant::now() < deadline && cfg.url.starts_with("ws") => {
                    tracing::warn!("database {} not reachable yet: {e}", cfg.url);
                    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                }
                Err(e) => anyhow::bail!("cannot open database {}: {e}", cfg.url),
            }
        };
        let embedded = ["surrealkv://", "mem://"]
            .iter()
            .any(|scheme| cfg.url.starts_with(scheme));
        let db = Db {
            inner: std::sync::Arc::new(inner),
            query_timeout: std::time::Duration::from_secs(cfg.query_timeout_s),
            directories: Default::default(),
            listings: embedded.then(Default::default),
            jobs: embedded.then(Default::default),
            queue: embedded.then(Default::default),
            throughputs: embedded.then(Default::default),
            cache_held: embedded.then(Default::default),
            sole_writer: embedded,
        };
        // A server that has just started may answer its first (schema) queries slowly: wait for
        // it like for the connection.
        loop {
            match db.exec(schema::SCHEMA, json!({})).await {
                Ok(()) => return Ok(db),
                Err(DbError::Unavailable(e)) if std::time::Instant::now() < deadline => {
                    tracing::warn!("database {} not answering yet: {e}", cfg.url);
                }
                // A schema query that timed out may still be running on the server (or another
                // instance defining the same schema), and the next one then loses a write
                // conflict: every statement is `IF NOT EXISTS`, so it is run again (a loaded CI
                // machine failed a start this way, 2026-11-29).
                Err(DbError::Other(e))
                    if e.contains("can be retried") && std::time::Instant::now() < deadline =>
                {
                    tracing::warn!("database {} busy defining the schema: {e}", cfg.url);
                    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    async fn try_connect(cfg: &config::Database) -> anyhow::Result<Surreal<Any>> {
        if let Some(path) = cfg.url.strip_prefix("surrealkv://") {
            if let Some(parent) = std::path::Path::new(path).parent() {
                std::fs::create_dir_all(parent)?;
            }
        }
        let db = surrealdb::engine::any::connect(cfg.url.as_str()).await?;
        if !cfg.username.is_empty() {
            db.signin(surrealdb::opt::auth::Root {
                username: cfg.username.clone(),
                password: cfg.password.clone(),
            })
            .await?;
        }
        db.use_ns(cfg.namespace.as_str())
            .use_db(cfg.database.as_str())
            .await?;
        Ok(db)
    }

    /// Runs `sql`. The store's transactions are optimistic: one that lost a write conflict to
    /// a concurrent one (two requests charging the same month, say) was not applied, and is
    /// run again, when nothing of the query committed before it (a single statement, or one
    /// BEGIN … COMMIT).
    async fn query(&self, sql: &str, vars: Value) -> DbResult<surrealdb::IndexedResults> {
        let atomic = sql.trim_start().starts_with("BEGIN");
        let mut attempt = 0u64;
        // Each query's time at trace level (`MEDIAFORGE_LOG=mediaforge::db=trace`): what a
        // request asks of the database, in order.
        let _timed = Timed::new(sql);
        crate::metrics::count(crate::metrics::DB_QUERIES);
        loop {
            // The client waits for a lost server to come back: bound the wait, so a request
            // in an outage fails (503) instead of hanging.
            let answer = tokio::time::timeout(
                self.query_timeout,
                self.inner.query(sql).bind(vars.clone()).into_future(),
            );
            let outcome = match answer.await {
                Ok(Ok(mut response)) => first_error(&mut response).map(|()| response),
                Ok(Err(e)) => Err((0, e.into())),
                Err(_) => {
                    return Err(DbError::Unavailable(format!(
                        "no answer within {} s",
                        self.query_timeout.as_secs()
                    )));
                }
            };
            match outcome {
                Ok(response) => return Ok(response),
                Err((index, DbError::Other(text)))
                    if attempt < 10
                        && (atomic || index == 0)
                        && text.contains("can be retried") =>
                {
                    attempt += 1;
                    crate::metrics::count(crate::metrics::DB_RETRIES);
                    let jitter = rand::random::<u64>() % 5;
                    tokio::time::sleep(std::time::Duration::from_millis(attempt * 2 + jitter))
                        .await;
                }
                Err((_, e)) => return Err(e),
            }
        }
    }

    async fn rows<T: DeserializeOwned>(&self, sql: &str, vars: Value) -> DbResult<Vec<T>> {
        let mut response = self.query(sql, vars).await?;
        let last = response.num_statements().saturating_sub(1);
        let rows: Vec<Value> = response.take(last)?;
        rows.into_iter()
            .map(|row| serde_json::from_value(row).map_err(|e| DbError::Other(format!("row: {e}"))))
            .collect()
    }

    /// Runs `sql` and returns the rows of statement `index` (BEGIN and COMMIT count).
    async fn rows_at<T: DeserializeOwned>(
        &self,
        sql: &str,
        vars: Value,
        index: usize,
    ) -> DbResult<Vec<T>> {
        let mut response = self.query(sql, vars).await?;
        let rows: Vec<Value> = response.take(index)?;
        rows.into_iter()
            .map(|row| serde_json::from_value(row).map_err(|e| DbError::Other(format!("row: {e}"))))
            .collect()
    }

    /// A statement whose answer is not read. Writes run this way end in `RETURN NONE`, so
    /// SurrealDB neither builds the written record back nor sends it.
    async fn exec(&self, sql: &str, vars: Value) -> DbResult<()> {
        self.query(sql, vars).await.map(drop)
    }

    async fn first<T: DeserializeOwned>(&self, sql: &str, vars: Value) -> DbResult<Option<T>> {
        Ok(self.rows(sql, vars).await?.into_iter().next())
    }

    /// Whether this process is the store's only writer (embedded: surrealkv locks its directory
    /// to one process, `mem://` is the process's own). What only this process writes may then be
    /// kept in memory, and what coordinates instances through the database has no one to
    /// coordinate with.
    pub fn sole_writer(&self) -> bool {
        self.sole_writer
    }

    // ---- settings -------------------------------------------------------------------------

    /// The stored value of `key`, or `proposed` stored now; every instance gets the same answer.
    pub async fn setting_or_init(&self, key: &str, proposed: &str) -> DbResult<String> {
        #[derive(Deserialize)]
        struct Row {
            val: String,
        }
        let sql = "SELECT val FROM type::record('setting', $key)";
        if let Some(row) = self.first::<Row>(sql, json!({ "key": key })).await? {
            return Ok(row.val);
        }
        match self
            .exec(
                "CREATE type::record('setting', $key) SET val = $val RETURN NONE",
                json!({ "key": key, "val": proposed }),
            )
            .await
        {
            Ok(()) | Err(DbError::Conflict) => {}
            Err(e) => return Err(e),
        }
        let row = self.first::<Row>(sql, json!({ "key": key })).await?;
        row.map(|r| r.val)
            .ok_or_else(|| DbError::Other(format!("setting {key} vanished")))
    }

    // ---- directories ----------------------------------------------------------------------

    pub async fn create_directory(&self, dir: &Directory) -> DbResult<()> {
        self.exec(
            "CREATE type::record('directory', $d.dir_id) CONTENT $d RETURN NONE",
            json!({ "d": dir }),
        )
        .await
    }

    /// A live (not expired) directory.
    pub async fn directory(&self, dir_id: &str, now: i64) -> DbResult<Option<Directory>> {
        if let Some(dir) = self.directories.read().expect("lock").get(dir_id) {
            return Ok((dir.expires_at > now).then(|| dir.clone()));
        }
        let found: Option<Directory> = self
            .first(
                "SELECT * OMIT id FROM type::record('directory', $id) WHERE expires_at > $now",
                json!({ "id": dir_id, "now": now }),
            )
            .await?;
        if let Some(dir) = &found {
            let mut cache = self.directories.write().expect("lock");
            if cache.len() >= DIRECTORY_CACHE_MAX {
                cache.clear();
            }
            cache.insert(dir.dir_id.clone(), dir.clone());
        }
        Ok(found)
    }

    pub async fn directories_of(&self, account: &str, now: i64) -> DbResult<Vec<Directory>> {
        self.rows(
            "SELECT * OMIT id FROM directory WHERE account = $a AND expires_at > $now ORDER BY added_at",
            json!({ "a": account, "now": now }),
        )
        .await
    }

    pub async fn expired_directories(&self, now: i64, limit: u32) -> DbResult<Vec<String>> {
        #[derive(Deserialize)]
        struct Row {
            dir_id: String,
        }
        let rows: Vec<Row> = self
            .rows(
                "SELECT dir_id FROM directory WHERE expires_at <= $now LIMIT $limit",
                json!({ "now": now, "limit": limit }),
            )
            .await?;
        Ok(rows.into_iter().map(|r| r.dir_id).collect())
    }

    /// Marks every file of the directory for deletion and removes the directory record; the
    /// files' bytes and records are then removed by `sweep_deleting` (idempotent).
    pub async fn retire_directory(&self, dir_id: &str) -> DbResult<()> {
        let vars = json!({ "d": dir_id });
        self.write_files(dir_id, |db| async move {
            db.exec(
                "BEGIN TRANSACTION;
                 UPDATE file SET state = 'deleting' WHERE dir_id = $d RETURN NONE;
                 DELETE type::record('directory', $d);
                 COMMIT TRANSACTION;",
                vars,
            )
            .await
        })
        .await
    }

    // ---- files ----------------------------------------------------------------------------

    /// Creates a file record in a live directory only. The directory record is written in the
    /// same transaction, so this conflicts with a concurrent `retire_directory` (which deletes
    /// it) instead of slipping a record past its sweep: nothing outlives its directory.
    pub async fn create_file(&self, file: &FileRecord, now: i64) -> DbResult<()> {
        let vars = json!({ "f": file, "now": now, "gone": DIRECTORY_GONE });
        self.write_files(&file.dir_id, |db| async move {
            db.exec(
                "BEGIN TRANSACTION;
                 LET $live = (UPDATE type::record('directory', $f.dir_id) SET files_added_at = $now
                     WHERE expires_at > $now RETURN VALUE dir_id);
                 IF array::len($live) == 0 { THROW $gone };
                 CREATE type::record('file', $f.object_id) CONTENT $f RETURN NONE;
                 COMMIT TRANSACTION;",
                vars,
            )
            .await
        })
        .await
    }

    /// Puts `file` (ready, its bytes already stored) in place of any file of its name, in one
    /// transaction that also checks the directory is live and, with `limit` (the owner's
    /// account, its storage bound, and the bytes to find room for: this file's and those of
    /// the files stored with it after it), that they fit: the objects of the replaced files,
    /// for the caller to remove. A task's outputs are stored this way (`files::store_output`):
    /// one write where checking, hiding, deleting, creating and completing took five.
    pub async fn replace_file(
        &self,
        file: &FileRecord,
        now: i64,
        limit: Option<Room<'_>>,
    ) -> DbResult<Vec<String>> {
        #[derive(Deserialize)]
        struct Row {
            object_id: String,
        }
        let vars = json!({ "f": file, "now": now, "gone": DIRECTORY_GONE, "full": STORAGE_FULL,
                           "check": limit.is_some(), "a": limit.map(|r| r.account),
                           "limit": limit.map(|r| r.limit), "adding": limit.map(|r| r.adding) });
        let rows: Vec<Row> = self
            .write_files(&file.dir_id, |db| async move {
                // Statements: 0 BEGIN, 1 LET, 2 IF, 3 IF (the storage limit, summed only when
                // checked), 4 DELETE (the replaced), 5 CREATE, 6 COMMIT.
                db.rows_at(
                    concat!(
                        "BEGIN TRANSACTION;
                     LET $live = (UPDATE type::record('directory', $f.dir_id) SET files_added_at = $now
                         WHERE expires_at > $now RETURN VALUE dir_id);
                     IF array::len($live) == 0 { THROW $gone };
                     IF $check {
                         ",
                        storage_used!(),
                        "
                         IF $used + $adding > $limit { THROW $full };
                     };
                     DELETE file WHERE dir_id = $f.dir_id AND file_name = $f.file_name RETURN BEFORE;
                     CREATE type::record('file', $f.object_id) CONTENT $f RETURN NONE;
                     COMMIT TRANSACTION;"
                    ),
                    vars,
                    4,
                )
                .await
            })
            .await?;
        Ok(rows.into_iter().map(|r| r.object_id).collect())
    }

    /// A visible (not being deleted) file.
    pub async fn file(&self, dir_id: &str, name: &str) -> DbResult<Option<FileRecord>> {
        self.first(
            "SELECT * OMIT id FROM file WHERE dir_id = $d AND file_name = $n AND state != 'deleting'",
            json!({ "d": dir_id, "n": name }),
        )
        .await
    }

    pub async fn file_by_object(&self, object_id: &str) -> DbResult<Option<FileRecord>> {
        self.first(
            "SELECT * OMIT id FROM type::record('file', $o) WHERE state != 'deleting'",
            json!({ "o": object_id }),
        )
        .await
    }

    /// The visible files of a directory, oldest first.
    pub async fn files_in(&self, dir_id: &str) -> DbResult<std::sync::Arc<Vec<FileListing>>> {
        let read = async {
            self.rows(
                "SELECT file_name, added_at FROM file WHERE dir_id = $d AND state != 'deleting' ORDER BY added_at, file_name",
                json!({ "d": dir_id }),
            )
            .await
            .map(Some)
        };
        let listing = self.read_kept(
            &self.listings,
            dir_id,
            |f| f.len() <= MAX_LISTED_FILES,
            read,
        );
        Ok(listing.await?.unwrap_or_default())
    }

    /// A read through `kept` (where this process keeps such records): from memory, or `read`
    /// and kept when `keep` says it is worth keeping and no write ended while it ran.
    async fn read_kept<V>(
        &self,
        kept: &Option<std::sync::Arc<kept::Kept<V>>>,
        key: &str,
        keep: impl Fn(&V) -> bool,
        read: impl std::future::Future<Output = DbResult<Option<V>>>,
    ) -> DbResult<Option<std::sync::Arc<V>>> {
        let ticket = match kept.as_ref().map(|k| k.get(key)) {
            Some(Ok(value)) => return Ok(Some(value)),
            Some(Err(ticket)) => Some(ticket),
            None => None,
        };
        let value = read.await?.map(std::sync::Arc::new);
        if let (Some(kept), Some(ticket), Some(v)) = (kept, ticket, &value)
            && keep(v)
        {
            kept.fill(ticket, key, v);
        }
        Ok(value)
    }

    /// Runs a write to the files of `dir_id`, then drops the directory's kept listing.
    async fn write_files<T, F>(&self, dir_id: &str, write: impl FnOnce(Db) -> F) -> DbResult<T>
    where
        T: Send + 'static,
        F: std::future::Future<Output = DbResult<T>> + Send + 'static,
    {
        let dir = kept::Touched::One(dir_id.to_string());
        self.write_kept(self.listings.clone(), write, move |_| dir)
            .await
    }

    /// Runs a write, then forgets what it `touched` (read from its outcome) of `kept`. The
    /// write runs as its own task, so a caller that goes away (a client hanging up) cannot
    /// leave a write that commits after the record was forgotten.
    async fn write_kept<V, T, F>(
        &self,
        kept: Option<std::sync::Arc<kept::Kept<V>>>,
        write: impl FnOnce(Db) -> F,
        touched: impl FnOnce(&DbResult<T>) -> kept::Touched + Send + 'static,
    ) -> DbResult<T>
    where
        V: Send + Sync + 'static,
        T: Send + 'static,
        F: std::future::Future<Output = DbResult<T>> + Send + 'static,
    {
        let Some(kept) = kept else {
            return write(self.clone()).await;
        };
        let write = write(self.clone());
        tokio::spawn(async move {
            let outcome = write.await;
            kept.changed(&touched(&outcome));
            outcome
        })
        .await
        .map_err(|e| DbError::Other(format!("a write stopped: {e}")))?
    }

    /// Records bytes found stored for a record (a new import's, or an upload adopted after a
    /// crash lost its answer); `None` when the record is gone or being deleted, or while an
    /// upload holds it (`db/uploads.rs`: that upload finishes it).
    pub async fn mark_uploaded(
        &self,
        object_id: &str,
        size: u64,
        content_type: Option<&str>,
        sha256: Option<&str>,
    ) -> DbResult<Option<FileRecord>> {
        self.first(
            "UPDATE type::record('file', $o) SET state = 'ready', size = $s, content_type = $t, sha256 = $h
             WHERE state != 'deleting' AND (upload_claim = NONE OR upload_until < $now) RETURN AFTER",
            json!({ "o": object_id, "s": size, "t": content_type, "h": sha256, "now": crate::clock::now_ms() }),
        )
        .await
        .map(|r: Option<Value>| r.and_then(|v| serde_json::from_value(strip_id(v)).ok()))
    }

    /// Records the hash of a ready file's bytes, read from them after they were stored (a
    /// ready file's bytes never change, `db/uploads.rs`), and of `size` bytes: a hash never
    /// lands on a record that names other bytes.
    pub async fn set_file_hash(&self, object_id: &str, size: u64, sha256: &str) -> DbResult<()> {
        self.exec(
            "UPDATE type::record('file', $o) SET sha256 = $h
             WHERE state = 'ready' AND size = $s AND sha256 = NONE RETURN NONE",
            json!({ "o": object_id, "h": sha256, "s": size }),
        )
        .await
    }

    /// Hides a file at once; its bytes and record go next (`finish_delete`). Returns the record.
    pub async fn mark_deleting(&self, dir_id: &str, name: &str) -> DbResult<Option<FileRecord>> {
        let vars = json!({ "d": dir_id, "n": name });
        let row: Option<Value> = self
            .write_files(dir_id, |db| async move {
                db.first(
                    "UPDATE file SET state = 'deleting' WHERE dir_id = $d AND file_name = $n AND state != 'deleting' RETURN AFTER",
                    vars,
                )
                .await
            })
            .await?;
        Ok(row.and_then(|v| serde_json::from_value(strip_id(v)).ok()))
    }

    pub async fn finish_delete(&self, object_id: &str) -> DbResult<()> {
        self.exec("DELETE type::record('file', $o)", json!({ "o": object_id }))
            .await
    }

    /// Objects of files marked for deletion (crash leftovers and expired directories).
    pub async fn deleting_objects(&self, limit: u32) -> DbResult<Vec<String>> {
        #[derive(Deserialize)]
        struct Row {
            object_id: String,
        }
        let rows: Vec<Row> = self
            .rows(
                "SELECT object_id FROM file WHERE state = 'deleting' LIMIT $limit",
                json!({ "limit": limit }),
            )
            .await?;
        Ok(rows.into_iter().map(|r| r.object_id).collect())
    }

    // ---- usage ----------------------------------------------------------------------------

    pub async fn usage(&self, account: &str, month: &str) -> DbResult<Charge> {
        Ok(self
            .first(
                "SELECT input_bytes, output_bytes, time_sec, gb_sec FROM type::record('usage', [$a, $m])",
                json!({ "a": account, "m": month }),
            )
            .await?
            .unwrap_or_default())
    }

    /// Adds one run to the account's month, atomically.
    pub async fn add_usage(&self, account: &str, month: &str, run: &Charge) -> DbResult<()> {
        self.exec(
            add_usage!(),
            json!({ "a": account, "m": month, "charge": run }),
        )
        .await
    }

    /// The bytes of the account's month charged or held by runs under way.
    pub async fn quota_taken(&self, account: &str, month: &str, now: i64) -> DbResult<u64> {
        let rows: Vec<u64> = self
            .rows(
                "RETURN [math::sum(SELECT VALUE input_bytes FROM type::record('usage', [$a, $m]))
                    + math::sum(SELECT VALUE bytes FROM quota_hold WHERE account = $a AND month = $m AND until > $now)]",
                json!({ "a": account, "m": month, "now": now }),
            )
            .await?;
        Ok(rows.into_iter().next().unwrap_or(0))
    }

    /// Holds `bytes` of account `a`'s month `m` against `quota` (hold `id`, until `until`) if
    /// the month's charges and the live holds leave room for them. Answers the bytes taken
    /// before this hold (charges and live holds) and whether it was made. Every hold also
    /// writes the month's usage record, so two made at once conflict and one of them counts
    /// again (`query` retries it): the quota holds across instances.
    pub async fn hold_quota(
        &self,
        hold: &QuotaHold,
        quota: u64,
        now: i64,
    ) -> DbResult<(u64, bool)> {
        #[derive(Deserialize)]
        struct Row {
            taken: u64,
            held: bool,
        }
        // Statements: 0 BEGIN, 1-3 LET, 4 IF, 5 SELECT (the figures), 6 COMMIT.
        let rows: Vec<Row> = self
            .rows_at(
                "BEGIN TRANSACTION;
                 LET $used = math::sum(SELECT VALUE input_bytes FROM type::record('usage', [$a, $m]));
                 LET $taken = $used + math::sum(SELECT VALUE bytes FROM quota_hold WHERE account = $a AND month = $m AND until > $now AND id != type::record('quota_hold', $id));
                 LET $held = $taken + $n <= $quota;
                 IF $held {
                     UPSERT type::record('quota_hold', $id) SET account = $a, month = $m, bytes = $n, until = $until RETURN NONE;
                     UPSERT type::record('usage', [$a, $m]) SET account = $a, month = $m,
                         input_bytes = input_bytes OR 0, output_bytes = output_bytes OR 0,
                         time_sec = time_sec OR 0.0, gb_sec = gb_sec OR 0.0, held_at = $now RETURN NONE;
                 };
                 SELECT * FROM [{ taken: $taken, held: $held }];
                 COMMIT TRANSACTION;",
                json!({ "a": hold.account, "m": hold.month, "id": hold.id, "n": hold.bytes,
                        "until": hold.until, "quota": quota, "now": now }),
                5,
            )
            .await?;
        let row = rows
            .into_iter()
            .next()
            .ok_or_else(|| DbError::Other("quota hold: no answer".into()))?;
        Ok((row.taken, row.held))
    }

    /// Ends a hold: its run is charged (`charge`, in the same transaction) or abandoned.
    pub async fn end_quota_hold(&self, hold: &QuotaHold, charge: Option<&Charge>) -> DbResult<()> {
        let vars = json!({ "a": hold.account, "m": hold.month, "id": hold.id, "charge": charge });
        match charge {
            Some(_) => {
                self.exec(
                    concat!(
                        "BEGIN TRANSACTION;
                         DELETE type::record('quota_hold', $id);
                         ",
                        add_usage!(),
                        ";
                         COMMIT TRANSACTION;"
                    ),
                    vars,
                )
                .await
            }
            None => {
                self.exec("DELETE type::record('quota_hold', $id)", vars)
                    .await
            }
        }
    }

    // ---- throughput (estimates) ------------------------------------------------------------

    pub async fn throughput(&self, kind: &str) -> DbResult<Option<Throughput>> {
        let read = self.first(
            "SELECT runs, speed, out_bytes_per_s FROM type::record('throughput', $k)",
            json!({ "k": kind }),
        );
        let kept = self.read_kept(&self.throughputs, kind, |_| true, read);
        Ok(kept.await?.map(|t| Throughput::clone(&t)))
    }

    /// Folds one run into its kind's figures: a moving average that follows the machine as it
    /// changes, weighted to the recent runs.
    pub async fn record_throughput(&self, kind: &str, run: &Throughput) -> DbResult<()> {
        let kept = self.throughput(kind).await?.unwrap_or_default();
        let mix = |old: f64, new: f64| {
            if kept.runs == 0 {
                new
            } else {
                old * 0.6 + new * 0.4
            }
        };
        let next = Throughput {
            runs: kept.runs + 1,
            speed: mix(kept.speed, run.speed),
            out_bytes_per_s: mix(kept.out_bytes_per_s, run.out_bytes_per_s),
        };
        // Where this process is the only writer, what is kept in memory is what estimates read:
        // the row is written for the first runs and then every `THROUGHPUT_WRITE_EVERY`th, one
        // query fewer for most jobs (issue #34); a restart forgets at most that many samples of
        // a moving average.
        if self.throughputs.is_none()
            || next.runs <= THROUGHPUT_WRITE_EVERY
            || next.runs.is_multiple_of(THROUGHPUT_WRITE_EVERY)
        {
            self.exec(
                "UPSERT type::record('throughput', $k) CONTENT $t RETURN NONE",
                json!({ "k": kind, "t": next }),
            )
            .await?;
        }
        if let Some(kept) = &self.throughputs {
            kept.set(kind, next);
        }
        Ok(())
    }

    /// Bytes of the visible files in the account's live directories.
    pub async fn storage_used(&self, account: &str, now: i64) -> DbResult<u64> {
        let rows: Vec<Option<u64>> = self
            .rows_at(
                concat!(storage_used!(), "RETURN [$used];"),
                json!({ "a": account, "now": now }),
                2,
            )
            .await?;
        Ok(rows.into_iter().next().flatten().unwrap_or(0))
    }

    /// Which of `objects` have no file record at all (in any state): bytes nothing refers to.
    pub async fn unrecorded_objects(&self, objects: &[String]) -> DbResult<Vec<String>> {
        // A missing record selects as NONE.
        let recorded: Vec<Option<String>> = self
            .rows(
                "SELECT VALUE object_id FROM array::map($o, |$id| type::record('file', $id))",
                json!({ "o": objects }),
            )
            .await?;
        let recorded: std::collections::HashSet<String> = recorded.into_iter().flatten().collect();
        Ok(objects
            .iter()
            .filter(|o| !recorded.contains(*o))
            .cloned()
            .collect())
    }

    /// Pending records older than `before` (ms): uploads that never finished, or finished bytes
    /// whose record update was lost to a crash. The sweeper reconciles them with the store.
    pub async fn stale_pending(
        &self,
        before: i64,
        after: i64,
        limit: u32,
    ) -> DbResult<Vec<FileRecord>> {
        self.rows(
            // A file an upload still holds (a resumable one may run for hours) is not stale.
            "SELECT * OMIT id FROM file WHERE state = 'pending' AND added_at < $b AND added_at > $a
               AND (upload_until = NONE OR upload_until < $b) LIMIT $limit",
            json!({ "b": before, "a": after, "limit": limit }),
        )
        .await
    }
}

/// The error that caused a failure: in a transaction, the statements around the failing one
/// report "not executed" or "cancelled" placeholders, which say nothing.
fn first_error(response: &mut surrealdb::IndexedResults) -> Result<(), (usize, DbError)> {
    use surrealdb::types::QueryError;
    let mut errors: Vec<(usize, surrealdb::Error)> = response.take_errors().into_iter().collect();
    errors.sort_by_key(|(i, _)| *i);
    let placeholder = |e: &surrealdb::Error| {
        matches!(
            e.query_details(),
            Some(QueryError::NotExecuted) | Some(QueryError::Cancelled)
        )
    };
    match errors
        .iter()
        .find(|(_, e)| !placeholder(e))
        .or(errors.first())
    {
        Some((i, e)) => Err((*i, e.clone().into())),
        None => Ok(()),
    }
}

/// Runs of one kind between two writes of its throughput row (`record_throughput`).
const THROUGHPUT_WRITE_EVERY: u64 = 8;

/// Measured runs of one kind of work.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Throughput {
    pub runs: u64,
    /// Media seconds processed per wall second.
    pub speed: f64,
    /// Output bytes per media second.
    pub out_bytes_per_s: f64,
}

fn strip_id(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("id");
    }
    v
}
