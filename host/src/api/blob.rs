//! The host's presigned URLs: `PUT /blob/{object}` receives an upload for either backend (so the
//! plan's size cap holds on S3 too), `GET` serves a local-store download. No API key: the URL's
//! signature is the credential.

use futures_util::StreamExt;
use salvo::http::HeaderValue;
use salvo::prelude::*;

use super::schemas::Uploaded;
use super::state;
use crate::app::AppState;
use crate::clock;
use crate::db::{FileRecord, FileState};
use crate::error::{AppError, AppResult};
use crate::storage::attachment::{content_disposition, guess_type};
use crate::storage::local::LocalStore;
use crate::storage::presign::{Grant, Method, Rejection};
use crate::storage::spool::Spool;

pub fn router() -> Router {
    Router::with_path("blob/{object}")
        .put(upload)
        .get(download)
        .head(download)
}

fn local(state: &AppState) -> AppResult<&LocalStore> {
    state.local.as_deref().ok_or(AppError::NotFound)
}

fn verify(state: &AppState, method: Method, req: &Request) -> AppResult<Grant> {
    let object = req.param::<String>("object").unwrap_or_default();
    let query = req.uri().query().unwrap_or("");
    state
        .blob_urls
        .signer()
        .verify(method, &object, query, clock::unix_now())
        .map_err(|r| match (r, method) {
            (Rejection::Expired, Method::Put) => AppError::UploadUrlExpired,
            (Rejection::Expired, Method::Get) => AppError::DownloadUrlExpired,
            _ => AppError::BadSignature,
        })
}

/// The file behind an object, if its directory is still alive.
async fn live_file(state: &AppState, object: &str) -> AppResult<FileRecord> {
    let file = state
        .db
        .file_by_object(object)
        .await?
        .ok_or(AppError::FileMissing)?;
    state
        .db
        .directory(&file.dir_id, clock::now_ms())
        .await?
        .ok_or(AppError::FileMissing)?;
    Ok(file)
}

#[handler]
async fn upload(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> AppResult<Json<Uploaded>> {
    let result = receive_upload(req, depot).await;
    if result.is_err() {
        // The body may be partly unread: the connection cannot carry another request.
        res.headers_mut()
            .insert("connection", HeaderValue::from_static("close"));
    }
    result
}

async fn receive_upload(req: &mut Request, depot: &mut Depot) -> AppResult<Json<Uploaded>> {
    let state = state(depot);
    let grant = verify(&state, Method::Put, req)?;
    let file = live_file(&state, &grant.object).await?;
    let max = grant.max_bytes.unwrap_or(0);
    let too_large = async |size: u64| {
        let (plan, max_mb) = state.plan_of_dir(&file.dir_id).await;
        AppError::file_too_large(&file.file_name, size, &plan, max_mb)
    };
    let declared = req
        .headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if let Some(len) = declared.filter(|&len| len > max) {
        return Err(too_large(len).await);
    }
    let content_type = req
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|v| {
            !v.is_empty() && v != "application/octet-stream" && v.len() <= 100 && v.contains('/')
        });
    let content_type = content_type.or_else(|| guess_type(&file.file_name));

    // One upload fills a file, once: a second PUT to a still-valid URL must not change the bytes
    // under a ready record (its size and hash, and every cached result keyed by them).
    let claim = crate::files::claim_upload(&state, &grant.object).await?;
    // Spooled to this instance's disk, whole and within the cap, before the store sees a byte:
    // a refused or broken upload leaves nothing in the store.
    let tmp = match &state.local {
        Some(local) => local.temp_path(),
        None => state
            .scratch_dir
            .join(format!("upload-{}", crate::names::random_id(24))),
    };
    let stored = async {
        let written = match receive(req, &tmp, max).await {
            Ok(received) => received,
            Err(e) => {
                let _ = tokio::fs::remove_file(&tmp).await;
                return Err(match e {
                    Received::TooLarge(n) => too_large(n).await,
                    Received::Body(e) => AppError::BadRequest(format!("Upload failed: {e}")),
                    // This side's disk: a full one is 507 (`error.rs`), like a task's outputs.
                    Received::Disk(e) => anyhow::Error::from(e).into(),
                });
            }
        };
        // A rename into the local store; a PUT (multipart above one part) to the bucket.
        let stored = state.store.put_file(&grant.object, &tmp).await;
        let _ = tokio::fs::remove_file(&tmp).await;
        stored?;
        Ok(written)
    }
    .await;
    let written = match stored {
        Ok(written) => written,
        Err(e) => {
            // Given back before the answer, so the client's retry finds the file free.
            claim.release().await;
            return Err(e);
        }
    };
    // In the local store the bytes stay on this disk, so they are hashed from there; a bucket's
    // are hashed by the first cached task that stages them.
    let local_path = state.local.as_ref().map(|l| l.object_path(&grant.object));
    let finished = claim
        .finish(written, content_type.as_deref(), local_path)
        .await?;
    if finished.is_none() {
        if state.db.file_by_object(&grant.object).await?.is_some() {
            // The claim lapsed (this instance stalled past its lease) and another upload holds
            // the file: the bytes under it are that upload's business now.
            return Err(AppError::UploadInProgress);
        }
        // Deleted while uploading: the bytes must not outlive the record.
        let _ = state.store.delete(&grant.object).await;
        return Err(AppError::FileMissing);
    }
    Ok(Json(Uploaded {
        ok: true,
        file_path: format!("{}/{}", file.dir_id, file.file_name),
        file_size: written,
    }))
}

enum Received {
    TooLarge(u64),
    /// The client's body broke off.
    Body(String),
    /// Writing it here failed.
    Disk(std::io::Error),
}

/// Streams the body to `path`, stopping as soon as it passes `max` bytes; synced before return.
/// Returns the bytes written.
async fn receive(req: &mut Request, path: &std::path::Path, max: u64) -> Result<u64, Received> {
    let mut spool = Spool::create(path).await.map_err(Received::Disk)?;
    let mut body = req.take_body();
    let mut received = 0u64;
    while let Some(frame) = body.next().await {
        let frame = frame.map_err(|e| Received::Body(e.to_string()))?;
        if let Ok(chunk) = frame.into_data() {
            received += chunk.len() as u64;
            if received > max {
                return Err(Received::TooLarge(received));
            }
            spool.write(chunk).await.map_err(Received::Disk)?;
        }
    }
    spool.finish().await.map_err(Received::Disk)
}

#[handler]
async fn download(req: &mut Request, depot: &mut Depot, res: &mut Response) -> AppResult<()> {
    let state = state(depot);
    let store = local(&state)?;
    let grant = verify(&state, Method::Get, req)?;
    let file = live_file(&state, &grant.object).await?;
    if file.state != FileState::Ready {
        return Err(AppError::FileMissing);
    }
    let mime = file
        .content_type
        .as_deref()
        .and_then(|t| t.parse().ok())
        .unwrap_or(mime_guess::mime::APPLICATION_OCTET_STREAM);
    let mut named = salvo::fs::NamedFile::builder(store.object_path(&grant.object))
        .content_type(mime)
        .build()
        .await
        .map_err(|_| AppError::FileMissing)?;
    let disposition = HeaderValue::from_str(&content_disposition(&file.file_name))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment"));
    named.set_content_disposition(disposition);
    named
        .send_with_method(req.method(), req.headers(), res)
        .await;
    Ok(())
}
