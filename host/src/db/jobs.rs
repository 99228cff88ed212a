//! The durable job queue and the webhook outbox, as queries. A job is claimed by exactly one
//! worker (a single-statement update re-checks `status = 'pending'`), carries a lease the worker
//! renews, and is finalised only by the holder of the lease token, in one transaction with the
//! usage charge and the outbox entry of its callback.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::kept::Touched;
use super::{Db, DbError, DbResult};
use crate::task::Task;
use crate::usage::{Charge, Estimate, Usage};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    Pending,
    Processing,
    Completed,
    Failed,
    Cancelled,
}

impl DeliveryState {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "pending",
            DeliveryState::Delivering => "delivering",
            DeliveryState::Delivered => "delivered",
            DeliveryState::Failed => "failed",
        }
    }
}

impl JobStatus {
    pub const ALL: [JobStatus; 5] = [
        JobStatus::Pending,
        JobStatus::Processing,
        JobStatus::Completed,
        JobStatus::Failed,
        JobStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Pending => "pending",
            JobStatus::Processing => "processing",
            JobStatus::Completed => "completed",
            JobStatus::Failed => "failed",
            JobStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<JobStatus> {
        JobStatus::ALL.into_iter().find(|v| v.as_str() == s)
    }

    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            JobStatus::Completed | JobStatus::Failed | JobStatus::Cancelled
        )
    }
}

/// Which of an account's pending jobs runs first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    High,
    #[default]
    Normal,
    Low,
}

impl Priority {
    pub const ALL: [Priority; 3] = [Priority::High, Priority::Normal, Priority::Low];

    pub fn as_str(self) -> &'static str {
        match self {
            Priority::High => "high",
            Priority::Normal => "normal",
            Priority::Low => "low",
        }
    }

    pub fn parse(s: &str) -> Option<Priority> {
        Priority::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// Stored beside the name, so queries order by it.
    pub fn rank(self) -> u8 {
        match self {
            Priority::High => 2,
            Priority::Normal => 1,
            Priority::Low => 0,
        }
    }
}

/// Where a job's callback stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryState {
    /// Due at `next_at`.
    #[default]
    Pending,
    Delivering,
    Delivered,
    Failed,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Webhook {
    pub state: DeliveryState,
    pub event_id: String,
    pub attempts: u32,
    pub last_status: Option<u16>,
    pub last_error: Option<String>,
    pub delivered_at: Option<i64>,
    pub next_at: i64,
    pub lease_until: i64,
}

/// One input of a queued run: the stored file it reads (URL inputs were imported at
/// submission) and the name `@{name}` means, fixed when the task was resolved.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct QueuedInput {
    pub name: String,
    pub dir_id: String,
    pub file_name: String,
}

/// What a worker needs beyond the task to run it exactly as it was resolved.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct QueuedRun {
    pub inputs: Vec<QueuedInput>,
    pub output_dir_id: String,
}

/// An output as a job keeps it: URLs are made when shown, so they are always fresh.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StoredOutput {
    pub file_name: String,
    pub size_bytes: u64,
    pub object_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Its directory, for playback URLs (`files::playback_url`); absent on results kept before
    /// playback URLs existed, which then show none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir_id: Option<String>,
    /// Where the task's `export` copied it (`s3://<credential>/<key>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exported_to: Option<String>,
}

