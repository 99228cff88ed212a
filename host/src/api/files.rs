//! Files: records in a directory whose bytes are uploaded and downloaded
//! through presigned URLs.

use salvo::prelude::*;
use serde::Deserialize;
use serde_json::Value;

use super::schemas::{
    CreateFileResponse, DeleteFileResponse, Download, DownloadResponse, FileInfo, FileInfoResponse,
    FilePath, FileRecord as FileView, Upload,
};
use super::{account, body_value, caller, from_value, max_body, state};
use crate::accounts::{self, Actor};
use crate::app::AppState;
use crate::clock;
use crate::db::{Account, FileRecord};
use crate::directories::{self, DEFAULT_TTL_S};
use crate::error::{AppError, AppResult};
use crate::{files, names};

pub fn router() -> Router {
    Router::with_path("file")
        .post(create)
        .push(Router::with_path("download/{dir_id}/{file_name}").get(download))
        .push(
            Router::with_path("{dir_id}/{file_name}")
                .get(info)
                .delete(remove),
        )
}

#[derive(Deserialize)]
struct CreateFile {
    file_name: Option<String>,
    #[serde(default)]
    dir_id: Option<String>,
}

fn path_of(file: &FileRecord) -> String {
    format!("{}/{}", file.dir_id, file.file_name)
}

/// POST /file (and the MCP tool `create_file`): a pending record and its presigned upload URL.
pub async fn create_upload(
    state: &AppState,
    account: &Account,
    body: Value,
) -> AppResult<CreateFileResponse> {
    let body: CreateFile = from_value(body)?;
    let file_name = body.file_name.ok_or(AppError::Required("file_name"))?;
    if !names::valid_file_name(&file_name) {
        return Err(AppError::BadRequest(names::INVALID_FILE_NAME.into()));
    }
    let dir = match body.dir_id {
        Some(dir_id) => directories::owned(state, account, &dir_id).await?,
        None => directories::create(state, account, DEFAULT_TTL_S).await?,
    };
    if state.db.file(&dir.dir_id, &file_name).await?.is_some() {
        return Err(AppError::FileExists(file_name));
    }
    let record = files::pending(&dir.dir_id, &file_name);
    files::create(state, account, &record).await?;
    let (_, plan) = state.plan_of(account)?;
    let ttl = state.cfg.storage.upload_url_ttl_s;
    let upload = state
        .store
        .presign_upload(&record.object_id, plan.max_file_size_bytes(), ttl)
        .await?;
    Ok(CreateFileResponse {
        ok: true,
        file: FileView {
            dir_id: record.dir_id.clone(),
            added_on: clock::ms_rfc3339(record.added_at),
            file_path: path_of(&record),
            file_name: record.file_name,
        },
        upload: Upload {
            url: upload.url,
            method: "PUT".into(),
            headers: upload.headers,
            expires_in_seconds: ttl,
        },
    })
}

#[endpoint(tags("files"), request_body = super::schemas::CreateFileRequest, status_codes(200, 400, 401, 403, 404, 409, 413, 429, 500), security(("api_key" = [])))]
async fn create(req: &mut Request, depot: &mut Depot) -> AppResult<Json<CreateFileResponse>> {
    let state = state(depot);
    let body = body_value(req, max_body(&state)).await?;
    Ok(Json(create_upload(&state, &account(depot), body).await?))
}

/// A file the caller may see. Another account's files are reported missing, so file paths
/// reveal nothing about other tenants.
pub async fn visible_file(
    state: &AppState,
    account: &Account,
    dir_id: &str,
    file_name: &str,
) -> AppResult<FileRecord> {
    if !names::valid_file_name(file_name) {
        return Err(AppError::FileMissing);
    }
    match directories::owned(state, account, dir_id).await {
        Ok(_) => {}
        Err(AppError::DirectoryForbidden) => return Err(AppError::FileMissing),
        Err(e) => return Err(e),
    }
    state
        .db
        .file(dir_id, file_name)
        .await?
        .ok_or(AppError::FileMissing)
}

