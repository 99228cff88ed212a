//! Directories: short-lived workspaces that expire after a TTL.

use salvo::prelude::*;
use serde::Deserialize;
use serde_json::Value;

use super::schemas::{
    DirectoriesResponse, DirectoryEntry, DirectoryResponse, DirectorySummary, FileEntry,
    FilesResponse,
};
use super::{account, from_value, max_body, optional_body, state};
use crate::app::AppState;
use crate::clock;
use crate::db::Account;
use crate::directories::{self, DEFAULT_TTL_S, MAX_TTL_S};
use crate::error::{AppError, AppResult};

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

/// POST /directory (and the MCP tool `create_directory`).
pub async fn create_of(
    state: &AppState,
    account: &Account,
    body: Value,
) -> AppResult<DirectoryResponse> {
    let body: CreateDirectory = from_value(body)?;
    let ttl = match body.ttl {
        None => DEFAULT_TTL_S,
        Some(t) if t.fract() == 0.0 && (1.0..=MAX_TTL_S as f64).contains(&t) => t as u64,
        Some(_) => {
            return Err(AppError::BadRequest(format!(
                "ttl must be a whole number of seconds from 1 to {MAX_TTL_S}"
            )));
        }
    };
    let dir = directories::create(state, account, ttl).await?;
    Ok(DirectoryResponse {
        ok: true,
        directory: DirectorySummary {
            id: dir.dir_id,
            ttl: dir.ttl,
        },
    })
}

#[endpoint(tags("directories"), request_body = super::schemas::CreateDirectoryRequest, status_codes(200, 400, 401, 413, 429, 500), security(("api_key" = [])))]
async fn create(req: &mut Request, depot: &mut Depot) -> AppResult<Json<DirectoryResponse>> {
    let state = state(depot);
    let body = optional_body(req, max_body(&state)).await?;
    Ok(Json(create_of(&state, &account(depot), body).await?))
}

/// GET /directory (and the MCP tool `list_directories`).
pub async fn list_of(state: &AppState, account: &Account) -> AppResult<DirectoriesResponse> {
    let dirs = state
        .db
        .directories_of(&account.name, clock::now_ms())
        .await?;
    Ok(DirectoriesResponse {
        ok: true,
        directories: dirs
            .into_iter()
            .map(|d| DirectoryEntry {
                id: d.dir_id,
                ttl: d.ttl,
                added_on: clock::ms_rfc3339(d.added_at),
            })
            .collect(),
    })
}

#[endpoint(tags("directories"), status_codes(200, 401, 429, 500), security(("api_key" = [])))]
async fn list(depot: &mut Depot) -> AppResult<Json<DirectoriesResponse>> {
    Ok(Json(list_of(&state(depot), &account(depot)).await?))
}

/// GET /directory/{dir_id} (and the MCP tool `list_files`).
pub async fn files_of(
    state: &AppState,
    account: &Account,
    dir_id: &str,
) -> AppResult<FilesResponse> {
    directories::owned(state, account, dir_id).await?;
    Ok(FilesResponse {
        ok: true,
        files: state
            .db
            .files_in(dir_id)
            .await?
            .iter()
            .map(|f| FileEntry {
                file_name: f.file_name.clone(),
                added_on: clock::ms_rfc3339(f.added_at),
            })
            .collect(),
    })
}

#[endpoint(tags("directories"), parameters(("dir_id" = String, Path, description = "Directory id")), status_codes(200, 401, 403, 404, 429, 500), security(("api_key" = [])))]
async fn list_files(req: &mut Request, depot: &mut Depot) -> AppResult<Json<FilesResponse>> {
    let dir_id = req.param::<String>("dir_id").unwrap_or_default();
    Ok(Json(
        files_of(&state(depot), &account(depot), &dir_id).await?,
    ))
}
