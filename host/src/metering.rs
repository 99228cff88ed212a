//! The monthly quota and charging runs to it. The figures themselves are in `usage`.

use crate::app::AppState;
use crate::clock;
use crate::db::Account;
use crate::error::{AppError, AppResult, number};
use crate::usage::{Charge, GB};

/// The month runs are charged to now (`2026-11`).
pub fn this_month() -> String {
    clock::month_key(time::OffsetDateTime::now_utc())
}

/// Refuses work whose inputs would take the account past its monthly quota.
pub async fn check_quota(state: &AppState, account: &Account, input_bytes: u64) -> AppResult<()> {
    let (_, plan) = state.plan_of(account)?;
    let used = state.db.usage(&account.name, &this_month()).await?;
    let quota = plan.monthly_quota_bytes();
    if used.input_bytes >= quota {
        return Err(AppError::QuotaExceeded);
    }
    let remaining = quota - used.input_bytes;
    if input_bytes > remaining {
        return Err(AppError::QuotaInsufficient {
            input_gb: number(input_bytes as f64 / GB),
            remaining_gb: number(remaining as f64 / GB),
        });
    }
    Ok(())
}

/// Charges one successful run to the account's current month.
pub async fn charge(state: &AppState, account: &str, run: &Charge) -> AppResult<()> {
    state.db.add_usage(account, &this_month(), run).await?;
    Ok(())
}
