//! Files (spec 4.11–4.14): records in a directory whose bytes are uploaded and downloaded
//! through presigned URLs.

use salvo::prelude::*;
use serde::Deserialize;
use serde_json::{Value, json};

use super::directories::{DEFAULT_TTL_S, new_directory, owned_directory};
use super::{account, body_value, from_value, max_body, state};
use crate::app::AppState;
use crate::clock;
use crate::config::Plan;
use crate::db::{Account, DbError, FileRecord, FileState};
use crate::error::{AppError, AppResult};
use crate::names;

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

#[endpoint(tags("files"), request_body = super::schemas::CreateFileRequest, responses((status_code = 200, body = super::schemas::CreateFileResponse)), status_codes(200, 400, 401, 403, 404, 409, 413, 500), security(("api_key" = [])))]
async fn create(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Value>> {
    let state = state(depot);
    let account = account(depot);
    let body: CreateFile = from_value(body_value(req, max_body(&state)).await?)?;
    let file_name = body
        .file_name
        .ok_or_else(|| AppError::BadRequest("file_name is required".into()))?;
    if !names::valid_file_name(&file_name) {
        return Err(AppError::BadRequest(
            "Invalid file_name: 1-255 bytes, no '/', no control characters, not '.' or '..'".into(),
        ));
    }
    let dir = match body.dir_id {
        Some(dir_id) => owned_directory(&state, &account, &dir_id).await?,
        None => new_directory(&state, &account, DEFAULT_TTL_S).await?,
    };
    if state.db.file(&dir.dir_id, &file_name).await?.is_some() {
        return Err(AppError::FileExists(file_name));
    }
    let record = FileRecord {
        object_id: names::random_id(32),
        dir_id: dir.dir_id.clone(),
        file_name: file_name.clone(),
        state: FileState::Pending,
        size: 0,
        content_type: None,
        added_at: clock::now_ms(),
    };
    match state.db.create_file(&record).await {
        Ok(()) => {}
        Err(DbError::Conflict) => return Err(AppError::FileExists(file_name)),
        Err(e) => return Err(e.into()),
    }
    let (_, plan) = state.plan_of(&account)?;
    let ttl = state.cfg.storage.upload_url_ttl_s;
    let upload = state
        .store
        .presign_upload(&record.object_id, plan.max_file_size_bytes(), ttl)
        .await?;
    Ok(Json(json!({
        "ok": true,
        "file": {
            "dir_id": record.dir_id,
            "added_on": clock::ms_rfc3339(record.added_at),
            "file_name": record.file_name,
            "file_path": format!("{}/{}", record.dir_id, record.file_name),
        },
        "upload": {
            "url": upload.url,
            "method": "PUT",
            "headers": upload.headers,
            "expiresInSeconds": ttl,
        },
    })))
}

/// The file if its bytes are in the store. An upload made straight to a store that cannot cap
/// its size (S3), or one whose record update a crash lost, is adopted here at first use: its
/// size is read, and an object over the plan's limit is deleted with its record and refused
/// with the spec's 403. Idempotent, so instances (and the sweeper) adopting at once agree.
pub async fn uploaded(
    state: &AppState,
    file: FileRecord,
    plan_name: &str,
    max_file_size_mb: f64,
) -> AppResult<Option<FileRecord>> {
    match file.state {
        FileState::Ready => return Ok(Some(file)),
        FileState::Pending => {}
        _ => return Ok(None),
    }
    let Some(size) = state.store.size(&file.object_id).await? else {
        return Ok(None);
    };
    if size > crate::config::mb_to_bytes(max_file_size_mb) {
        if delete_file(state, &file.dir_id, &file.file_name).await? {
            tracing::info!(
                file.dir_id,
                file.file_name,
                size,
                "upload over the plan's limit deleted"
            );
        }
        return Err(AppError::file_too_large(
            &file.file_name,
            size,
            plan_name,
            max_file_size_mb,
        ));
    }
    let content_type = super::blob::guess_type(&file.file_name);
    Ok(state
        .db
        .mark_uploaded(&file.object_id, size, content_type.as_deref())
        .await?)
}

/// A stored file a task or probe may read: uploaded, and within the plan's size.
pub async fn readable_input(
    state: &AppState,
    dir_id: &str,
    file_name: &str,
    plan_name: &str,
    plan: &Plan,
) -> AppResult<FileRecord> {
    let file = state
        .db
        .file(dir_id, file_name)
        .await?
        .ok_or(AppError::FileNotFound)?;
    let file = uploaded(state, file, plan_name, plan.max_file_size_mb)
        .await?
        .ok_or(AppError::FileNotFound)?;
    if file.size > plan.max_file_size_bytes() {
        return Err(AppError::file_too_large(
            &file.file_name,
            file.size,
            plan_name,
            plan.max_file_size_mb,
        ));
    }
    Ok(file)
}

/// Deletes a file: hidden first, then bytes, then record, so a crash in between leaves a
/// `deleting` record that the sweeper finishes, never bytes without a record. `false` when
/// the file was already gone (or another request is deleting it).
async fn delete_file(state: &AppState, dir_id: &str, file_name: &str) -> AppResult<bool> {
    let Some(file) = state.db.mark_deleting(dir_id, file_name).await? else {
        return Ok(false);
    };
    state.store.delete(&file.object_id).await?;
    state.db.finish_delete(&file.object_id).await?;
    Ok(true)
}

/// A file the caller may see. Another account's files are reported missing (spec 5.3).
async fn visible_file(state: &AppState, account: &Account, req: &Request) -> AppResult<FileRecord> {
    let dir_id = req.param::<String>("dir_id").unwrap_or_default();
    let file_name = req.param::<String>("file_name").unwrap_or_default();
    if !names::valid_file_name(&file_name) {
        return Err(AppError::NotFound("File not found".into()));
    }
    match owned_directory(state, account, &dir_id).await {
        Ok(_) => {}
        Err(AppError::DirectoryForbidden) => {
            return Err(AppError::NotFound("File not found".into()));
        }
        Err(e) => return Err(e),
    }
    state
        .db
        .file(&dir_id, &file_name)
        .await?
        .ok_or_else(|| AppError::NotFound("File not found".into()))
}

#[endpoint(tags("files"), responses((status_code = 200, body = super::schemas::FileInfoResponse)), parameters(("dir_id" = String, Path, description = "Directory id"), ("file_name" = String, Path, description = "File name")), status_codes(200, 401, 404, 500), security(("api_key" = [])))]
async fn info(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Value>> {
    let state = state(depot);
    let account = account(depot);
    let file = visible_file(&state, &account, req).await?;
    let (plan_name, plan) = state.plan_of(&account)?;
    let file = match uploaded(&state, file.clone(), &plan_name, plan.max_file_size_mb).await? {
        Some(ready) => ready,
        None => file,
    };
    Ok(Json(json!({
        "ok": true,
        "file_info": {
            "file_path": format!("{}/{}", file.dir_id, file.file_name),
            "file_type": file.content_type,
            "file_size": file.size,
        },
    })))
}

#[endpoint(tags("files"), responses((status_code = 200, body = super::schemas::DownloadResponse)), parameters(("dir_id" = String, Path, description = "Directory id"), ("file_name" = String, Path, description = "File name")), status_codes(200, 401, 404, 500), security(("api_key" = [])))]
async fn download(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Value>> {
    let state = state(depot);
    let account = account(depot);
    let file = visible_file(&state, &account, req).await?;
    let (plan_name, plan) = state.plan_of(&account)?;
    let file = uploaded(&state, file, &plan_name, plan.max_file_size_mb)
        .await?
        .ok_or_else(|| AppError::NotFound("File has not been uploaded yet".into()))?;
    let ttl = state.cfg.storage.download_url_ttl_s;
    let url = state
        .store
        .presign_download(&file.object_id, &file.file_name, ttl)
        .await?;
    Ok(Json(json!({
        "ok": true,
        "download": {
            "url": url.url,
            "method": "GET",
            "expiresInSeconds": ttl,
            "file_path": format!("{}/{}", file.dir_id, file.file_name),
            "file_size": file.size,
            "file_type": file.content_type,
        },
    })))
}

#[endpoint(tags("files"), responses((status_code = 200, body = super::schemas::DeleteFileResponse)), parameters(("dir_id" = String, Path, description = "Directory id"), ("file_name" = String, Path, description = "File name")), status_codes(200, 401, 404, 500), security(("api_key" = [])))]
async fn remove(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Value>> {
    let state = state(depot);
    let file = visible_file(&state, &account(depot), req).await?;
    if !delete_file(&state, &file.dir_id, &file.file_name).await? {
        return Err(AppError::NotFound("File not found".into()));
    }
    Ok(Json(json!({
        "ok": true,
        "deleted": { "file_path": format!("{}/{}", file.dir_id, file.file_name) },
    })))
}
