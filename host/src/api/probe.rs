//! POST /ffprobe/analyze: a stored file or a URL, probed with the fields asked for.

use salvo::prelude::*;
use serde_json::Value;

use super::schemas::ProbeResponse;
use super::{account, body_value, from_value, max_body, state};
use crate::error::{AppError, AppResult};
use crate::pipeline::probe::{self, Probed};
use crate::task::ProbeConfig;

pub fn router() -> Router {
    Router::with_path("ffprobe/analyze").post(analyze)
}

/// `{file_path, probe}` out of a request body.
pub fn probe_request(body: &Value) -> AppResult<(String, ProbeConfig)> {
    let file_path = body
        .get("file_path")
        .and_then(Value::as_str)
        .ok_or(AppError::Required("file_path"))?;
    let probe = match body.get("probe") {
        Some(p) if p.is_object() => from_value(p.clone())?,
        _ => return Err(AppError::ProbeRequired),
    };
    Ok((file_path.to_string(), probe))
}

pub fn probed_body(p: Probed) -> ProbeResponse {
    ProbeResponse {
        ok: p.error.is_none(),
        error: p.error,
        result: p.result,
        usage: p.usage,
        generated_probe: None,
    }
}

#[endpoint(tags("analysis"), request_body = super::schemas::ProbeRequest, status_codes(200, 400, 401, 403, 404, 413, 429, 500, 502, 503), security(("api_key" = [])))]
async fn analyze(req: &mut Request, depot: &mut Depot) -> AppResult<Json<ProbeResponse>> {
    let state = state(depot);
    let body = body_value(req, max_body(&state)).await?;
    let (file_path, probe) = probe_request(&body)?;
    let probed = probe::analyze(&state, &account(depot), &file_path, probe).await?;
    Ok(Json(probed_body(probed)))
}
