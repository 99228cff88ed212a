//! The HTTP API: one file per resource, and the helpers they share. Every route answers both at
//! the root and under `/v1`.

pub mod ai;
pub mod blob;
pub mod console;
pub mod credentials;
pub mod directories;
pub mod files;
pub mod health;
pub mod jobs;
pub mod legacy;
pub mod mcp;
pub mod operator;
mod pace;
pub mod probe;
pub mod process;
pub mod recipes;
pub mod schemas;
pub mod serve;
pub mod share;
pub mod tus;
pub mod usage;

use std::sync::Arc;

use salvo::catcher::Catcher;
use salvo::http::ResBody;
use salvo::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::app::AppState;
use crate::db::{Account, KeyScope};
use crate::error::{AppError, AppResult};

pub fn service(state: Arc<AppState>) -> Service {
    salvo::http::request::set_global_secure_max_size(
        state.cfg.server.max_json_body_kb as usize * 1024,
    );
    let mcp = mcp::router(state.clone());
    let router = Router::new()
        .hoop(CatchPanic::new())
        .hoop(affix_state::inject(state))
        .hoop(pace::pace_body)
        .push(health::router())
        .push(operator::router())
        .push(mcp)
        .push(blob::router())
        .push(share::router())
        .push(console::router())
        .push(Router::with_path("v1").push(authenticated()))
        .push(authenticated())
        .push(openapi().into_router("openapi.json"))
        .push(SwaggerUi::new("/openapi.json").into_router("docs"));
    Service::new(router)
        .hoop(access_log)
        .hoop(settle_body)
        .catcher(Catcher::new(json_catcher))
}

/// The operator listener (`server.operator_listen`): health, readiness detail and metrics only,
/// without a token (the operator chooses who can reach the address).
pub fn operator_service(state: Arc<AppState>) -> Service {
    let router = Router::new()
        .hoop(CatchPanic::new())
        .hoop(affix_state::inject(state))
        .push(health::operator_router());
    Service::new(router).catcher(Catcher::new(json_catcher))
}

/// Most of a refused request's unread body that is read and dropped before answering.
const DRAIN_MAX: usize = 8 * 1024 * 1024;
const DRAIN_TIME: std::time::Duration = std::time::Duration::from_secs(5);

/// A request refused before its body was read (a wrong key, a size over the plan) leaves bytes
/// unread; closing a socket with unread bytes makes the kernel reset it, which can destroy the
/// response in flight. So the rest of such a body is read and dropped (bounded in bytes and
/// time); past the bounds the connection is announced to close instead.
#[handler]
async fn settle_body(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    ctrl: &mut FlowCtrl,
) {
    ctrl.call_next(req, depot, res).await;
    let refused = res
        .status_code
        .is_some_and(|s| s.is_client_error() || s.is_server_error());
    if !refused {
        return;
    }
    use futures_util::StreamExt;
    let mut body = req.take_body();
    let drained = tokio::time::timeout(DRAIN_TIME, async {
        let mut seen = 0;
        while let Some(frame) = body.next().await {
            let Ok(Ok(data)) = frame.map(|f| f.into_data()) else {
                return false;
            };
            seen += data.len();
            if seen > DRAIN_MAX {
                return false;
            }
        }
        true
    })
    .await;
    if drained != Ok(true) {
        res.headers_mut().insert(
            salvo::http::header::CONNECTION,
            salvo::http::HeaderValue::from_static("close"),
        );
    }
}