/// A running job's progress.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, salvo::oapi::ToSchema)]
pub struct Progress {
    pub processed_sec: f64,
    /// Of the first input's duration, when known.
    pub percent: Option<f64>,
    /// Seconds left at the speed measured so far, when the duration is known.
    #[serde(default)]
    pub eta_sec: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    pub job_id: String,
    pub account: String,
    pub status: JobStatus,
    #[serde(default)]
    pub priority: Priority,
    #[serde(default)]
    pub priority_rank: u8,
    /// When a worker last claimed it (orders an account's running jobs against its limit).
    #[serde(default)]
    pub claimed_at: i64,
    #[serde(default)]
    pub estimate: Option<Estimate>,
    /// The task as submitted (or as derived from instructions).
    pub task: Task,
    pub run: QueuedRun,
    #[serde(default)]
    pub generated_command: Option<crate::task::Generated>,
    pub webhook_url: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub completed_at: Option<i64>,
    pub input_count: u32,
    pub output_count: u32,
    pub result: Option<Vec<StoredOutput>>,
    pub usage: Option<Usage>,
    /// The argv that ran, with the tenant's own names (as the dry run shows it).
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// Whether the outputs came from the result cache.
    #[serde(default)]
    pub cache: Option<crate::cache::Outcome>,
    pub error: Option<String>,
    pub details: Option<String>,
    pub lease_token: Option<String>,
    pub lease_until: i64,
    pub attempts: u32,
    pub progress: Option<Progress>,
    pub idem: Option<String>,
    pub webhook: Option<Webhook>,
    /// A recipe job: the recipe to run (its `task` then holds only the inputs).
    #[serde(default)]
    pub recipe: Option<crate::task::RecipeCall>,
    /// When a recipe job completed: what the recipe measured.
    #[serde(default)]
    pub data: Option<Value>,
}

/// How a job ends.
pub enum JobEnd<'a> {
    Completed {
        result: &'a [StoredOutput],
        usage: &'a Usage,
        command: &'a [String],
        cache: crate::cache::Outcome,
        /// A recipe's data.
        data: Option<&'a Value>,
        /// Charged in the same transaction.
        account: &'a str,
        charge: &'a Charge,
        month: &'a str,
    },
    Failed {
        error: String,
        details: Option<String>,
    },
}

pub struct ListQuery<'a> {
    pub account: &'a str,
    pub statuses: Option<Vec<JobStatus>>,
    pub limit: u32,
    pub offset: u32,
    pub ascending: bool,
}

const JOB_FIELDS: &str = "* OMIT id";

/// What a claim chooses by (`Db::claim_view`).
#[derive(Debug, Default)]
pub struct ClaimView {
    /// Accounts with pending jobs, each with the creation time of its oldest.
    pub pending: Vec<(String, i64)>,
    /// Jobs (and split segments) processing, by account, on every instance.
    pub running: HashMap<String, u64>,
    /// When each pending account last had a job claimed (absent: never).
    pub turns: HashMap<String, i64>,
}

impl Db {
    /// Creates the job, or, when it carries an idempotency key that an earlier job of the
    /// window (since `since`) holds, returns that job instead. The key's record
    /// (`idem:<hash>`) is written in the same transaction as the job, so of submissions racing
    /// with one key exactly one commits; the others' transactions conflict, are run again,
    /// and then find the winner's job.
    pub async fn create_job(&self, job: &Job, since: i64) -> DbResult<Job> {
        let (job, touched) = (job.clone(), Touched::One(job.job_id.clone()));
        // A write to the pending queue (`queue.rs`).
        self.changing_queue(self.write_jobs(move |db| async move {
            if job.idem.is_none() {
                db.exec(
                    "CREATE type::record('job', $j.job_id) CONTENT $j RETURN NONE",
                    json!({ "j": job }),
                )
                .await?;
                return Ok(job);
            }
            let rows: Vec<Job> = db
                .rows_at(
                    &format!(
                        "BEGIN TRANSACTION;
                         LET $held = (SELECT VALUE job_id FROM type::record('idem', $j.idem) WHERE created_at > $since)[0];
                         IF $held == NONE {{
                             UPSERT type::record('idem', $j.idem) CONTENT {{ job_id: $j.job_id, created_at: $j.created_at }};
                             CREATE type::record('job', $j.job_id) CONTENT $j;
                         }};
                         SELECT {JOB_FIELDS} FROM type::record('job', $held OR $j.job_id);
                         COMMIT TRANSACTION;"
                    ),
                    json!({ "j": job, "since": since }),
                    3,
                )
                .await?;
            rows.into_iter()
                .next()
                .ok_or_else(|| DbError::Other("idempotent job vanished".into()))
        }, |_| touched))
        .await
    }

