//! The sub-jobs of split encodes (`pipeline/split/`), as queries: one row per segment in the
//! shared database, which any worker of any instance claims as it claims a job (a single
//! statement re-checks `status = 'pending'`), holds with a renewed lease, and finishes only
//! while it holds that lease. A worker that dies lets its lease lapse and the segment goes back
//! to pending; one whose workers keep dying fails, and the task with it. A part lives while its
//! task's coordinator renews `alive_until`; parts whose coordinator died are taken away with
//! their objects. Parts are never listed to tenants: they are not jobs.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Db, DbResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PartStatus {
    Pending,
    Processing,
    Done,
    Failed,
}

/// Why a part failed, as the task reports it (`AppError::Joined`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PartFailure {
    pub status: u16,
    pub message: String,
    pub details: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Part {
    /// `{split_id}_{index}`.
    pub part_id: String,
    pub split_id: String,
    /// Whose process slots the encode takes.
    pub account: String,
    pub index: u32,
    pub status: PartStatus,
    /// The audio of the whole input rather than a video segment.
    #[serde(default)]
    pub audio: bool,
    /// The segment, cut by stream copy, as an object in the store (the audio part: the task's
    /// stored input itself, which is never removed with the part).
    pub input_object: String,
    /// Its extension (the demuxer ffmpeg picks).
    pub input_ext: String,
    /// ffmpeg's options between the segment and the encoded file.
    pub args: Vec<String>,
    /// The encoded file's name; its extension picks the muxer.
    pub output_name: String,
    pub output_object: Option<String>,
    /// Seconds of media in the segment, and how many of them are encoded so far.
    pub media_s: f64,
    pub processed_s: f64,
    /// How long its ffmpeg ran (metering sums the parts').
    pub elapsed_s: f64,
    pub failure: Option<PartFailure>,
    /// When the whole task's `process_timeout_s` runs out (unix ms): a part's ffmpeg gets only
    /// what is left of it, so splitting never buys a task more time than running it whole.
    #[serde(default)]
    pub deadline: i64,
    pub lease_token: Option<String>,
    pub lease_until: i64,
    pub attempts: u32,
    pub alive_until: i64,
    pub created_at: i64,
}

const FIELDS: &str = "* OMIT id";

impl Db {
    pub async fn create_part(&self, part: &Part) -> DbResult<()> {
        self.exec(
            "CREATE type::record('part', $p.part_id) CONTENT $p",
            json!({ "p": part }),
        )
        .await
    }

    /// The account whose split has the oldest claimable part, if any: whose turn a free worker
    /// weighs against the accounts waiting with jobs (`jobs/scheduler.rs`).
    pub async fn next_part_account(&self, now: i64) -> DbResult<Option<String>> {
        #[derive(Deserialize)]
        struct Row {
            account: String,
        }
        let row: Option<Row> = self
            .first(
                "SELECT account, created_at, index FROM part WHERE status = 'pending' AND alive_until > $now
                 ORDER BY created_at ASC, index ASC LIMIT 1",
                json!({ "now": now }),
            )
            .await?;
        Ok(row.map(|r| r.account))
    }

    /// Claims the oldest pending part (of `split_id` only, when given) of a live split.
    pub async fn claim_part(
        &self,
        split_id: Option<&str>,
        token: &str,
        now: i64,
        lease_ms: i64,
    ) -> DbResult<Option<Part>> {
        let only = if split_id.is_some() {
            "AND split_id = $s"
        } else {
            ""
        };
        // Statements: 0 BEGIN, 1 LET, 2 IF, 3 SELECT (the claimed part), 4 COMMIT. The claim
        // writes its account's turn record, as a job's claim does (`claim_job`): under
        // snapshot isolation a part and a job claimed at once for one account then conflict
        // and one is retried, so neither claim misses the other when counting what runs.
        let rows: Vec<Part> = self
            .rows_at(
                &format!(
                    "BEGIN TRANSACTION;
                     LET $p = (UPDATE (SELECT id, created_at, index FROM part
                                       WHERE status = 'pending' AND alive_until > $now {only}
                                       ORDER BY created_at ASC, index ASC LIMIT 1)
                               SET status = 'processing', lease_token = $t, lease_until = $until, attempts += 1
                               WHERE status = 'pending' RETURN AFTER);
                     IF array::len($p) > 0 {{ UPSERT type::record('turn', $p[0].account) SET account = $p[0].account, at = $now; }};
                     SELECT {FIELDS} FROM $p;
                     COMMIT TRANSACTION;"
                ),
                json!({ "s": split_id, "t": token, "now": now, "until": now + lease_ms }),
                3,
            )
            .await?;
        Ok(rows.into_iter().next())
    }

