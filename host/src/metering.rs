//! The monthly quota and charging runs to it. The figures themselves are in `usage`.

use crate::app::AppState;
use crate::clock;
use crate::db::{Account, Db, QuotaHold};
use crate::error::{AppError, AppResult, number};
use crate::usage::{Charge, GB};

/// The month runs are charged to now (`2026-11`).
pub fn this_month() -> String {
    clock::month_key(time::OffsetDateTime::now_utc())
}

/// Refuses work whose inputs would take the account past its monthly quota. A run holds its
/// bytes with [`hold`] instead; this is the early answer for work that is not run yet.
pub async fn check_quota(state: &AppState, account: &Account, input_bytes: u64) -> AppResult<()> {
    let (_, plan) = state.plan_of(account)?;
    let taken = state
        .db
        .quota_taken(&account.name, &this_month(), clock::now_ms())
        .await?;
    refusal(plan.monthly_quota_bytes(), taken, input_bytes).map_or(Ok(()), Err)
}

/// Why `input_bytes` more do not fit when `taken` of `quota` are used or held.
fn refusal(quota: u64, taken: u64, input_bytes: u64) -> Option<AppError> {
    if taken >= quota {
        return Some(AppError::QuotaExceeded);
    }
    let remaining = quota - taken;
    (input_bytes > remaining).then(|| AppError::QuotaInsufficient {
        input_gb: number(input_bytes as f64 / GB),
        remaining_gb: number(remaining as f64 / GB),
    })
}

/// A run's input bytes, set aside in its month from the quota check to the charge, so runs
/// admitted at once cannot together pass the quota (checked, then charged after the run, they
/// could). Dropped without [`Hold::settle`] or [`Hold::ended`], it is released; after a crash it
/// lapses by itself.
pub struct Hold {
    db: Db,
    hold: Option<QuotaHold>,
}

/// Holds `input_bytes` of the account's month for a run (`id` names the hold, unique per run),
/// or refuses as [`check_quota`] does, counting the other runs' holds as used.
pub async fn hold(
    state: &AppState,
    account: &Account,
    input_bytes: u64,
    id: String,
) -> AppResult<Hold> {
    let (_, plan) = state.plan_of(account)?;
    let quota = plan.monthly_quota_bytes();
    let now = clock::now_ms();
    let limits = &state.cfg.limits;
    // Longer than any run can take: a hold that lapses early only loosens the bound.
    let lapse_s = limits.process_timeout_s + limits.import_timeout_s + 300;
    let hold = QuotaHold {
        id,
        account: account.name.clone(),
        month: this_month(),
        bytes: input_bytes,
        until: now + lapse_s as i64 * 1000,
    };
    let (taken, held) = state.db.hold_quota(&hold, quota, now).await?;
    if !held {
        return Err(refusal(quota, taken, input_bytes).unwrap_or(AppError::QuotaExceeded));
    }
    Ok(Hold {
        db: state.db.clone(),
        hold: Some(hold),
    })
}

/// The hold of a job's run: one per claim, so a run that lost its lease cannot release the hold
/// of the worker that took the job over.
pub fn job_hold_id(job_id: &str, lease_token: &str) -> String {
    format!("job-{job_id}-{lease_token}")
}

impl Hold {
    /// Charges the run and ends the hold, atomically.
    pub async fn settle(mut self, run: &Charge) -> AppResult<()> {
        if let Some(hold) = self.hold.take() {
            self.db.end_quota_hold(&hold, Some(run)).await?;
        }
        Ok(())
    }

    /// Releases the hold of a run that failed (not charged).
    pub async fn release(mut self) {
        if let Some(hold) = self.hold.take() {
            if let Err(e) = self.db.end_quota_hold(&hold, None).await {
                tracing::warn!("quota hold {} not released (it lapses): {e}", hold.id);
            }
        }
    }

    /// The hold was ended elsewhere (a job's end, which charges and ends it in one transaction).
    pub fn ended(mut self) {
        self.hold = None;
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        if let Some(hold) = self.hold.take() {
            let db = self.db.clone();
            tokio::spawn(async move {
                if let Err(e) = db.end_quota_hold(&hold, None).await {
                    tracing::warn!("quota hold {} not released (it lapses): {e}", hold.id);
                }
            });
        }
    }
}

/// Charges one probe to the account's current month (a probe reads a prefix: it holds nothing).
pub async fn charge(state: &AppState, account: &str, run: &Charge) -> AppResult<()> {
    state.db.add_usage(account, &this_month(), run).await?;
    Ok(())
}
