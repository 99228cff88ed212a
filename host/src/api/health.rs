//! Unauthenticated operator routes: `GET /healthz` (200 `{"ok":true}` once the server takes
//! requests), `GET /readyz` (which sandbox layer and plugins are active, and whether the
//! database answers) and `GET /metrics` (Prometheus text format).

use salvo::prelude::*;
use serde_json::{Value, json};

use super::state;
use crate::clock;
use crate::metrics;

pub fn router() -> Router {
    Router::new()
        .push(Router::with_path("healthz").get(healthz))
        .push(Router::with_path("readyz").get(readyz))
        .push(Router::with_path("metrics").get(prometheus))
}

#[handler]
async fn healthz() -> Json<Value> {
    Json(json!({ "ok": true }))
}

#[handler]
async fn readyz(depot: &mut Depot, res: &mut Response) -> Json<Value> {
    let state = state(depot);
    let database = state.db.queue_figures().await.is_ok();
    let stopping = state.stopping.is_cancelled();
    if !database || stopping {
        res.status_code(StatusCode::SERVICE_UNAVAILABLE);
    }
    let plugins: Vec<Value> = state
        .plugins
        .loaded()
        .into_iter()
        .map(|(world, path)| json!({ "world": world, "path": path }))
        .collect();
    Json(json!({
        "ok": database && !stopping,
        "database": if database { "ok" } else { "unreachable" },
        "sandbox": format!("{:?}", state.sandbox.layer).to_lowercase(),
        "plugins": plugins,
        "stopping": stopping,
    }))
}

#[handler]
async fn prometheus(depot: &mut Depot, res: &mut Response) {
    let state = state(depot);
    let (counts, oldest) = state.db.queue_figures().await.unwrap_or_default();
    let age = oldest.map(|t| (clock::now_ms() - t).max(0) as f64 / 1000.0);
    res.headers_mut().insert(
        "content-type",
        salvo::http::HeaderValue::from_static("text/plain; version=0.0.4"),
    );
    res.render(metrics::render(&counts, age));
}
