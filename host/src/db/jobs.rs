//! The durable job queue and the webhook outbox, as queries. A job is claimed by exactly one
//! worker (a single-statement update re-checks `status = 'pending'`), carries a lease the worker
//! renews, and is finalised only by the holder of the lease token, in one transaction with the
//! usage charge and the outbox entry of its callback.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Db, DbError, DbResult, UsageTotals};

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Webhook {
    /// `pending` (due at `next_at`), `delivering`, `delivered` or `failed`.
    pub state: String,
    pub event_id: String,
    pub attempts: u32,
    pub last_status: Option<u16>,
    pub last_error: Option<String>,
    pub delivered_at: Option<i64>,
    pub next_at: i64,
    pub lease_until: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    pub job_id: String,
    pub account: String,
    pub status: String,
    /// The task as submitted (or as derived from instructions).
    pub task: Value,
    /// The task as it runs: URL inputs replaced by their imports, output directory fixed.
    pub exec: Value,
    #[serde(default)]
    pub generated_command: Option<Value>,
    pub webhook_url: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub completed_at: Option<i64>,
    pub input_count: u32,
    pub output_count: u32,
    pub result: Option<Value>,
    pub usage: Option<Value>,
    pub error: Option<String>,
    pub details: Option<String>,
    pub lease_token: Option<String>,
    pub lease_until: i64,
    pub attempts: u32,
    pub progress: Option<Value>,
    pub idem: Option<String>,
    pub webhook: Option<Webhook>,
}

/// How a job ends.
pub enum Outcome<'a> {
    Completed {
        result: Value,
        usage: Value,
        output_count: u32,
        charge: &'a UsageTotals,
        month: &'a str,
    },
    Failed {
        error: String,
        details: Option<String>,
    },
}

pub struct ListQuery<'a> {
    pub account: &'a str,
    pub statuses: Option<Vec<String>>,
    pub limit: u32,
    pub offset: u32,
    pub ascending: bool,
}

const JOB_FIELDS: &str = "* OMIT id";

impl Db {
    pub async fn create_job(&self, job: &Job) -> DbResult<()> {
        self.exec(
            "CREATE type::record('job', $j.job_id) CONTENT $j",
            json!({ "j": job }),
        )
        .await
    }

