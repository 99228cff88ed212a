//! Usage figures (spec section 2, "Usage") and the monthly quota. Sizes use binary units
//! (1 GB = 2^30 bytes, 1 MB = 2^20), as the plan limits do.

use serde::Serialize;

use crate::app::AppState;
use crate::clock;
use crate::db::{Account, UsageTotals};
use crate::error::{AppError, AppResult, number};

const GB: f64 = 1_073_741_824.0;

#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Usage {
    pub time_sec: f64,
    pub input_size_gb: f64,
    pub output_size_gb: f64,
    pub gb_sec: f64,
}

impl Usage {
    pub fn new(time_sec: f64, input_bytes: u64, output_bytes: u64) -> Usage {
        let gb_sec = (input_bytes as f64 / GB + output_bytes as f64 / GB) * time_sec;
        Usage::rounded(time_sec, input_bytes, output_bytes, gb_sec)
    }

    /// A month's totals, rounded as each run's figures are (sums of floats drift otherwise).
    pub fn of_month(t: &UsageTotals) -> Usage {
        Usage::rounded(t.time_sec, t.input_bytes, t.output_bytes, t.gb_sec)
    }

    fn rounded(time_sec: f64, input_bytes: u64, output_bytes: u64, gb_sec: f64) -> Usage {
        Usage {
            time_sec: round(time_sec, 3),
            input_size_gb: round(input_bytes as f64 / GB, 9),
            output_size_gb: round(output_bytes as f64 / GB, 9),
            gb_sec: round(gb_sec, 9),
        }
    }
}

/// What is left of the plan's monthly quota, in GB to six digits.
pub fn remaining_gb(quota_bytes: u64, t: &UsageTotals) -> f64 {
    round(quota_bytes.saturating_sub(t.input_bytes) as f64 / GB, 6)
}

fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// Refuses work whose inputs would take the account past its monthly quota.
pub async fn check_quota(state: &AppState, account: &Account, input_bytes: u64) -> AppResult<()> {
    let (_, plan) = state.plan_of(account)?;
    let used = state
        .db
        .usage(
            &account.name,
            &clock::month_key(time::OffsetDateTime::now_utc()),
        )
        .await?;
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
pub async fn charge(
    state: &AppState,
    account: &str,
    input_bytes: u64,
    output_bytes: u64,
    usage: &Usage,
) -> AppResult<()> {
    let run = UsageTotals {
        input_bytes,
        output_bytes,
        time_sec: usage.time_sec,
        gb_sec: usage.gb_sec,
    };
    state
        .db
        .add_usage(
            account,
            &clock::month_key(time::OffsetDateTime::now_utc()),
            &run,
        )
        .await?;
    Ok(())
}
