//! The MCP server at `/mcp`, for AI agents: the Streamable HTTP transport of the official SDK
//! (`rmcp`), stateless (every POST is served on its own, so any instance may answer any
//! request) and answering with JSON unless a call sends progress first (then with an event
//! stream). It is another adapter of the HTTP layer over the same domain functions: the same
//! `Authorization` header and account (a wrong key is the API's 401 before any MCP exchange),
//! the same policy, sandbox, limits and metering.
//!
//! `bridge` is the other end for desktop clients that only speak stdio:
//! `mediaforge mcp --url URL --key-env VAR`.

pub mod bridge;
mod schema;
mod tools;

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use salvo::http::ReqBody;
use salvo::prelude::*;

use crate::app::AppState;

pub use tools::catalogue;

/// `/mcp`: authenticated like the API, then handed to the SDK's service.
pub fn router(state: Arc<AppState>) -> Router {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        // Host checks guard unauthenticated local servers against DNS rebinding; this one
        // needs an API key a rebinding page cannot have, and is reached under any host name.
        .disable_allowed_hosts()
        .with_max_request_body_bytes(crate::api::max_body(&state));
    let tools = tools::Tools { state };
    let service = StreamableHttpService::new(
        move || Ok(tools.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    Router::with_path("mcp")
        .hoop(crate::api::require_account)
        .hoop(account_to_request)
        .goal(TowerServiceCompat::<ReqBody, _, _, _>::compat(service))
}

/// The SDK hands tools the HTTP request's parts: the account travels in their extensions, with
/// who is calling for the audit log.
#[handler]
async fn account_to_request(req: &mut Request, depot: &mut Depot) {
    let account = crate::api::account(depot);
    let actor =
        crate::accounts::Actor::caller(&crate::api::caller(depot), req.remote_addr().to_string());
    req.extensions_mut().insert(account);
    req.extensions_mut().insert(actor);
}