/// One log line and one metric per request, under a request id (the caller's `X-Request-Id`
/// when it is sane, else a new one), which is echoed in the response.
#[handler]
async fn access_log(req: &mut Request, depot: &mut Depot, res: &mut Response, ctrl: &mut FlowCtrl) {
    let started = std::time::Instant::now();
    let id = req
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            (1..=64).contains(&v.len())
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
        .map(str::to_string)
        .unwrap_or_else(|| crate::names::random_id(16));
    if let Ok(value) = salvo::http::HeaderValue::from_str(&id) {
        res.headers_mut().insert("x-request-id", value);
    }
    let (_, stages) = crate::timing::measured(ctrl.call_next(req, depot, res)).await;
    if !stages.is_empty()
        && let Ok(value) =
            salvo::http::HeaderValue::from_str(&crate::timing::header(&stages, started.elapsed()))
    {
        res.headers_mut().insert("server-timing", value);
    }
    let status = res.status_code.unwrap_or(StatusCode::OK).as_u16();
    let route = req.matched_path().to_string();
    let route = if route.is_empty() {
        "unmatched".to_string()
    } else {
        format!("/{}", route.trim_start_matches('/'))
    };
    crate::metrics::request(req.method().as_str(), &route, status);
    tracing::info!(
        request_id = %id,
        method = %req.method(),
        route = %route,
        status,
        ms = started.elapsed().as_millis() as u64,
        "request"
    );
}

/// The version of the HTTP interface this server implements.
pub const API_VERSION: &str = "1.0.0";

/// The OpenAPI document, generated from the endpoints' declarations (one copy of the routes;
/// every path also answers under `/v1`).
pub fn openapi() -> OpenApi {
    use salvo::oapi::SecurityScheme;
    use salvo::oapi::security::{ApiKey, ApiKeyValue};
    salvo::oapi::naming::set_namer(salvo::oapi::naming::FlexNamer::new().short_mode(true));
    // `info.version` is the interface's version; the product's own is in the description.
    let doc = OpenApi::new("Mediaforge", API_VERSION)
        .info(
            salvo::oapi::Info::new("Mediaforge", API_VERSION).description(concat!(
                "Self-hosted media processing API. Server version ",
                env!("CARGO_PKG_VERSION"),
                "."
            )),
        )
        .add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "Authorization",
                "`Basic <API_KEY>` (also `Bearer <API_KEY>`)",
            ))),
        )
        .merge_router(&authenticated());
    tus::document(doc)
}

/// Every route that needs an API key.
fn authenticated() -> Router {
    Router::new()
        .hoop(require_account)
        .get(usage::key_owner)
        .push(directories::router())
        .push(files::router())
        .push(process::router())
        .push(probe::router())
        .push(jobs::router())
        .push(usage::router())
        .push(credentials::router())
        .push(ai::router())
        .push(recipes::router())
        .push(tus::router())
        .push(legacy::router())
}

/// A body's optional `output_dir_id` (plain-language and recipe requests).
pub fn output_dir_id(body: &Value) -> AppResult<Option<String>> {
    match body.get("output_dir_id") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(AppError::BadRequest(
            "output_dir_id must be a string".into(),
        )),
    }
}

pub fn state(depot: &Depot) -> Arc<AppState> {
    depot
        .get_typed::<Arc<AppState>>()
        .expect("state is injected for every route")
        .clone()
}

pub fn account(depot: &Depot) -> Account {
    depot
        .get_typed::<Account>()
        .expect("require_account ran")
        .clone()
}

/// The caller's account from the `Authorization` header, or the 401 (also in front of `/mcp`).
#[handler]
pub async fn require_account(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    ctrl: &mut FlowCtrl,
) {
    let state = state(depot);
    let header = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    match state.auth.authenticate(header).await {
        Ok(Some(caller)) => {
            if caller.scope == KeyScope::Read && !reads_only(req) {
                res.render(AppError::ReadOnlyKey);
                ctrl.skip_rest();
                return;
            }
            if let Err(refused) = rate_limit(&state, &caller.account, res) {
                res.render(refused);
                ctrl.skip_rest();
                return;
            }
            depot.insert_typed(caller.account.clone());
            depot.insert_typed(caller);
            crate::timing::mark("auth");
        }
        Ok(None) => {
            res.render(AppError::InvalidApiKey);
            ctrl.skip_rest();
        }
        Err(e) => {
            res.render(AppError::from(e));
            ctrl.skip_rest();
        }
    }
}

/// What a `read` key may do: GET and HEAD (directories, files, downloads, job views and their
/// events, usage, recipes), and probes, which read a file and change nothing.
fn reads_only(req: &Request) -> bool {
    let method = req.method();
    method == salvo::http::Method::GET
        || method == salvo::http::Method::HEAD
        || (method == salvo::http::Method::POST && req.uri().path().ends_with("/ffprobe/analyze"))
}

