//! GET /usage (beyond the spec): the caller's usage this month against the plan's quota.

use salvo::prelude::*;

use super::schemas::{PlanView, UsageResponse};
use super::{account, state};
use crate::error::AppResult;
use crate::metering;
use crate::usage::{Usage, remaining_gb};

pub fn router() -> Router {
    Router::with_path("usage").get(usage)
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