    /// A job as it stands; where this process is the only writer, from memory until it changes
    /// (a job view polled every 50 ms costs no query between its changes).
    pub async fn job(&self, job_id: &str) -> DbResult<Option<Job>> {
        let sql = format!("SELECT {JOB_FIELDS} FROM type::record('job', $id)");
        let read = self.first(&sql, json!({ "id": job_id }));
        let kept = self.read_kept(&self.jobs, job_id, |_| true, read);
        Ok(kept.await?.map(|job| Job::clone(&job)))
    }

    /// Forgets the kept copy of a job a live query saw change (`None`: a change whose job
    /// could not be read, so any): whoever that change wakes reads it afresh (the write's own
    /// forgetting may come a moment after the notification).
    pub fn forget_job(&self, job_id: Option<&str>) {
        if let Some(kept) = &self.jobs {
            kept.changed(&job_id.map_or(Touched::All, |id| Touched::One(id.to_string())));
        }
    }

    /// A write to jobs (`Db::write_kept` on the kept job views).
    async fn write_jobs<T, F>(
        &self,
        write: impl FnOnce(Db) -> F,
        touched: impl FnOnce(&DbResult<T>) -> Touched + Send + 'static,
    ) -> DbResult<T>
    where
        T: Send + 'static,
        F: std::future::Future<Output = DbResult<T>> + Send + 'static,
    {
        self.write_kept(self.jobs.clone(), write, touched).await
    }

    /// A job the same account submitted with the same idempotency key since `since`.
    pub async fn job_by_idempotency(&self, idem: &str, since: i64) -> DbResult<Option<Job>> {
        self.first(
            &format!(
                "SELECT {JOB_FIELDS} FROM job WHERE idem = $k AND created_at > $since LIMIT 1"
            ),
            json!({ "k": idem, "since": since }),
        )
        .await
    }

    pub async fn list_jobs(&self, q: &ListQuery<'_>) -> DbResult<(Vec<Job>, u64)> {
        let filter = if q.statuses.is_some() {
            "account = $a AND status IN $s"
        } else {
            "account = $a"
        };
        let order = if q.ascending { "ASC" } else { "DESC" };
        let vars = json!({ "a": q.account, "s": q.statuses, "l": q.limit, "o": q.offset });
        let jobs = self
            .rows(
                &format!("SELECT {JOB_FIELDS} FROM job WHERE {filter} ORDER BY created_at {order}, job_id {order} LIMIT $l START $o"),
                vars.clone(),
            )
            .await?;
        #[derive(Deserialize)]
        struct Count {
            n: u64,
        }
        let total = self
            .first::<Count>(
                &format!("SELECT count() AS n FROM job WHERE {filter} GROUP ALL"),
                vars,
            )
            .await?
            .map_or(0, |c| c.n);
        Ok((jobs, total))
    }

