//! GET /usage (beyond the spec): the caller's usage this month against the plan's quota. And
//! GET /: whose key this is (clients check a key with it: 200 for a valid one, 401 otherwise).

use salvo::prelude::*;

use super::schemas::{KeyOwner, PlanView, UsageResponse};
use super::{account, state};
use crate::error::AppResult;
use crate::metering;
use crate::usage::{Usage, remaining_gb};

pub fn router() -> Router {
    Router::with_path("usage").get(usage)
}

/// The handler of GET / (the authenticated router's own goal, `api/mod.rs`).
#[endpoint(tags("account"), status_codes(200, 401, 429), security(("api_key" = [])))]
pub async fn key_owner(depot: &mut Depot) -> AppResult<Json<KeyOwner>> {
    let state = state(depot);
    let account = account(depot);
    let (plan, _) = state.plan_of(&account)?;
    Ok(Json(KeyOwner {
        ok: true,
        account: account.name,
        plan,
    }))
}

#[endpoint(tags("account"), status_codes(200, 401, 429, 500), security(("api_key" = [])))]
async fn usage(depot: &mut Depot) -> AppResult<Json<UsageResponse>> {
    let state = state(depot);
    let account = account(depot);
    let (plan_name, plan) = state.plan_of(&account)?;
    let month = metering::this_month();
    let used = state.db.usage(&account.name, &month).await?;
    Ok(Json(UsageResponse {
        ok: true,
        month,
        plan: PlanView {
            name: plan_name,
            max_file_size_mb: plan.max_file_size_mb,
            monthly_quota_gb: plan.monthly_quota_gb,
        },
        usage: Usage::of_month(&used),
        remaining_gb: remaining_gb(plan.monthly_quota_bytes(), &used),
    }))
}
