//! The tenant's bucket credentials (`credentials.rs`): `POST /credentials`, `GET /credentials`,
//! `DELETE /credentials/{name}`. No answer ever carries a secret.

use salvo::prelude::*;
use serde::Serialize;

use super::{account, body_value, caller, from_value, state};
use crate::accounts::Actor;
use crate::credentials::{self, NewCredential};
use crate::db::CredentialRow;
use crate::error::AppResult;

pub fn router() -> Router {
    Router::with_path("credentials")
        .get(list)
        .post(create)
        .push(Router::with_path("{name}").delete(remove))
}

/// A credential's request is small; more is not a credential.
const MAX_BODY: usize = 8 * 1024;

#[derive(Serialize, ToSchema)]
struct CredentialResponse {
    ok: bool,
    credential: CredentialRow,
}

#[derive(Serialize, ToSchema)]
struct CredentialsResponse {
    ok: bool,
    credentials: Vec<CredentialRow>,
}

#[derive(Serialize, ToSchema)]
struct CredentialDeleted {
    ok: bool,
    deleted: String,
}

fn actor(req: &Request, depot: &Depot) -> Actor {
    Actor::caller(&caller(depot), req.remote_addr().to_string())
}

/// Adds a bucket of the tenant's: its secret is sealed at once and never answered.
#[endpoint(tags("credentials"), request_body = NewCredential, status_codes(200, 400, 401, 403, 409, 413, 429, 500, 503), security(("api_key" = [])))]
async fn create(req: &mut Request, depot: &mut Depot) -> AppResult<Json<CredentialResponse>> {
    let state = state(depot);
    let new: NewCredential = from_value(body_value(req, MAX_BODY).await?)?;
    let credential = credentials::create(&state, &account(depot), &actor(req, depot), new).await?;
    Ok(Json(CredentialResponse {
        ok: true,
        credential,
    }))
}

/// The caller's credentials, without secrets.
#[endpoint(tags("credentials"), status_codes(200, 401, 429, 500), security(("api_key" = [])))]
async fn list(depot: &mut Depot) -> AppResult<Json<CredentialsResponse>> {
    let state = state(depot);
    Ok(Json(CredentialsResponse {
        ok: true,
        credentials: credentials::list(&state, &account(depot)).await?,
    }))
}

#[endpoint(tags("credentials"), parameters(("name" = String, Path, description = "Credential name")), status_codes(200, 401, 403, 404, 429, 500), security(("api_key" = [])))]
async fn remove(req: &mut Request, depot: &mut Depot) -> AppResult<Json<CredentialDeleted>> {
    let state = state(depot);
    let name = req.param::<String>("name").unwrap_or_default();
    credentials::delete(&state, &account(depot), &actor(req, depot), &name).await?;
    Ok(Json(CredentialDeleted {
        ok: true,
        deleted: name,
    }))
}
