//! Directories (spec 4.15–4.17): short-lived workspaces that expire after a TTL.

use salvo::prelude::*;
use serde::Deserialize;
use serde_json::json;

use super::{account, from_value, max_body, optional_body, state};
use crate::app::AppState;
use crate::clock;
use crate::db::{Account, Directory};
use crate::error::{AppError, AppResult};
use crate::names;

pub const DEFAULT_TTL_S: u64 = 86_400;
pub const MAX_TTL_S: u64 = 604_800;

pub fn router() -> Router {
    Router::with_path("directory")
        .get(list)
        .post(create)
        .push(Router::with_path("{dir_id}").get(list_files))
}

#[derive(Deserialize)]
struct CreateDirectory {
    #[serde(default)]
    ttl: Option<f64>,
}

#[endpoint(tags("directories"), request_body = super::schemas::CreateDirectoryRequest, responses((status_code = 200, body = super::schemas::DirectoryResponse)), status_codes(200, 400, 401, 413, 500), security(("api_key" = [])))]
async fn create(req: &mut Request, depot: &mut Depot) -> AppResult<Json<serde_json::Value>> {
    let state = state(depot);
    let body: CreateDirectory = from_value(optional_body(req, max_body(&state)).await?)?;
    let ttl = match body.ttl {
        None => DEFAULT_TTL_S,
        Some(t) if t.fract() == 0.0 && (1.0..=MAX_TTL_S as f64).contains(&t) => t as u64,
        Some(_) => {
            return Err(AppError::BadRequest(format!(
                "ttl must be a whole number of seconds from 1 to {MAX_TTL_S}"
            )));
        }
    };
    let dir = new_directory(&state, &account(depot), ttl).await?;
    Ok(Json(
        json!({ "ok": true, "directory": { "id": dir.dir_id, "ttl": dir.ttl } }),
    ))
}

/// Creates a directory for `account` (explicitly, or implicitly for uploads and URL tasks).
pub async fn new_directory(state: &AppState, account: &Account, ttl: u64) -> AppResult<Directory> {
    let now = clock::now_ms();
    let dir = Directory {
        dir_id: names::random_id(20),
        account: account.name.clone(),
        ttl,
        added_at: now,
        expires_at: now + (ttl as i64) * 1000,
    };
    state.db.create_directory(&dir).await?;
    Ok(dir)
}

#[endpoint(tags("directories"), responses((status_code = 200, body = super::schemas::DirectoriesResponse)), status_codes(200, 401, 500), security(("api_key" = [])))]
async fn list(depot: &mut Depot) -> AppResult<Json<serde_json::Value>> {
    let state = state(depot);
    let dirs = state
        .db
        .directories_of(&account(depot).name, clock::now_ms())
        .await?;
    let dirs: Vec<_> = dirs
        .into_iter()
        .map(|d| json!({ "id": d.dir_id, "ttl": d.ttl, "added_on": clock::ms_rfc3339(d.added_at) }))
        .collect();
    Ok(Json(json!({ "ok": true, "directories": dirs })))
}

#[endpoint(tags("directories"), responses((status_code = 200, body = super::schemas::FilesResponse)), parameters(("dir_id" = String, Path, description = "Directory id")), status_codes(200, 401, 403, 404, 500), security(("api_key" = [])))]
async fn list_files(req: &mut Request, depot: &mut Depot) -> AppResult<Json<serde_json::Value>> {
    let state = state(depot);
    let dir_id = req.param::<String>("dir_id").unwrap_or_default();
    owned_directory(&state, &account(depot), &dir_id).await?;
    let files: Vec<_> = state
        .db
        .files_in(&dir_id)
        .await?
        .iter()
        .map(|f| json!({ "file_name": f.file_name, "added_on": clock::ms_rfc3339(f.added_at) }))
        .collect();
    Ok(Json(json!({ "ok": true, "files": files })))
}

/// The caller's live directory: 404 when missing or expired, 403 when another account's.
pub async fn owned_directory(
    state: &AppState,
    account: &Account,
    dir_id: &str,
) -> AppResult<Directory> {
    if !names::valid_dir_id(dir_id) {
        return Err(AppError::DirectoryNotFound);
    }
    let dir = state
        .db
        .directory(dir_id, clock::now_ms())
        .await?
        .ok_or(AppError::DirectoryNotFound)?;
    if dir.account != account.name {
        return Err(AppError::DirectoryForbidden);
    }
    Ok(dir)
}
