//! The operator API (`docs` in the README, "Accounts and keys"): accounts, their keys and the
//! audit log, under `/operator/...`, on the operator listener (no token: the operator chooses who
//! reaches that address) or on the main port with `Authorization: Bearer <operator_token>`.
//! `mediaforge accounts|keys|audit` are clients of these routes.

use salvo::prelude::*;
use serde::Serialize;
use serde_json::Value;

use super::health::is_operator;
use super::{body_value, state};
use crate::accounts::{self, Actor};
use crate::db::{AccountRow, AuditEntry, KeyRow, KeyScope};
use crate::error::{AppError, AppResult};

pub fn router() -> Router {
    Router::with_path("operator")
        .hoop(require_operator)
        .push(
            Router::with_path("accounts")
                .get(list_accounts)
                .post(create_account)
                .push(
                    Router::with_path("{name}")
                        .patch(update_account)
                        .push(Router::with_path("keys").get(list_keys).post(create_key)),
                ),
        )
        .push(Router::with_path("keys/{id}").delete(revoke_key))
        .push(Router::with_path("audit").get(audit_log))
        .push(Router::with_path("backup").post(take_backup))
}

#[handler]
async fn require_operator(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    ctrl: &mut FlowCtrl,
) {
    if !is_operator(&state(depot), req, depot) {
        res.render(AppError::OperatorOnly);
        ctrl.skip_rest();
    }
}

fn actor(req: &Request) -> Actor {
    Actor::operator(req.remote_addr().to_string())
}

/// A string field of the body, required.
fn text<'a>(body: &'a Value, field: &'static str) -> AppResult<&'a str> {
    match body.get(field) {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => Err(AppError::Required(field)),
        Some(_) => Err(AppError::BadRequest(format!("{field} must be a string"))),
    }
}

const MAX_BODY: usize = 16 * 1024;

#[derive(Serialize)]
struct Accounts {
    ok: bool,
    accounts: Vec<AccountRow>,
}

#[derive(Serialize)]
struct OneAccount {
    ok: bool,
    account: AccountRow,
}

#[derive(Serialize)]
struct Keys {
    ok: bool,
    keys: Vec<KeyRow>,
}

/// A new key: `key` is shown this once.
#[derive(Serialize)]
struct NewKey {
    ok: bool,
    key: String,
    #[serde(flatten)]
    row: KeyRow,
}

#[derive(Serialize)]
struct Revoked {
    ok: bool,
    revoked: KeyRow,
}

#[derive(Serialize)]
struct Audit {
    ok: bool,
    entries: Vec<AuditEntry>,
}

#[handler]
async fn list_accounts(depot: &mut Depot) -> AppResult<Json<Accounts>> {
    Ok(Json(Accounts {
        ok: true,
        accounts: accounts::list(&state(depot)).await?,
    }))
}

#[handler]
async fn create_account(req: &mut Request, depot: &mut Depot) -> AppResult<Json<OneAccount>> {
    let body = body_value(req, MAX_BODY).await?;
    let account = accounts::create(
        &state(depot),
        &actor(req),
        text(&body, "name")?,
        text(&body, "plan")?,
    )
    .await?;
    Ok(Json(OneAccount { ok: true, account }))
}

#[handler]
async fn update_account(req: &mut Request, depot: &mut Depot) -> AppResult<Json<OneAccount>> {
    let name = req.param::<String>("name").unwrap_or_default();
    let body = body_value(req, MAX_BODY).await?;
    let account =
        accounts::set_plan(&state(depot), &actor(req), &name, text(&body, "plan")?).await?;
    Ok(Json(OneAccount { ok: true, account }))
}

#[handler]
async fn list_keys(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Keys>> {
    let name = req.param::<String>("name").unwrap_or_default();
    Ok(Json(Keys {
        ok: true,
        keys: accounts::keys(&state(depot), &name).await?,
    }))
}

#[handler]
async fn create_key(req: &mut Request, depot: &mut Depot) -> AppResult<Json<NewKey>> {
    let name = req.param::<String>("name").unwrap_or_default();
    // Every field is optional, so is the body.
    let body = match body_value(req, MAX_BODY).await {
        Err(AppError::BodyRequired) => Value::Object(Default::default()),
        other => other?,
    };
    let scope = match body.get("scope") {
        None | Some(Value::Null) => KeyScope::Full,
        Some(Value::String(s)) if s == "full" => KeyScope::Full,
        Some(Value::String(s)) if s == "read" => KeyScope::Read,
        Some(_) => {
            return Err(AppError::BadRequest(
                "scope must be \"read\" or \"full\"".into(),
            ));
        }
    };
    let expires_in_s = match body.get("expires_in_s") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().filter(|s| *s > 0).ok_or_else(|| {
            AppError::BadRequest("expires_in_s must be a positive number of seconds".into())
        })?),
    };
    let (key, row) =
        accounts::create_key(&state(depot), &actor(req), &name, scope, expires_in_s).await?;
    Ok(Json(NewKey { ok: true, key, row }))
}

#[handler]
async fn revoke_key(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Revoked>> {
    let id = req.param::<String>("id").unwrap_or_default();
    let revoked = accounts::revoke_key(&state(depot), &actor(req), &id).await?;
    Ok(Json(Revoked { ok: true, revoked }))
}

#[derive(Serialize)]
struct BackedUp {
    ok: bool,
    backup: crate::backup::Written,
}

/// A consistent copy of the database and the objects, under `<data_dir>/backups/<name>`.
#[handler]
async fn take_backup(req: &mut Request, depot: &mut Depot) -> AppResult<Json<BackedUp>> {
    let body = match body_value(req, MAX_BODY).await {
        Err(AppError::BodyRequired) => Value::Object(Default::default()),
        other => other?,
    };
    let name = match body.get("name") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(_) => return Err(AppError::BadRequest("name must be a string".into())),
    };
    let state = state(depot);
    let backup = crate::backup::backup(&state, name).await?;
    accounts::audit(&state, &actor(req), "backup", &backup.path).await;
    Ok(Json(BackedUp { ok: true, backup }))
}

#[handler]
async fn audit_log(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Audit>> {
    let account = req.query::<String>("account");
    let limit = match req.query::<String>("limit") {
        None => 100,
        Some(l) => l
            .parse::<u32>()
            .map_err(|_| AppError::BadRequest("limit must be a number from 1 to 1000".into()))?,
    };
    Ok(Json(Audit {
        ok: true,
        entries: accounts::audit_log(&state(depot), account.as_deref(), limit).await?,
    }))
}
