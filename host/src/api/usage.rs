//! GET /usage (beyond the spec): the caller's usage this month against the plan's quota.

use salvo::prelude::*;
use serde_json::{Value, json};

use super::{account, state};
use crate::clock;
use crate::error::AppResult;
use crate::metering;

pub fn router() -> Router {
    Router::with_path("usage").get(usage)
}

#[endpoint(tags("account"), responses((status_code = 200, body = super::schemas::UsageResponse)), status_codes(200, 401, 500), security(("api_key" = [])))]
async fn usage(depot: &mut Depot) -> AppResult<Json<Value>> {
    let state = state(depot);
    let account = account(depot);
    let (plan_name, plan) = state.plan_of(&account)?;
    let month = clock::month_key(time::OffsetDateTime::now_utc());
    let used = state.db.usage(&account.name, &month).await?;
    Ok(Json(json!({
        "ok": true,
        "month": month,
        "plan": { "name": plan_name, "max_file_size_mb": plan.max_file_size_mb, "monthly_quota_gb": plan.monthly_quota_gb },
        "usage": metering::Usage::of_month(&used),
        "remaining_gb": metering::remaining_gb(plan.monthly_quota_bytes(), &used),
    })))
}
