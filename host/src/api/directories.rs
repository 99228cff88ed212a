//! Directories: short-lived workspaces that expire after a TTL.

use salvo::prelude::*;
use serde::Deserialize;

use super::schemas::{
    DirectoriesResponse, DirectoryEntry, DirectoryResponse, DirectorySummary, FileEntry,
    FilesResponse,
};
use super::{account, from_value, max_body, optional_body, state};
use crate::clock;
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

#[endpoint(tags("directories"), request_body = super::schemas::CreateDirectoryRequest, status_codes(200, 400, 401, 413, 500), security(("api_key" = [])))]
async fn create(req: &mut Request, depot: &mut Depot) -> AppResult<Json<DirectoryResponse>> {
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
    let dir = directories::create(&state, &account(depot), ttl).await?;
    Ok(Json(DirectoryResponse {
        ok: true,
        directory: DirectorySummary {
            id: dir.dir_id,
            ttl: dir.ttl,
        },
    }))
}

#[endpoint(tags("directories"), status_codes(200, 401, 500), security(("api_key" = [])))]
async fn list(depot: &mut Depot) -> AppResult<Json<DirectoriesResponse>> {
    let state = state(depot);
    let dirs = state
        .db
        .directories_of(&account(depot).name, clock::now_ms())
        .await?;
    Ok(Json(DirectoriesResponse {
        ok: true,
        directories: dirs
            .into_iter()
            .map(|d| DirectoryEntry {
                id: d.dir_id,
                ttl: d.ttl,
                added_on: clock::ms_rfc3339(d.added_at),
            })
            .collect(),
    }))
}

#[endpoint(tags("directories"), parameters(("dir_id" = String, Path, description = "Directory id")), status_codes(200, 401, 403, 404, 500), security(("api_key" = [])))]
async fn list_files(req: &mut Request, depot: &mut Depot) -> AppResult<Json<FilesResponse>> {
    let state = state(depot);
    let dir_id = req.param::<String>("dir_id").unwrap_or_default();
    directories::owned(&state, &account(depot), &dir_id).await?;
    Ok(Json(FilesResponse {
        ok: true,
        files: state
            .db
            .files_in(&dir_id)
            .await?
            .iter()
            .map(|f| FileEntry {
                file_name: f.file_name.clone(),
                added_on: clock::ms_rfc3339(f.added_at),
            })
            .collect(),
    }))
}
