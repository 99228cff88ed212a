//! `GET /s/{token}/{dir_id}/{file_name}`: a directory's files read through one signed prefix
//! (`storage/presign.rs` `share_prefix`), so that an HLS playlist or a DASH manifest plays
//! straight from the service: the relative URIs inside it resolve to the files beside it. The
//! token is scoped to one directory, read-only and expiring; any instance serves it. No API
//! key: the token is the credential, and any origin may read (players run on other sites).

use salvo::http::HeaderValue;
use salvo::prelude::*;

use super::state;
use crate::clock;
use crate::db::FileState;
use crate::error::{AppError, AppResult};
use crate::storage::presign::{Method, Rejection, share_query};

pub fn router() -> Router {
    Router::with_path("s/{token}/{dir_id}/{file_name}")
        .get(serve)
        .head(serve)
        .options(preflight)
}

fn cors(res: &mut Response) {
    let headers = res.headers_mut();
    headers.insert("access-control-allow-origin", HeaderValue::from_static("*"));
    headers.insert(
        "access-control-expose-headers",
        HeaderValue::from_static("content-length, content-range, accept-ranges"),
    );
}

#[handler]
async fn preflight(res: &mut Response) {
    cors(res);
    let headers = res.headers_mut();
    headers.insert(
        "access-control-allow-methods",
        HeaderValue::from_static("GET, HEAD, OPTIONS"),
    );
    headers.insert(
        "access-control-allow-headers",
        HeaderValue::from_static("range"),
    );
    headers.insert("access-control-max-age", HeaderValue::from_static("3600"));
    res.status_code(StatusCode::NO_CONTENT);
}

#[handler]
async fn serve(req: &mut Request, depot: &mut Depot, res: &mut Response) -> AppResult<()> {
    cors(res);
    let state = state(depot);
    let token = req.param::<String>("token").unwrap_or_default();
    let dir_id = req.param::<String>("dir_id").unwrap_or_default();
    let name = req.param::<String>("file_name").unwrap_or_default();
    let query = share_query(&token).map_err(|_| AppError::BadSignature)?;
    state
        .blob_urls
        .signer()
        .verify(Method::Share, &dir_id, &query, clock::unix_now())
        .map_err(|r| match r {
            Rejection::Expired => AppError::DownloadUrlExpired,
            _ => AppError::BadSignature,
        })?;
    state
        .db
        .directory(&dir_id, clock::now_ms())
        .await?
        .ok_or(AppError::FileMissing)?;
    let file = state
        .db
        .file(&dir_id, &name)
        .await?
        .filter(|f| f.state == FileState::Ready)
        .ok_or(AppError::FileMissing)?;
    let mime = file
        .content_type
        .as_deref()
        .and_then(|t| t.parse().ok())
        .unwrap_or(mime_guess::mime::APPLICATION_OCTET_STREAM);
    match &state.local {
        Some(local) => send(req, res, &local.object_path(&file.object_id), mime).await,
        None if crate::files::is_manifest(&name) => {
            // A manifest is small, and a player resolves the other files against its URL (a
            // redirect would move that base): fetched from the bucket and served from here.
            let scratch = state
                .scratch_dir
                .join(format!("share-{}", crate::names::random_id(16)));
            let staged = state.store.stage(&file.object_id, &scratch).await;
            let sent = match staged {
                Ok(()) => send(req, res, &scratch, mime).await,
                Err(e) => Err(e.into()),
            };
            let _ = tokio::fs::remove_file(&scratch).await;
            sent
        }
        None => {
            // Segments and media straight from the bucket, presigned for a short while.
            let ttl = state.cfg.storage.download_url_ttl_s;
            let url = state
                .store
                .presign_download(&file.object_id, &file.file_name, ttl)
                .await?
                .url;
            res.render(Redirect::found(url));
            Ok(())
        }
    }
}

/// The file at `path`, inline, with Range support.
async fn send(
    req: &Request,
    res: &mut Response,
    path: &std::path::Path,
    mime: mime_guess::mime::Mime,
) -> AppResult<()> {
    let named = salvo::fs::NamedFile::builder(path)
        .content_type(mime)
        .build()
        .await
        .map_err(|_| AppError::FileMissing)?;
    named
        .send_with_method(req.method(), req.headers(), res)
        .await;
    Ok(())
}