/// The `{dir_id}/{file_name}` of a route.
fn path_params(req: &Request) -> (String, String) {
    (
        req.param::<String>("dir_id").unwrap_or_default(),
        req.param::<String>("file_name").unwrap_or_default(),
    )
}

/// GET /file/{dir_id}/{file_name} (and what the MCP tool `import_url` answers).
pub async fn info_of(
    state: &AppState,
    account: &Account,
    file: FileRecord,
) -> AppResult<FileInfoResponse> {
    let (plan_name, plan) = state.plan_of(account)?;
    let file = match files::adopt(state, file.clone(), &plan_name, plan.max_file_size_mb).await? {
        Some(ready) => ready,
        None => file,
    };
    Ok(FileInfoResponse {
        ok: true,
        file_info: FileInfo {
            file_path: path_of(&file),
            file_type: file.content_type,
            file_size: file.size,
        },
    })
}

#[endpoint(tags("files"), parameters(("dir_id" = String, Path, description = "Directory id"), ("file_name" = String, Path, description = "File name")), status_codes(200, 401, 404, 429, 500, 503), security(("api_key" = [])))]
async fn info(req: &mut Request, depot: &mut Depot) -> AppResult<Json<FileInfoResponse>> {
    let state = state(depot);
    let account = account(depot);
    let (dir_id, file_name) = path_params(req);
    let file = visible_file(&state, &account, &dir_id, &file_name).await?;
    Ok(Json(info_of(&state, &account, file).await?))
}

/// GET /file/download/{dir_id}/{file_name} (and the MCP tool `get_download_url`).
pub async fn download_of(
    state: &AppState,
    account: &Account,
    dir_id: &str,
    file_name: &str,
) -> AppResult<DownloadResponse> {
    let file = visible_file(state, account, dir_id, file_name).await?;
    let (plan_name, plan) = state.plan_of(account)?;
    let file = files::adopt(state, file, &plan_name, plan.max_file_size_mb)
        .await?
        .ok_or(AppError::NotUploaded)?;
    Ok(DownloadResponse {
        ok: true,
        download: Download {
            url: files::download_url(state, &file.object_id, &file.file_name).await?,
            method: "GET".into(),
            expires_in_seconds: state.cfg.storage.download_url_ttl_s,
            file_path: path_of(&file),
            file_size: file.size,
            file_type: file.content_type,
        },
    })
}

#[endpoint(tags("files"), parameters(("dir_id" = String, Path, description = "Directory id"), ("file_name" = String, Path, description = "File name")), status_codes(200, 401, 404, 429, 500, 503), security(("api_key" = [])))]
async fn download(req: &mut Request, depot: &mut Depot) -> AppResult<Json<DownloadResponse>> {
    let state = state(depot);
    let (dir_id, file_name) = path_params(req);
    Ok(Json(
        download_of(&state, &account(depot), &dir_id, &file_name).await?,
    ))
}

/// DELETE /file/{dir_id}/{file_name} (and the MCP tool `delete_file`).
pub async fn delete_of(
    state: &AppState,
    account: &Account,
    actor: &Actor,
    dir_id: &str,
    file_name: &str,
) -> AppResult<DeleteFileResponse> {
    let file = visible_file(state, account, dir_id, file_name).await?;
    if !files::delete(state, &file.dir_id, &file.file_name).await? {
        return Err(AppError::FileMissing);
    }
    accounts::audit(state, actor, "file.delete", &path_of(&file)).await;
    Ok(DeleteFileResponse {
        ok: true,
        deleted: FilePath {
            file_path: path_of(&file),
        },
    })
}

#[endpoint(tags("files"), parameters(("dir_id" = String, Path, description = "Directory id"), ("file_name" = String, Path, description = "File name")), status_codes(200, 401, 404, 429, 500), security(("api_key" = [])))]
async fn remove(req: &mut Request, depot: &mut Depot) -> AppResult<Json<DeleteFileResponse>> {
    let state = state(depot);
    let (dir_id, file_name) = path_params(req);
    let actor = Actor::caller(&caller(depot), req.remote_addr().to_string());
    Ok(Json(
        delete_of(&state, &account(depot), &actor, &dir_id, &file_name).await?,
    ))
}