/// The key a request was authenticated with (`require_account` ran).
pub fn caller(depot: &Depot) -> crate::auth::Caller {
    depot
        .get_typed::<crate::auth::Caller>()
        .expect("require_account ran")
        .clone()
}

/// Takes one request from the account's bucket when its plan sets `requests_per_minute`, and
/// says where it stands in `RateLimit-*` headers (limit, requests left, seconds until full).
fn rate_limit(state: &AppState, account: &Account, res: &mut Response) -> AppResult<()> {
    let Some(per_minute) = state.plan_of(account)?.1.requests_per_minute else {
        return Ok(());
    };
    let rate = state.tenants.take_request(&account.name, per_minute);
    let headers = res.headers_mut();
    for (name, value) in [
        ("ratelimit-limit", rate.limit as u64),
        ("ratelimit-remaining", rate.remaining as u64),
        ("ratelimit-reset", rate.reset_s),
    ] {
        headers.insert(name, salvo::http::HeaderValue::from(value));
    }
    match rate.retry_after_s {
        Some(retry_after_s) => Err(AppError::RateLimited { retry_after_s }),
        None => Ok(()),
    }
}

/// Turns salvo's own errors (unknown route, wrong method, panics) into `{ok:false, error}`.
#[handler]
async fn json_catcher(res: &mut Response) {
    let status = res.status_code.unwrap_or(StatusCode::NOT_FOUND);
    let message = match status {
        StatusCode::NOT_FOUND => "Not found".to_string(),
        StatusCode::METHOD_NOT_ALLOWED => "Method not allowed".to_string(),
        StatusCode::PAYLOAD_TOO_LARGE => "Request body is too large".to_string(),
        StatusCode::INTERNAL_SERVER_ERROR => "Internal server error".to_string(),
        _ => match &res.body {
            ResBody::Error(e) => e.brief.clone(),
            _ => status.canonical_reason().unwrap_or("Error").to_string(),
        },
    };
    res.headers_mut().remove("content-type");
    res.render(Json(serde_json::json!({ "ok": false, "error": message })));
}

/// The JSON body as a value: `Request body is required` when empty, `Invalid JSON in request
/// body` when it does not parse, 413 past the configured size.
pub async fn body_value(req: &mut Request, max: usize) -> AppResult<Value> {
    let bytes = match req.payload_with_max_size(max).await {
        Ok(bytes) => bytes,
        Err(salvo::http::ParseError::PayloadTooLarge) => {
            return Err(AppError::BodyTooLarge((max / 1024) as u64));
        }
        Err(_) => return Err(AppError::InvalidJson),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(AppError::BodyRequired);
    }
    let value: Value = serde_json::from_slice(bytes).map_err(|_| AppError::InvalidJson)?;
    if !value.is_object() {
        return Err(AppError::BadRequest(
            "Request body must be a JSON object".into(),
        ));
    }
    Ok(value)
}

/// Like `body_value`, but an empty body is an empty object (for requests whose fields are all
/// optional).
pub async fn optional_body(req: &mut Request, max: usize) -> AppResult<Value> {
    match body_value(req, max).await {
        Err(AppError::BodyRequired) => Ok(Value::Object(Default::default())),
        other => other,
    }
}

/// Deserialises a JSON value into `T`, naming what is wrong in a 400.
pub fn from_value<T: DeserializeOwned>(value: Value) -> AppResult<T> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.inner().to_string();
        // serde's messages are good but carry Rust type names at times; keep them short.
        let inner = inner.split(" at line").next().unwrap_or(&inner).to_string();
        if path == "." {
            AppError::BadRequest(format!("Invalid request: {inner}"))
        } else {
            AppError::BadRequest(format!("Invalid field '{path}': {inner}"))
        }
    })
}

pub fn max_body(state: &AppState) -> usize {
    state.cfg.server.max_json_body_kb as usize * 1024
}
