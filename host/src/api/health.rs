//! Operator routes. On the main port: `GET /healthz` (200 `{"ok":true}` once the server takes
//! requests) for anyone; `GET /readyz` with its status code for anyone but its detail (sandbox
//! layer, plugins, database) only with the operator token; `GET /metrics` (Prometheus text,
//! which counts every tenant's jobs) only with the token. On the operator listener
//! (`operator_router`) all three, without a token.

use salvo::prelude::*;
use serde_json::{Value, json};

use super::state;
use crate::app::AppState;
use crate::clock;
use crate::error::AppError;
use crate::metrics;

pub fn router() -> Router {
    Router::new()
        .push(Router::with_path("healthz").get(healthz))
        .push(Router::with_path("readyz").get(readyz))
        .push(Router::with_path("metrics").get(prometheus))
}

pub fn operator_router() -> Router {
    Router::new()
        .hoop(operator_listener)
        .push(router())
        .push(super::operator::router())
}

/// Marks requests that came through the operator listener.
#[handler]
async fn operator_listener(depot: &mut Depot) {
    depot.insert(OPERATOR, true);
}

const OPERATOR: &str = "operator";

/// Whether the request may see operator figures: through the operator listener, or with
/// `Authorization: Bearer <server.operator_token>` (compared in constant time).
pub fn is_operator(state: &AppState, req: &Request, depot: &Depot) -> bool {
    if depot.get::<bool>(OPERATOR).is_ok_and(|v| *v) {
        return true;
    }
    let token = &state.cfg.server.operator_token;
    let Some(given) = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    !token.is_empty()
        && given.len() == token.len()
        && given
            .bytes()
            .zip(token.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

#[handler]
async fn healthz() -> Json<Value> {
    Json(json!({ "ok": true }))
}

#[handler]
async fn readyz(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Json<Value> {
    let state = state(depot);
    let database = state.db.queue_figures().await.is_ok();
    let stopping = state.stopping.is_cancelled();
    let ready = database && !stopping;
    if !ready {
        res.status_code(StatusCode::SERVICE_UNAVAILABLE);
    }
    if !is_operator(&state, req, depot) {
        return Json(json!({ "ok": ready }));
    }
    let plugins: Vec<Value> = state
        .plugins
        .loaded()
        .into_iter()
        .map(|(world, path)| json!({ "world": world, "path": path }))
        .collect();
    Json(json!({
        "ok": ready,
        "database": if database { "ok" } else { "unreachable" },
        "sandbox": format!("{:?}", state.sandbox.layer).to_lowercase(),
        "plugins": plugins,
        "stopping": stopping,
    }))
}

#[handler]
async fn prometheus(req: &mut Request, depot: &mut Depot, res: &mut Response) {
    let state = state(depot);
    if !is_operator(&state, req, depot) {
        res.render(AppError::OperatorOnly);
        return;
    }
    let (counts, oldest) = state.db.queue_figures().await.unwrap_or_default();
    let age = oldest.map(|t| (clock::now_ms() - t).max(0) as f64 / 1000.0);
    res.headers_mut().insert(
        "content-type",
        salvo::http::HeaderValue::from_static("text/plain; version=0.0.4"),
    );
    res.render(metrics::render(&counts, age));
}