    /// Claims `account`'s next pending job (highest priority, then oldest) unless it already
    /// runs `max` jobs; `None` when there is none to take. The claim and the account's turn
    /// record commit together, so two workers claiming for one account at once conflict and
    /// one of them counts again: the limit holds across instances.
    pub async fn claim_job(
        &self,
        account: &str,
        max: Option<u32>,
        token: &str,
        now: i64,
        lease_ms: i64,
    ) -> DbResult<Option<Job>> {
        let (account, token) = (account.to_string(), token.to_string());
        // A write to the pending queue (`queue.rs`).
        self.changing_queue(self.write_jobs(move |db| async move {
            // Statements: 0 BEGIN, 1 LET, 2 LET, 3 IF, 4 SELECT (the claimed job), 5 COMMIT.
            // Without a limit the running jobs need no counting (two scans a claim).
            let running = if max.is_some() {
                "array::len(SELECT id FROM job WHERE status = 'processing' AND account = $a)
                 + array::len(SELECT id FROM part WHERE status = 'processing' AND account = $a)"
            } else {
                "0"
            };
            let rows: Vec<Job> = db
                .rows_at(
                    &format!("BEGIN TRANSACTION;
                     LET $running = {running};
                     LET $job = IF $running < $max {{
                         (UPDATE (SELECT id, priority_rank, created_at FROM job WHERE status = 'pending' AND account = $a
                                  ORDER BY priority_rank DESC, created_at ASC LIMIT 1)
                          SET status = 'processing', lease_token = $t, lease_until = $until, attempts += 1,
                              updated_at = $now, claimed_at = $now
                          WHERE status = 'pending' RETURN AFTER)
                     }} ELSE {{ [] }};
                     IF array::len($job) > 0 {{ UPSERT type::record('turn', $a) SET account = $a, at = $now; }};
                     SELECT * OMIT id FROM $job;
                     COMMIT TRANSACTION;"),
                    // No limit: a count no account reaches (JSON null would bind as NULL, not NONE).
                    json!({ "a": account, "max": max.unwrap_or(u32::MAX), "t": token, "now": now, "until": now + lease_ms }),
                    4,
                )
                .await?;
            Ok(rows.into_iter().next())
        }, touched_job))
        .await
    }

    /// What a claim chooses by, in one query: the accounts with pending jobs (each with the
    /// creation time of its oldest), the jobs processing by account (with the split segments
    /// being encoded when `with_parts`), and each pending account's last turn. Nothing but the
    /// first when no job waits (an idle worker's look).
    pub async fn claim_view(&self, with_parts: bool) -> DbResult<ClaimView> {
        #[derive(Deserialize)]
        struct Oldest {
            account: String,
            oldest: i64,
        }
        #[derive(Deserialize)]
        struct Count {
            account: String,
            n: u64,
        }
        #[derive(Deserialize)]
        struct Turn {
            account: String,
            at: i64,
        }
        #[derive(Deserialize)]
        struct Row {
            pending: Vec<Oldest>,
            running: Vec<Count>,
            parts: Vec<Count>,
            turns: Vec<Turn>,
        }
        let Ok(look) = self.look() else {
            return Ok(ClaimView::default());
        };
        let row: Option<Row> = self
            .first(
                "LET $pending = (SELECT account, math::min(created_at) AS oldest FROM job WHERE status = 'pending' GROUP BY account);
                 LET $some = array::len($pending) > 0;
                 SELECT * FROM [{
                     pending: $pending,
                     running: IF $some { (SELECT account, count() AS n FROM job WHERE status = 'processing' GROUP BY account) } ELSE { [] },
                     parts: IF $some AND $parts { (SELECT account, count() AS n FROM part WHERE status = 'processing' GROUP BY account) } ELSE { [] },
                     turns: IF $some { (SELECT account, at FROM turn WHERE account IN $pending.account) } ELSE { [] }
                 }];",
                json!({ "parts": with_parts }),
            )
            .await?;
        let row = row.ok_or_else(|| DbError::Other("claim view: no answer".into()))?;
        if row.pending.is_empty() {
            self.looked_empty(look);
        }
        let mut running = HashMap::new();
        for c in row.running.into_iter().chain(row.parts) {
            *running.entry(c.account).or_insert(0) += c.n;
        }
        Ok(ClaimView {
            pending: row
                .pending
                .into_iter()
                .map(|p| (p.account, p.oldest))
                .collect(),
            running,
            turns: row.turns.into_iter().map(|t| (t.account, t.at)).collect(),
        })
    }

    /// Accounts with pending jobs, each with the creation time of its oldest.
    pub async fn pending_accounts(&self) -> DbResult<Vec<(String, i64)>> {
        #[derive(Deserialize)]
        struct Row {
            account: String,
            oldest: i64,
        }
        let rows: Vec<Row> = self
            .rows(
                "SELECT account, math::min(created_at) AS oldest FROM job WHERE status = 'pending' GROUP BY account",
                json!({}),
            )
            .await?;
        Ok(rows.into_iter().map(|r| (r.account, r.oldest)).collect())
    }

    /// Jobs processing now, by account (all instances), with the split segments being encoded
    /// for it when `with_parts` (each takes a worker as a job does).
    pub async fn running_by_account(&self, with_parts: bool) -> DbResult<HashMap<String, u64>> {
        #[derive(Deserialize)]
        struct Row {
            account: String,
            n: u64,
        }
        let mut running = HashMap::new();
        let tables: &[&str] = if with_parts {
            &["job", "part"]
        } else {
            &["job"]
        };
        for table in tables {
            let rows: Vec<Row> = self
                .rows(
                    &format!("SELECT account, count() AS n FROM {table} WHERE status = 'processing' GROUP BY account"),
                    json!({}),
                )
                .await?;
            for r in rows {
                *running.entry(r.account).or_insert(0) += r.n;
            }
        }
        Ok(running)
    }

    /// When each account last had a job claimed (absent: never), for taking turns.
    pub async fn last_turns(&self, accounts: &[String]) -> DbResult<HashMap<String, i64>> {
        #[derive(Deserialize)]
        struct Row {
            account: String,
            at: i64,
        }
        let rows: Vec<Row> = self
            .rows(
                "SELECT account, at FROM turn WHERE account IN $a",
                json!({ "a": accounts }),
            )
            .await?;
        Ok(rows.into_iter().map(|r| (r.account, r.at)).collect())
    }

    /// Pending jobs per account, and how many of `account`'s pending jobs run before `job`.
    pub async fn queue_around(&self, job: &Job) -> DbResult<(u64, HashMap<String, u64>)> {
        #[derive(Deserialize)]
        struct Count {
            n: u64,
        }
        #[derive(Deserialize)]
        struct Row {
            account: String,
            n: u64,
        }
        let ahead = self
            .first::<Count>(
                "SELECT count() AS n FROM job WHERE status = 'pending' AND account = $a AND job_id != $id
                   AND (priority_rank > $r OR (priority_rank = $r AND (created_at < $c OR (created_at = $c AND job_id < $id))))
                 GROUP ALL",
                json!({ "a": job.account, "id": job.job_id, "r": job.priority_rank, "c": job.created_at }),
            )
            .await?
            .map_or(0, |c| c.n);
        let pending: Vec<Row> = self
            .rows(
                "SELECT account, count() AS n FROM job WHERE status = 'pending' GROUP BY account",
                json!({}),
            )
            .await?;
        Ok((
            ahead,
            pending.into_iter().map(|r| (r.account, r.n)).collect(),
        ))
    }

    /// Pending jobs of other accounts created before `job` (its place in a FIFO queue).
    pub async fn pending_before(&self, job: &Job) -> DbResult<u64> {
        #[derive(Deserialize)]
        struct Count {
            n: u64,
        }
        Ok(self
            .first::<Count>(
                "SELECT count() AS n FROM job WHERE status = 'pending' AND account != $a AND created_at < $c GROUP ALL",
                json!({ "a": job.account, "c": job.created_at }),
            )
            .await?
            .map_or(0, |c| c.n))
    }

    /// Extends a lease; `false` when the job is no longer this worker's.
    pub async fn renew_lease(
        &self,
        job_id: &str,
        token: &str,
        until: i64,
        progress: Option<&Progress>,
    ) -> DbResult<bool> {
        let vars = json!({ "id": job_id, "t": token, "until": until, "p": progress });
        let row: Option<Value> = self
            .write_jobs(
                |db| async move {
                    db.first(
                        "UPDATE type::record('job', $id) SET lease_until = $until, progress = $p
                         WHERE status = 'processing' AND lease_token = $t RETURN job_id",
                        vars,
                    )
                    .await
                },
                one(job_id),
            )
            .await?;
        Ok(row.is_some())
    }

    /// Gives back jobs whose worker stopped renewing; fails those that keep killing workers.
    /// Only a look that changed a job moves the queue on and forgets kept job views: the timed
    /// look of an idle instance changes nothing, and must not cost the next idle worker's look
    /// a query (`queue.rs`, issue #34).
    pub async fn requeue_expired(&self, now: i64, max_attempts: u32) -> DbResult<()> {
        #[derive(Deserialize)]
        struct Row {
            ids: Vec<String>,
            running: bool,
        }
        let Ok(look) = self.lease_look() else {
            return Ok(());
        };
        let done: DbResult<Option<Row>> = self
            .write_jobs(
                move |db| async move {
                    db.first::<Row>(
                        "LET $failed = (UPDATE job SET status = 'failed', error = 'Processing was interrupted too many times', completed_at = $now,
                            updated_at = $now, lease_token = NONE,
                            webhook = IF type::is_string(webhook_url) { { state: 'pending', event_id: 'evt_' + job_id + '_failed', attempts: 0,
                                next_at: $now, lease_until: 0 } } ELSE { NONE }
                         WHERE status = 'processing' AND lease_until < $now AND attempts >= $max RETURN VALUE job_id);
                         LET $back = (UPDATE job SET status = 'pending', lease_token = NONE, progress = NONE, updated_at = $now
                         WHERE status = 'processing' AND lease_until < $now RETURN VALUE job_id);
                         RETURN [{ ids: array::concat($failed, $back),
                                   running: array::len(SELECT id FROM job WHERE status = 'processing' LIMIT 1) > 0 }];",
                        json!({ "now": now, "max": max_attempts }),
                    )
                    .await
                },
                |done| match done {
                    Ok(Some(row)) if row.ids.is_empty() => Touched::Nothing,
                    _ => Touched::All,
                },
            )
            .await;
        match &done {
            Ok(Some(row)) if row.ids.is_empty() => {
                if !row.running {
                    self.looked_idle(look);
                }
            }
            _ => {
                self.queue_changed();
                self.deliveries_changed();
            }
        }
        done.map(drop)
    }

