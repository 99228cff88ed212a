//! `GET /healthz`: 200 `{"ok":true}` without auth once the server takes requests.

use salvo::prelude::*;

pub fn router() -> Router {
    Router::with_path("healthz").get(healthz)
}

#[handler]
async fn healthz() -> Json<serde_json::Value> {
    Json(serde_json::json!({ "ok": true }))
}
