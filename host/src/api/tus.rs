//! `/tus`: resumable uploads with the tus 1.0 protocol (core, creation, creation-with-upload,
//! expiration, termination, checksum with sha256), authenticated as the API is. The protocol's
//! headers in and out are here; what an upload is lives in `resumable.rs`. Errors keep the API's
//! `{ok:false, error}` bodies, with tus's statuses (409 for an offset that does not match, 412
//! for a protocol version it does not speak, 415 for a PATCH of another content type, 423 for a
//! PATCH while another PATCH of the same upload runs, 460 for a checksum that does not match).

use base64::Engine;
use futures_util::StreamExt;
use salvo::http::HeaderValue;
use salvo::prelude::*;
use serde::Serialize;

use super::{account, state};
use crate::app::AppState;
use crate::db::Account;
use crate::error::{AppError, AppResult};
use crate::resumable::{self, Checksum};

const VERSION: &str = "1.0.0";
const EXTENSIONS: &str = "creation,creation-with-upload,expiration,termination,checksum";
const OFFSET_STREAM: &str = "application/offset+octet-stream";

pub fn router() -> Router {
    Router::with_path("tus")
        .hoop(protocol)
        .options(options)
        .post(create)
        .push(
            Router::with_path("{tus_id}")
                .head(head)
                .patch(patch)
                .delete(terminate),
        )
}

fn header<'a>(req: &'a Request, name: &str) -> Option<&'a str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

fn set(res: &mut Response, name: &'static str, value: impl ToString) {
    if let Ok(v) = HeaderValue::from_str(&value.to_string()) {
        res.headers_mut().insert(name, v);
    }
}

/// Every answer says the version; every request but OPTIONS must speak it.
#[handler]
async fn protocol(req: &mut Request, res: &mut Response, ctrl: &mut FlowCtrl) {
    set(res, "tus-resumable", VERSION);
    if req.method() != salvo::http::Method::OPTIONS && header(req, "tus-resumable") != Some(VERSION)
    {
        set(res, "tus-version", VERSION);
        res.status_code(StatusCode::PRECONDITION_FAILED);
        res.render(Json(serde_json::json!({
            "ok": false,
            "error": format!("Tus-Resumable must be {VERSION}"),
        })));
        ctrl.skip_rest();
    }
}

#[handler]
async fn options(depot: &mut Depot, res: &mut Response) -> AppResult<()> {
    let state = state(depot);
    let (_, plan) = state.plan_of(&account(depot))?;
    set(res, "tus-version", VERSION);
    set(res, "tus-extension", EXTENSIONS);
    set(res, "tus-checksum-algorithm", "sha256");
    set(res, "tus-max-size", plan.max_file_size_bytes());
    res.status_code(StatusCode::NO_CONTENT);
    Ok(())
}

/// `Upload-Metadata`: `key base64,key base64`; a key may come without a value.
fn metadata(raw: &str) -> AppResult<Vec<(String, String)>> {
    raw.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once(' ').unwrap_or((pair, ""));
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(value.trim())
                .map_err(|_| {
                    AppError::BadRequest(format!("Upload-Metadata: '{key}' is not base64"))
                })?;
            let value = String::from_utf8(bytes).map_err(|_| {
                AppError::BadRequest(format!("Upload-Metadata: '{key}' is not UTF-8"))
            })?;
            Ok((key.to_string(), value))
        })
        .collect()
}

fn number(req: &Request, name: &str) -> AppResult<u64> {
    header(req, name)
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| AppError::BadRequest(format!("{name} must be a non-negative integer")))
}

/// The HTTP date tus gives expiries in (RFC 7231).
fn http_date(ms: i64) -> String {
    let format = time::macros::format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    time::OffsetDateTime::from_unix_timestamp(ms / 1000)
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_default()
}