    /// Ends a job if `token` still holds its lease: state, charge and callback in one
    /// transaction. `false` when the lease was lost (someone else owns the job now).
    pub async fn finish_job(
        &self,
        job_id: &str,
        token: &str,
        now: i64,
        end: JobEnd<'_>,
        quota_hold: &str,
    ) -> DbResult<bool> {
        let (status, completed, failed) = match &end {
            JobEnd::Completed { .. } => (JobStatus::Completed, Some(&end), None),
            JobEnd::Failed { .. } => (JobStatus::Failed, None, Some(&end)),
        };
        let mut vars = json!({
            "id": job_id, "t": token, "now": now, "status": status, "hold": quota_hold,
            "event": format!("evt_{job_id}_{}", status.as_str()),
            "result": None::<Value>, "usage": None::<Value>, "command": None::<Value>, "cache": None::<Value>, "oc": 0, "data": None::<Value>,
            "error": None::<String>, "details": None::<String>, "charge": None::<Value>, "a": None::<Value>, "m": None::<Value>, "charged": false,
        });
        if let Some(JobEnd::Completed {
            result,
            usage,
            command,
            cache,
            data,
            account,
            charge,
            month,
        }) = completed
        {
            vars["data"] = json!(data);
            vars["result"] = json!(result);
            vars["usage"] = json!(usage);
            vars["command"] = json!(command);
            vars["cache"] = json!(cache);
            vars["oc"] = json!(result.len());
            vars["charge"] = json!(charge);
            vars["a"] = json!(account);
            vars["m"] = json!(month);
            vars["charged"] = json!(true);
        }
        if let Some(JobEnd::Failed { error, details }) = failed {
            vars["error"] = json!(error);
            vars["details"] = json!(details);
        }
        // Statements: 0 BEGIN, 1 LET, 2 IF, 3 DELETE (the run's quota hold, which the charge
        // replaces), 4 SELECT (whether this worker finished it), 5 COMMIT.
        let rows: DbResult<Vec<Value>> = self
            .write_jobs(|db| async move { db.rows_at(
                concat!(
                    "BEGIN TRANSACTION;
                 LET $done = (UPDATE type::record('job', $id)
                     SET status = $status, result = $result, usage = $usage, command = $command, cache = $cache, data = $data, output_count = $oc, error = $error,
                         details = $details, completed_at = $now, updated_at = $now, lease_token = NONE, progress = NONE,
                         webhook = IF type::is_string(webhook_url) { { state: 'pending', event_id: $event, attempts: 0, next_at: $now, lease_until: 0 } } ELSE { NONE }
                     WHERE status = 'processing' AND lease_token = $t RETURN job_id, account, webhook_url);
                 IF array::len($done) > 0 AND $charged {
                     ",
                    add_usage!(),
                    ";
                 };
                 IF array::len($done) > 0 { DELETE type::record('quota_hold', $hold); };
                 SELECT * FROM $done;
                 COMMIT TRANSACTION;"
                ),
                vars,
                4,
            )
            .await }, one(job_id))
            .await;
        let rows = rows?;
        // Only a job with a webhook queued a delivery: the deliver loop need not look again
        // for the others.
        if rows.iter().any(|r| r["webhook_url"].is_string()) {
            self.deliveries_changed();
        }
        Ok(!rows.is_empty())
    }

