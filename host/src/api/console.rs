//! The web console: `GET /console` and its assets under `/console/...`, embedded in the binary.
//! The pages are static and need no API key; the script calls the same authenticated API routes
//! as any client, with the key the user enters (kept in `sessionStorage`, sent as a header).
//!
//! Same origin only: a Content-Security-Policy without inline scripts or styles, whose media,
//! image and connect sources add just the object store's origin (presigned uploads, downloads
//! and previews go there), `nosniff`, no referrer, and no CORS headers.

use salvo::http::HeaderValue;
use salvo::prelude::*;

use super::state;
use crate::app::AppState;
use crate::error::{AppError, AppResult};

pub fn router() -> Router {
    Router::with_path("console").get(page).head(page).push(
        Router::with_path("{asset}")
            .get(named_asset)
            .head(named_asset),
    )
}

/// An embedded file: its name under `/console/`, its content type and its bytes.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static str,
}

/// The file `host/console/<dir/><name>`, embedded and served as `/console/<name>`.
macro_rules! asset {
    ($name:literal, $content_type:literal) => {
        asset!("", $name, $content_type)
    };
    ($dir:literal, $name:literal, $content_type:literal) => {
        Asset {
            name: $name,
            content_type: $content_type,
            body: include_str!(concat!("../../console/", $dir, $name)),
        }
    };
}

const PAGE: Asset = asset!("index.html", "text/html; charset=utf-8");

const ASSETS: &[Asset] = &[
    PAGE,
    asset!("console.css", "text/css; charset=utf-8"),
    asset!("console.js", "text/javascript; charset=utf-8"),
    asset!("api.js", "text/javascript; charset=utf-8"),
    asset!("view.js", "text/javascript; charset=utf-8"),
    asset!("recipes.js", "text/javascript; charset=utf-8"),
    asset!("player.js", "text/javascript; charset=utf-8"),
    // The players, loaded by `player.js` only when a playback URL is played (vendor/README.md).
    asset!(
        "vendor/",
        "hls.light.min.js",
        "text/javascript; charset=utf-8"
    ),
    asset!(
        "vendor/",
        "dash.mediaplayer.min.js",
        "text/javascript; charset=utf-8"
    ),
    // The resumable upload client (tus), loaded on the first upload.
    asset!("vendor/", "tus.min.js", "text/javascript; charset=utf-8"),
    asset!("icon.svg", "image/svg+xml"),
];

#[handler]
async fn page(depot: &mut Depot, res: &mut Response) {
    serve(&state(depot), &PAGE, res).await;
}

#[handler]
async fn named_asset(req: &mut Request, depot: &mut Depot, res: &mut Response) -> AppResult<()> {
    let name = req.param::<String>("asset").unwrap_or_default();
    let found = ASSETS
        .iter()
        .find(|a| a.name == name)
        .ok_or(AppError::NotFound)?;
    serve(&state(depot), found, res).await;
    Ok(())
}

async fn serve(state: &AppState, asset: &Asset, res: &mut Response) {
    let csp = policy(store_origin(state).await.as_deref());
    let headers = res.headers_mut();
    headers.insert("content-type", HeaderValue::from_static(asset.content_type));
    if let Ok(value) = HeaderValue::from_str(&csp) {
        headers.insert("content-security-policy", value);
    }
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    headers.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    headers.insert("x-frame-options", HeaderValue::from_static("DENY"));
    // Small and embedded: revalidating costs nothing and a new binary's assets show at once.
    headers.insert("cache-control", HeaderValue::from_static("no-cache"));
    res.body(asset.body);
}

/// The origin of the store's presigned URLs (the server's own `public_url` for the local store,
/// the bucket's endpoint for S3), read off a URL presigned for no object: presigning is local
/// computation in both backends, and the origin is the same for every object.
async fn store_origin(state: &AppState) -> Option<String> {
    let presigned = state
        .store
        .presign_download("console-origin", "console", 60)
        .await
        .ok()?;
    let url = url::Url::parse(&presigned.url).ok()?;
    let origin = url.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}

/// The page's Content-Security-Policy: everything from the page's own origin, plus the store's
/// origin where the browser reaches it (upload PUTs, previews, downloads), and `blob:` media: the
/// players feed the video element a media source by a blob: URL.
fn policy(store: Option<&str>) -> String {
    let store = store.map(|o| format!(" {o}")).unwrap_or_default();
    format!(
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'{store}; \
         media-src 'self'{store} blob:; img-src 'self'{store}; object-src 'none'; \
         base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_adds_only_the_store_origin() {
        let p = policy(Some("https://bucket.s3.example.com"));
        assert!(p.contains("media-src 'self' https://bucket.s3.example.com blob:;"));
        assert!(p.contains("connect-src 'self' https://bucket.s3.example.com;"));
        assert!(!p.contains("unsafe-inline"));
        assert!(policy(None).contains("media-src 'self' blob:;"));
    }

    #[test]
    fn every_asset_has_a_distinct_name() {
        for (i, a) in ASSETS.iter().enumerate() {
            assert!(
                ASSETS[i + 1..].iter().all(|b| b.name != a.name),
                "{}",
                a.name
            );
        }
    }
}