/// POST /tus: `Upload-Length`, and `Upload-Metadata` with `filename` (or `name`) and an optional
/// `dir_id`; with a body of `application/offset+octet-stream`, its bytes are the first ones.
#[handler]
async fn create(req: &mut Request, depot: &mut Depot, res: &mut Response) -> AppResult<()> {
    let state = state(depot);
    let account = account(depot);
    if header(req, "upload-defer-length").is_some() {
        return Err(AppError::BadRequest(
            "Upload-Defer-Length is not supported: give Upload-Length".into(),
        ));
    }
    let length = number(req, "upload-length")?;
    let meta = metadata(header(req, "upload-metadata").unwrap_or(""))?;
    let get = |k: &str| {
        meta.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    let file_name = get("filename")
        .or(get("name"))
        .ok_or(AppError::Required("Upload-Metadata filename"))?;
    let upload = resumable::create(&state, &account, file_name, get("dir_id"), length).await?;
    set(res, "location", &location(&state, &upload.tus_id));
    set(res, "upload-expires", http_date(upload.expires_at));
    let mut offset = 0;
    if header(req, "content-type").is_some_and(|t| t.starts_with(OFFSET_STREAM)) {
        offset = receive(req, &state, &account, &upload.tus_id, 0).await?.0;
    }
    set(res, "upload-offset", offset);
    res.status_code(StatusCode::CREATED);
    Ok(())
}

/// A resumable upload made for a client that speaks no tus itself (the MCP tool
/// `create_resumable_upload`): where to send the bytes, and how.
#[derive(Serialize, ToSchema)]
pub struct ResumableUpload {
    pub ok: bool,
    /// The file's path for tasks, once the last byte is in.
    pub file_path: String,
    /// PATCH the bytes here in chunks, each with `Upload-Offset` (the bytes the server holds,
    /// which `HEAD` on this URL answers), `Tus-Resumable: 1.0.0`,
    /// `Content-Type: application/offset+octet-stream` and the same API key.
    pub upload_url: String,
    pub upload_length: u64,
    /// Left idle this long (RFC 3339), the upload is removed.
    pub expires_at: String,
}

pub async fn create_of(
    state: &AppState,
    account: &Account,
    file_name: &str,
    dir_id: Option<&str>,
    length: u64,
) -> AppResult<ResumableUpload> {
    let upload = resumable::create(state, account, file_name, dir_id, length).await?;
    Ok(ResumableUpload {
        ok: true,
        file_path: format!("{}/{}", upload.dir_id, upload.file_name),
        upload_url: location(state, &upload.tus_id),
        upload_length: upload.length,
        expires_at: crate::clock::ms_rfc3339(upload.expires_at),
    })
}

fn location(state: &AppState, tus_id: &str) -> String {
    format!(
        "{}/tus/{tus_id}",
        state.cfg.server.public_url.trim_end_matches('/')
    )
}

fn tus_id(req: &Request) -> String {
    req.param::<String>("tus_id").unwrap_or_default()
}

#[handler]
async fn head(req: &mut Request, depot: &mut Depot, res: &mut Response) -> AppResult<()> {
    let state = state(depot);
    let upload = resumable::status(&state, &account(depot), &tus_id(req)).await?;
    set(res, "upload-offset", upload.offset);
    set(res, "upload-length", upload.length);
    set(res, "upload-expires", http_date(upload.expires_at));
    set(res, "cache-control", "no-store");
    res.status_code(StatusCode::OK);
    Ok(())
}

#[handler]
async fn patch(req: &mut Request, depot: &mut Depot, res: &mut Response) -> AppResult<()> {
    let state = state(depot);
    let account = account(depot);
    if !header(req, "content-type").is_some_and(|t| t.starts_with(OFFSET_STREAM)) {
        return Err(AppError::TusContentType);
    }
    let offset = number(req, "upload-offset")?;
    let id = tus_id(req);
    let to = receive(req, &state, &account, &id, offset).await;
    if to.is_err() {
        // The body may be partly unread: the connection cannot carry another request.
        res.headers_mut()
            .insert("connection", HeaderValue::from_static("close"));
    }
    let (to, expires) = to?;
    set(res, "upload-offset", to);
    if let Some(expires) = expires {
        set(res, "upload-expires", http_date(expires));
    }
    res.status_code(StatusCode::NO_CONTENT);
    Ok(())
}

/// `Upload-Checksum: sha256 <base64>`; another algorithm is refused.
fn checksum(req: &Request) -> AppResult<Option<Checksum>> {
    let Some(raw) = header(req, "upload-checksum") else {
        return Ok(None);
    };
    let (algorithm, value) = raw.trim().split_once(' ').unwrap_or((raw, ""));
    if algorithm != "sha256" {
        return Err(AppError::BadRequest(format!(
            "Upload-Checksum: '{algorithm}' is not supported (sha256 is)"
        )));
    }
    let sha256 = base64::engine::general_purpose::STANDARD
        .decode(value.trim())
        .map_err(|_| AppError::BadRequest("Upload-Checksum is not base64".into()))?;
    Ok(Some(Checksum { sha256 }))
}

/// Appends the request's body at `offset`: the new offset, and the upload's new expiry unless
/// that was the last byte.
async fn receive(
    req: &mut Request,
    state: &std::sync::Arc<crate::app::AppState>,
    account: &crate::db::Account,
    tus_id: &str,
    offset: u64,
) -> AppResult<(u64, Option<i64>)> {
    let sum = checksum(req)?;
    let mut append = resumable::append(state, account, tus_id, offset, sum.is_some()).await?;
    crate::timing::mark("lock");
    let mut body = req.take_body();
    while let Some(frame) = body.next().await {
        // A body that breaks off keeps nothing: the offset stays where it was.
        let frame = frame.map_err(|e| AppError::BadRequest(format!("The body broke off: {e}")))?;
        if let Ok(chunk) = frame.into_data() {
            append.write(chunk).await?;
        }
    }
    crate::timing::mark("body");
    append.finish(sum).await
}

#[handler]
async fn terminate(req: &mut Request, depot: &mut Depot, res: &mut Response) -> AppResult<()> {
    let state = state(depot);
    resumable::terminate(&state, &account(depot), &tus_id(req)).await?;
    res.status_code(StatusCode::NO_CONTENT);
    Ok(())
}

/// A new operation of `tag`, secured by the API key. A function, not a closure that took each
/// operation by value and pushed its tag: the release build miscompiled that chain (the five
/// operations shared one tag buffer, so serving or dropping the document corrupted the heap).
#[inline(never)]
fn secured(tag: &str) -> salvo::oapi::Operation {
    let mut op = salvo::oapi::Operation::new();
    op.tags.push(tag.to_string());
    op.securities = Some(vec![salvo::oapi::SecurityRequirement::new(
        "api_key",
        Vec::<String>::new(),
    )]);
    op
}

/// The tus routes in the OpenAPI document. Written out here rather than by `#[endpoint]`: the
/// protocol lives in headers (in and out), bodies are raw bytes, HEAD answers no body, and 460
/// is not a status the macros know.
pub fn document(mut doc: salvo::oapi::OpenApi) -> salvo::oapi::OpenApi {
    use salvo::oapi::{
        BasicType, Content, Header, Object, Operation, Parameter, ParameterIn, PathItem,
        PathItemType, RequestBody, Required, Response, ToSchema,
    };
    let error = super::schemas::ErrorBody::to_schema(&mut doc.components);
    let integer = || Object::with_type(BasicType::Integer).minimum(0);
    let text = || Object::with_type(BasicType::String);
    let version = || Object::with_type(BasicType::String).enum_values([VERSION]);
    let bytes = || {
        RequestBody::new()
            .description("The upload's next bytes")
            .add_content(
                OFFSET_STREAM,
                Content::new(Object::with_type(BasicType::String).format(
                    salvo::oapi::SchemaFormat::KnownFormat(salvo::oapi::KnownFormat::Binary),
                )),
            )
    };
    let header = |name: &str, required: bool, what: &str, schema: Object| {
        Parameter::new(name)
            .location(ParameterIn::Header)
            .required(if required {
                Required::True
            } else {
                Required::False
            })
            .description(what)
            .schema(schema)
    };
    let resumable = || header("Tus-Resumable", true, "The protocol version", version());
    let id = || {
        Parameter::new("tus_id")
            .location(ParameterIn::Path)
            .required(Required::True)
            .description("The upload, the last segment of the `Location` its creation answered")
            .schema(text())
    };
    let out = |what: &str, schema: Object| Header::new(schema).description(what);
    let answer_version = || out("The protocol version", version()).required(true);
    let offset = || out("The bytes the server holds", integer()).required(true);
    let expires = || {
        out(
            "When the upload is removed if left idle (RFC 7231 date)",
            text(),
        )
    };
    // Errors keep the API's body; HEAD's have none (a HEAD answer carries no body).
    let errors = |op: Operation, codes: &[(&str, &str)], body: bool| {
        codes.iter().fold(op, |op, (code, what)| {
            let response = Response::new(*what);
            op.add_response(
                *code,
                if body {
                    response.add_content("application/json", Content::new(error.clone()))
                } else {
                    response
                },
            )
        })
    };
    let common: &[(&str, &str)] = &[
        ("400", "A header is missing or malformed"),
        ("401", "Invalid or missing API key"),
        (
            "403",
            "A read-only key; or the size is over the plan's or the quota's",
        ),
        (
            "412",
            "`Tus-Resumable` is missing or not 1.0.0 (with `Tus-Version`)",
        ),
        ("429", "Rate limit exceeded (with `Retry-After`)"),
        ("500", "Internal error"),
        (
            "503",
            "File storage or the database is unavailable (with `Retry-After`)",
        ),
        ("507", "The server's storage is full"),
    ];
    let writes: &[(&str, &str)] = &[
        (
            "409",
            "`Upload-Offset` is not the server's offset, or the file's name is taken",
        ),
        ("413", "More bytes than `Upload-Length`"),
        ("423", "Another PATCH of this upload is running"),
        (
            "460",
            "`Upload-Checksum` does not match the request's bytes (they were not kept)",
        ),
    ];

    let post = secured("tus")
        .operation_id("tus_create")
        .summary("Create a resumable upload (tus 1.0 creation, creation-with-upload)")
        .add_parameter(resumable())
        .add_parameter(header(
            "Upload-Length",
            true,
            "The file's size in bytes",
            integer(),
        ))
        .add_parameter(header(
            "Upload-Metadata",
            true,
            "Comma-separated `key base64value` pairs: `filename` (or `name`) and an optional \
             `dir_id` (the directory it goes to, else a new one)",
            text(),
        ))
        .add_parameter(header(
            "Upload-Checksum",
            false,
            "`sha256 <base64 digest>` of the body sent with the creation",
            text(),
        ))
        .request_body(bytes())
        .add_response(
            "201",
            Response::new("Created; `Location` is the upload's URL")
                .add_header("Tus-Resumable", answer_version())
                .add_header("Location", out("The upload's URL", text()).required(true))
                .add_header("Upload-Offset", offset())
                .add_header("Upload-Expires", expires()),
        );
    let post = errors(errors(post, common, true), writes, true).add_response(
        "404",
        Response::new("`dir_id` names no directory of the account")
            .add_content("application/json", Content::new(error.clone())),
    );
    let opts = secured("tus")
        .operation_id("tus_options")
        .summary("What the server speaks of tus")
        .add_response(
            "204",
            Response::new("The protocol's capabilities")
                .add_header("Tus-Resumable", answer_version())
                .add_header("Tus-Version", out("Versions spoken", text()).required(true))
                .add_header(
                    "Tus-Extension",
                    out("Extensions spoken", text()).required(true),
                )
                .add_header(
                    "Tus-Checksum-Algorithm",
                    out("Checksum algorithms", text()).required(true),
                )
                .add_header(
                    "Tus-Max-Size",
                    out("The plan's largest file", integer()).required(true),
                ),
        );
    let opts = errors(
        opts,
        &[
            ("401", "Invalid or missing API key"),
            ("403", "A read-only key"),
            ("429", "Rate limit exceeded (with `Retry-After`)"),
            ("500", "Internal error"),
            ("503", "The database is unavailable (with `Retry-After`)"),
        ],
        true,
    );
    let peek = secured("tus")
        .operation_id("tus_head")
        .summary("Where an upload stands: the offset to resume from")
        .add_parameter(id())
        .add_parameter(resumable())
        .add_response(
            "200",
            Response::new("The upload's offset and length")
                .add_header("Tus-Resumable", answer_version())
                .add_header("Upload-Offset", offset())
                .add_header(
                    "Upload-Length",
                    out("The file's size", integer()).required(true),
                )
                .add_header("Upload-Expires", expires())
                .add_header("Cache-Control", out("`no-store`", text())),
        );
    let peek = errors(
        errors(peek, common, false),
        &[("404", "No such upload of the account (or it expired)")],
        false,
    );
    let append = secured("tus")
        .operation_id("tus_patch")
        .summary("Append bytes at the server's offset")
        .add_parameter(id())
        .add_parameter(resumable())
        .add_parameter(header(
            "Upload-Offset",
            true,
            "The server's offset (from HEAD or the last answer)",
            integer(),
        ))
        .add_parameter(header(
            "Upload-Checksum",
            false,
            "`sha256 <base64 digest>` of this request's body",
            text(),
        ))
        .request_body(bytes().required(Required::True))
        .add_response(
            "204",
            Response::new("The bytes are kept")
                .add_header("Tus-Resumable", answer_version())
                .add_header("Upload-Offset", offset())
                .add_header("Upload-Expires", expires()),
        );
    let append = errors(errors(append, common, true), writes, true);
    let append = errors(
        append,
        &[
            ("404", "No such upload of the account (or it expired)"),
            ("415", "The body is not `application/offset+octet-stream`"),
        ],
        true,
    );
    let remove = secured("tus")
        .operation_id("tus_terminate")
        .summary("Terminate an upload: its bytes are dropped")
        .add_parameter(id())
        .add_parameter(resumable())
        .add_response(
            "204",
            Response::new("Terminated").add_header("Tus-Resumable", answer_version()),
        );
    let remove = errors(
        errors(remove, common, true),
        &[
            ("404", "No such upload of the account (or it expired)"),
            ("423", "A PATCH of this upload is running"),
        ],
        true,
    );

    doc.paths.insert(
        "/tus",
        PathItem::new(PathItemType::Post, post).add_operation(PathItemType::Options, opts),
    );
    doc.paths.insert(
        "/tus/{tus_id}",
        PathItem::new(PathItemType::Head, peek)
            .add_operation(PathItemType::Patch, append)
            .add_operation(PathItemType::Delete, remove),
    );
    doc
}