    /// Cancels a pending job; `None` when it was not pending (the caller reports its status).
    pub async fn cancel_job(&self, job_id: &str, now: i64) -> DbResult<bool> {
        // A write to the pending queue (`queue.rs`).
        let vars = json!({ "id": job_id, "now": now });
        self.changing_queue(self.write_jobs(|db| async move {
            let row: Option<Value> = db
                .first(
                    "UPDATE type::record('job', $id) SET status = 'cancelled', updated_at = $now, completed_at = $now
                     WHERE status = 'pending' RETURN job_id",
                    vars,
                )
                .await?;
            Ok(row.is_some())
        }, one(job_id)))
        .await
    }

    /// Claims the next due webhook delivery.
    pub async fn claim_delivery(&self, now: i64, lease_ms: i64) -> DbResult<Option<Job>> {
        for _ in 0..5 {
            let vars = json!({ "now": now, "until": now + lease_ms });
            let claimed = self
                .write_jobs(|db| async move { db.first(
                    &format!(
                        "UPDATE (SELECT id, webhook.next_at AS next_at FROM job WHERE webhook.state = 'pending' AND webhook.next_at <= $now
                                 ORDER BY next_at ASC LIMIT 1)
                         SET webhook.state = 'delivering', webhook.lease_until = $until
                         WHERE webhook.state = 'pending' RETURN AFTER"
                    ),
                    vars,
                )
                .await }, touched_job)
                .await;
            self.deliveries_changed();
            match claimed {
                Err(DbError::Other(e)) if e.contains("conflict") => continue,
                other => return other,
            }
        }
        Ok(None)
    }

    pub async fn record_delivery(&self, job_id: &str, webhook: &Webhook) -> DbResult<()> {
        let vars = json!({ "id": job_id, "w": webhook });
        let recorded = self.write_jobs(|db| async move {
                db.exec(
                    "UPDATE type::record('job', $id) SET webhook = $w WHERE webhook.state = 'delivering'",
                    vars,
                )
                .await
            },
            one(job_id),
        )
        .await;
        self.deliveries_changed();
        recorded
    }

    /// When the next pending delivery falls due (a retry's `next_at`), if any is pending.
    /// Finding none pending and none under way marks the deliveries quiet (`queue.rs`).
    pub async fn next_delivery_at(&self) -> DbResult<Option<i64>> {
        #[derive(Deserialize)]
        struct Row {
            next_at: Option<i64>,
            delivering: bool,
        }
        let look = self.delivery_look();
        let row: Option<Row> = self
            .first(
                "SELECT * FROM [{
                     next_at: (SELECT webhook.next_at AS next_at FROM job WHERE webhook.state = 'pending'
                               ORDER BY next_at ASC LIMIT 1)[0].next_at,
                     delivering: array::len(SELECT id FROM job WHERE webhook.state = 'delivering' LIMIT 1) > 0
                 }]",
                json!({}),
            )
            .await?;
        let row = row.ok_or_else(|| DbError::Other("deliveries: no answer".into()))?;
        if row.next_at.is_none() && !row.delivering {
            self.looked_quiet(look);
        }
        Ok(row.next_at)
    }

    /// Deliveries whose deliverer died go back to pending.
    pub async fn requeue_deliveries(&self, now: i64) -> DbResult<()> {
        let requeued = self.write_jobs(move |db| async move {
                db.exec(
                    "UPDATE job SET webhook.state = 'pending' WHERE webhook.state = 'delivering' AND webhook.lease_until < $now",
                    json!({ "now": now }),
                )
                .await
            },
            |_| Touched::All,
        )
        .await;
        self.deliveries_changed();
        requeued
    }

    /// Jobs by status, and the creation time of the oldest pending one (for metrics).
    pub async fn queue_figures(&self) -> DbResult<(Vec<(JobStatus, u64)>, Option<i64>)> {
        #[derive(Deserialize)]
        struct Count {
            status: JobStatus,
            n: u64,
        }
        #[derive(Deserialize)]
        struct Oldest {
            created_at: i64,
        }
        let counts: Vec<Count> = self
            .rows(
                "SELECT status, count() AS n FROM job GROUP BY status",
                json!({}),
            )
            .await?;
        let oldest: Option<Oldest> = self
            .first("SELECT created_at FROM job WHERE status = 'pending' ORDER BY created_at ASC LIMIT 1", json!({}))
            .await?;
        Ok((
            counts.into_iter().map(|c| (c.status, c.n)).collect(),
            oldest.map(|o| o.created_at),
        ))
    }

    /// A stream that yields whenever a row of `table` (jobs, split parts, keys, accounts) is
    /// created, changes or is deleted, with a job's `status` and its webhook's `state` as they
    /// now are: workers use it to wake up, and only for changes that may give them work
    /// (`jobs/worker.rs`); authentication to empty its cache (`auth.rs`).
    pub async fn changes(
        &self,
        table: &'static str,
    ) -> DbResult<impl futures_util::Stream<Item = Change> + use<>> {
        use futures_util::StreamExt;
        let stream = self.inner.select::<Vec<Value>>(table).live().await?;
        Ok(stream.map(|note| {
            let row = note.ok().map(|n| n.data);
            let text = |v: &Value| v.as_str().map(str::to_string);
            Change {
                known: row.as_ref().is_some_and(Value::is_object),
                id: row.as_ref().and_then(|r| text(&r["job_id"])),
                status: row.as_ref().and_then(|r| text(&r["status"])),
                webhook: row.as_ref().and_then(|r| text(&r["webhook"]["state"])),
            }
        }))
    }
}

/// What a live query says of a changed row (`Db::changes`).
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The row could be read (else nothing is known of it: wake for it).
    pub known: bool,
    /// The row's `job_id` (a job's).
    pub id: Option<String>,
    pub status: Option<String>,
    pub webhook: Option<String>,
}

/// A write to one job, for `Db::write_kept`.
fn one<T>(job_id: &str) -> impl FnOnce(&DbResult<T>) -> Touched + Send + 'static {
    let touched = Touched::One(job_id.to_string());
    move |_| touched
}

/// A write that picked its job: the one it answers, none, or (failed, unknown) any.
fn touched_job(outcome: &DbResult<Option<Job>>) -> Touched {
    match outcome {
        Ok(Some(job)) => Touched::One(job.job_id.clone()),
        Ok(None) => Touched::Nothing,
        Err(_) => Touched::All,
    }
}
