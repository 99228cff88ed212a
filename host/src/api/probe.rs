//! POST /ffprobe/analyze (spec 4.7).

use salvo::prelude::*;
use serde_json::{Value, json};

use super::{account, body_value, from_value, max_body, state};
use crate::error::{AppError, AppResult};
use crate::media::probe::{self, Probed};
use crate::task::ProbeConfig;

pub fn router() -> Router {
    Router::with_path("ffprobe/analyze").post(analyze)
}

/// `{file_path, probe}` out of a request body.
pub fn probe_request(body: &Value) -> AppResult<(String, ProbeConfig)> {
    let file_path = body
        .get("file_path")
        .and_then(Value::as_str)
        .ok_or_else(|| AppError::BadRequest("file_path is required".into()))?;
    let probe = match body.get("probe") {
        Some(p) if p.is_object() => from_value(p.clone())?,
        _ => {
            return Err(AppError::BadRequest(
                "probe object is required in request body".into(),
            ));
        }
    };
    Ok((file_path.to_string(), probe))
}

pub fn probed_body(p: Probed) -> Value {
    let mut body = json!({ "ok": p.error.is_none() });
    if let Some(error) = p.error {
        body["error"] = json!(error);
    }
    body["result"] = p.result;
    body["usage"] = json!(p.usage);
    body
}

#[endpoint(tags("analysis"), request_body = super::schemas::ProbeRequest, responses((status_code = 200, body = super::schemas::ProbeResponse)), status_codes(200, 400, 401, 403, 404, 413, 500, 502, 503), security(("api_key" = [])))]
async fn analyze(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Value>> {
    let state = state(depot);
    let body = body_value(req, max_body(&state)).await?;
    let (file_path, probe) = probe_request(&body)?;
    let probed = probe::analyze(&state, &account(depot), &file_path, probe).await?;
    Ok(Json(probed_body(probed)))
}