    /// Extends a part's lease and records its progress; `false` when it is no longer this
    /// worker's.
    pub async fn renew_part(
        &self,
        part_id: &str,
        token: &str,
        until: i64,
        processed_s: f64,
    ) -> DbResult<bool> {
        let row: Option<serde_json::Value> = self
            .first(
                "UPDATE type::record('part', $id) SET lease_until = $until, processed_s = $p
                 WHERE status = 'processing' AND lease_token = $t RETURN part_id",
                json!({ "id": part_id, "t": token, "until": until, "p": processed_s }),
            )
            .await?;
        Ok(row.is_some())
    }

    /// Ends a part, done (with its encoded object) or failed, if `token` still holds it.
    pub async fn finish_part(
        &self,
        part_id: &str,
        token: &str,
        end: Result<(&str, f64), &PartFailure>,
    ) -> DbResult<bool> {
        let (status, object, elapsed, failure) = match end {
            Ok((object, elapsed)) => (PartStatus::Done, Some(object), elapsed, None),
            Err(f) => (PartStatus::Failed, None, 0.0, Some(f)),
        };
        let row: Option<serde_json::Value> = self
            .first(
                "UPDATE type::record('part', $id)
                 SET status = $status, output_object = $o, elapsed_s = $e, failure = $f,
                     processed_s = IF $status = 'done' { media_s } ELSE { processed_s }, lease_token = NONE
                 WHERE status = 'processing' AND lease_token = $t RETURN part_id",
                json!({ "id": part_id, "t": token, "status": status, "o": object, "e": elapsed, "f": failure }),
            )
            .await?;
        Ok(row.is_some())
    }

    pub async fn parts_of(&self, split_id: &str) -> DbResult<Vec<Part>> {
        self.rows(
            &format!("SELECT {FIELDS} FROM part WHERE split_id = $s ORDER BY index ASC"),
            json!({ "s": split_id }),
        )
        .await
    }

    /// The coordinator's heartbeat: its parts stay claimable until `until`.
    pub async fn keep_parts_alive(&self, split_id: &str, until: i64) -> DbResult<()> {
        self.exec(
            "UPDATE part SET alive_until = $u WHERE split_id = $s",
            json!({ "s": split_id, "u": until }),
        )
        .await
    }

    /// Counts `workers` of `instance` among the segment takers until `until` (renewed by the
    /// instance while it runs, `jobs/worker.rs`): how many parts a split is cut into.
    pub async fn offer_takers(&self, instance: &str, workers: usize, until: i64) -> DbResult<()> {
        self.exec(
            "UPSERT type::record('taker', $i) SET workers = $w, until = $u",
            json!({ "i": instance, "w": workers, "u": until }),
        )
        .await
    }

    /// An instance that stops takes its workers out of the count at once.
    pub async fn withdraw_takers(&self, instance: &str) -> DbResult<()> {
        self.exec("DELETE type::record('taker', $i)", json!({ "i": instance }))
            .await
    }

    /// Workers that take segments on every live instance but `instance`.
    pub async fn other_takers(&self, instance: &str, now: i64) -> DbResult<u64> {
        #[derive(Deserialize)]
        struct Row {
            n: Option<u64>,
        }
        let row: Option<Row> = self
            .first(
                "SELECT math::sum(workers) AS n FROM taker
                 WHERE until > $now AND id != type::record('taker', $i) GROUP ALL",
                json!({ "now": now, "i": instance }),
            )
            .await?;
        Ok(row.and_then(|r| r.n).unwrap_or(0))
    }

    /// Gives back parts whose worker stopped renewing; fails those that keep killing workers.
    pub async fn requeue_parts(&self, now: i64, max_attempts: u32) -> DbResult<()> {
        self.exec(
            "UPDATE part SET status = 'failed', lease_token = NONE, failure = $f
             WHERE status = 'processing' AND lease_until < $now AND attempts >= $max;
             UPDATE part SET status = 'pending', lease_token = NONE, processed_s = 0
             WHERE status = 'processing' AND lease_until < $now;",
            json!({
                "now": now,
                "max": max_attempts,
                "f": PartFailure {
                    status: 500,
                    message: crate::error::AppError::SplitPartInterrupted.to_string(),
                    details: None,
                },
            }),
        )
        .await
    }

    /// Removes the parts of `split_id` (or, with `None`, those whose coordinator stopped
    /// renewing before `now`) and returns them, so their objects can go.
    pub async fn take_parts(&self, split_id: Option<&str>, now: i64) -> DbResult<Vec<Part>> {
        let filter = if split_id.is_some() {
            "split_id = $s"
        } else {
            "alive_until < $now"
        };
        let rows: Vec<serde_json::Value> = self
            .rows(
                &format!("DELETE part WHERE {filter} RETURN BEFORE"),
                json!({ "s": split_id, "now": now }),
            )
            .await?;
        Ok(rows
            .into_iter()
            .filter_map(|v| serde_json::from_value(super::strip_id(v)).ok())
            .collect())
    }
}