    pub async fn job(&self, job_id: &str) -> DbResult<Option<Job>> {
        self.first(
            &format!("SELECT {JOB_FIELDS} FROM type::record('job', $id)"),
            json!({ "id": job_id }),
        )
        .await
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

    /// Claims the oldest pending job for a worker, or `None` when there is none.
    pub async fn claim_job(&self, token: &str, now: i64, lease_ms: i64) -> DbResult<Option<Job>> {
        for _ in 0..5 {
            let claimed = self
                .first(
                    &format!(
                        "UPDATE (SELECT id, created_at FROM job WHERE status = 'pending' ORDER BY created_at ASC LIMIT 1)
                         SET status = 'processing', lease_token = $t, lease_until = $until, attempts += 1, updated_at = $now
                         WHERE status = 'pending' RETURN AFTER"
                    ),
                    json!({ "t": token, "now": now, "until": now + lease_ms }),
                )
                .await;
            match claimed {
                Err(DbError::Other(e)) if e.contains("conflict") => continue,
                other => return other,
            }
        }
        Ok(None)
    }

    /// Extends a lease; `false` when the job is no longer this worker's.
    pub async fn renew_lease(
        &self,
        job_id: &str,
        token: &str,
        until: i64,
        progress: Option<&Value>,
    ) -> DbResult<bool> {
        let row: Option<Value> = self
            .first(
                "UPDATE type::record('job', $id) SET lease_until = $until, progress = $p
                 WHERE status = 'processing' AND lease_token = $t RETURN job_id",
                json!({ "id": job_id, "t": token, "until": until, "p": progress }),
            )
            .await?;
        Ok(row.is_some())
    }

    /// Gives back jobs whose worker stopped renewing; fails those that keep killing workers.
    pub async fn requeue_expired(&self, now: i64, max_attempts: u32) -> DbResult<()> {
        self.exec(
            "UPDATE job SET status = 'failed', error = 'Processing was interrupted too many times', completed_at = $now,
                updated_at = $now, lease_token = NONE,
                webhook = IF type::is_string(webhook_url) { { state: 'pending', event_id: 'evt_' + job_id + '_failed', attempts: 0,
                    next_at: $now, lease_until: 0 } } ELSE { NONE }
             WHERE status = 'processing' AND lease_until < $now AND attempts >= $max;
             UPDATE job SET status = 'pending', lease_token = NONE, progress = NONE, updated_at = $now
             WHERE status = 'processing' AND lease_until < $now;",
            json!({ "now": now, "max": max_attempts }),
        )
        .await
    }

    /// Ends a job if `token` still holds its lease: state, charge and callback in one
    /// transaction. `false` when the lease was lost (someone else owns the job now).
    pub async fn finish_job(
        &self,
        job_id: &str,
        token: &str,
        now: i64,
        outcome: Outcome<'_>,
    ) -> DbResult<bool> {
        let (status, result, usage, output_count, error, details, charge) = match &outcome {
            Outcome::Completed {
                result,
                usage,
                output_count,
                charge,
                month,
            } => (
                "completed",
                Some(result),
                Some(usage),
                *output_count,
                None,
                None,
                Some((charge, month)),
            ),
            Outcome::Failed { error, details } => {
                ("failed", None, None, 0, Some(error), details.as_ref(), None)
            }
        };
        let vars = json!({
            "id": job_id, "t": token, "now": now, "status": status,
            "result": result, "usage": usage, "oc": output_count, "error": error, "details": details,
            "event": format!("evt_{job_id}_{status}"),
            "charge": charge.map(|(c, _)| c), "month": charge.map(|(_, m)| m), "charged": charge.is_some(),
        });
        // Statements: 0 BEGIN, 1 LET, 2 IF, 3 SELECT (whether this worker finished it), 4 COMMIT.
        let rows: Vec<Value> = self
            .rows_at(
                "BEGIN TRANSACTION;
                 LET $done = (UPDATE type::record('job', $id)
                     SET status = $status, result = $result, usage = $usage, output_count = $oc, error = $error,
                         details = $details, completed_at = $now, updated_at = $now, lease_token = NONE, progress = NONE,
                         webhook = IF type::is_string(webhook_url) { { state: 'pending', event_id: $event, attempts: 0, next_at: $now, lease_until: 0 } } ELSE { NONE }
                     WHERE status = 'processing' AND lease_token = $t RETURN job_id, account);
                 IF array::len($done) > 0 AND $charged {
                     UPSERT type::record('usage', [$done[0].account, $month]) SET account = $done[0].account, month = $month,
                         input_bytes = (input_bytes OR 0) + $charge.input_bytes,
                         output_bytes = (output_bytes OR 0) + $charge.output_bytes,
                         time_sec = (time_sec OR 0.0) + $charge.time_sec,
                         gb_sec = (gb_sec OR 0.0) + $charge.gb_sec;
                 };
                 SELECT * FROM $done;
                 COMMIT TRANSACTION;",
                vars,
                3,
            )
            .await?;
        Ok(!rows.is_empty())
    }

    /// Cancels a pending job; `None` when it was not pending (the caller reports its status).
    pub async fn cancel_job(&self, job_id: &str, now: i64) -> DbResult<Option<Value>> {
        self.first(
            "UPDATE type::record('job', $id) SET status = 'cancelled', updated_at = $now, completed_at = $now
             WHERE status = 'pending' RETURN job_id",
            json!({ "id": job_id, "now": now }),
        )
        .await
    }

    /// Claims the next due webhook delivery.
    pub async fn claim_delivery(&self, now: i64, lease_ms: i64) -> DbResult<Option<Job>> {
        for _ in 0..5 {
            let claimed = self
                .first(
                    &format!(
                        "UPDATE (SELECT id, webhook.next_at AS next_at FROM job WHERE webhook.state = 'pending' AND webhook.next_at <= $now
                                 ORDER BY next_at ASC LIMIT 1)
                         SET webhook.state = 'delivering', webhook.lease_until = $until
                         WHERE webhook.state = 'pending' RETURN AFTER"
                    ),
                    json!({ "now": now, "until": now + lease_ms }),
                )
                .await;
            match claimed {
                Err(DbError::Other(e)) if e.contains("conflict") => continue,
                other => return other,
            }
        }
        Ok(None)
    }

    pub async fn record_delivery(&self, job_id: &str, webhook: &Webhook) -> DbResult<()> {
        self.exec(
            "UPDATE type::record('job', $id) SET webhook = $w WHERE webhook.state = 'delivering'",
            json!({ "id": job_id, "w": webhook }),
        )
        .await
    }

    /// Deliveries whose deliverer died go back to pending.
    pub async fn requeue_deliveries(&self, now: i64) -> DbResult<()> {
        self.exec(
            "UPDATE job SET webhook.state = 'pending' WHERE webhook.state = 'delivering' AND webhook.lease_until < $now",
            json!({ "now": now }),
        )
        .await
    }

    /// Jobs by status, and the creation time of the oldest pending one (for metrics).
    pub async fn queue_figures(&self) -> DbResult<(Vec<(String, u64)>, Option<i64>)> {
        #[derive(Deserialize)]
        struct Count {
            status: String,
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

    /// A stream that yields whenever a job is created or changes: workers use it to wake up.
    pub async fn job_changes(&self) -> DbResult<impl futures_util::Stream<Item = ()> + use<>> {
        use futures_util::StreamExt;
        let stream = self
            .inner
            .select::<Vec<surrealdb::types::Value>>("job")
            .live()
            .await?;
        Ok(stream.map(|_| ()))
    }
}
