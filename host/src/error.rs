//! The one error type at the HTTP edge. Each kind has its status and its message here, in one
//! table, so the API's messages live in one place. Every error renders as
//! `{ok:false, error, details?}`.

use salvo::http::StatusCode;
use salvo::prelude::*;
use serde_json::json;

pub type AppResult<T> = Result<T, AppError>;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    // 400
    #[error("Invalid JSON in request body")]
    InvalidJson,
    #[error("Request body is required")]
    BodyRequired,
    #[error("Task object is required in request body")]
    TaskRequired,
    #[error("probe object is required in request body")]
    ProbeRequired,
    #[error("{0} is required")]
    Required(&'static str),
    #[error("Invalid file_path format. Expected <dir_id>/<file_name>")]
    InvalidFilePath,
    #[error("Output filename '{0}' conflicts with an existing input file")]
    OutputConflict(String),
    #[error("All input files must be from the same directory")]
    MixedDirectories,
    #[error("Task must have at least one input")]
    NoInputs,
    #[error("Task must have at least one output")]
    NoOutputs,
    #[error("A task may have at most {inputs} inputs and {outputs} outputs")]
    TooManyFiles { inputs: usize, outputs: usize },
    #[error("The command is too long: {0}")]
    CommandTooLong(String),
    #[error("Invalid output file name '{0}'")]
    InvalidOutputName(String),
    #[error("webhook_url must be a string")]
    WebhookUrlType,
    #[error("Invalid field 'priority': must be high, normal or low")]
    InvalidPriority,
    /// A request's top-level `cache` or `split` that is not a boolean.
    #[error("Invalid field '{0}': must be true or false")]
    FlagType(&'static str),
    /// A plugin's refusal, in its own words.
    #[error("{0}")]
    PluginRefused(String),
    #[error("The command builder produced a command the host refuses: {0}")]
    HostRefused(String),
    /// A concat list input that names something other than the task's inputs
    /// (`pipeline/concat.rs`).
    #[error("Concat list '{list}' is not allowed: {why}")]
    ConcatList { list: String, why: String },
    #[error("The translator referred to an unknown input '{0}'")]
    UnknownInput(String),
    #[error(
        "The recipe referred to '{0}', which is neither one of its inputs nor a file an earlier step wrote"
    )]
    RecipeUnknownInput(String),
    /// The outbound client's refusal of a URL (scheme, address, port), in its words.
    #[error("{0}")]
    UrlRefused(String),
    #[error("Could not fetch input URL: the server answered HTTP {0}")]
    UrlStatus(u16),
    /// A request field that does not parse, with what is wrong.
    #[error("{0}")]
    BadRequest(String),
    /// A recipe's `params` that its schema refuses, naming the parameter.
    #[error("Invalid params for recipe '{recipe}': {why}")]
    RecipeParams { recipe: String, why: String },
    /// An `s3://` input or `export` that names no object plainly (`bucket::check_key`).
    #[error("Invalid object '{path}': {why}")]
    BadObject { path: String, why: String },
    #[error("Recipe '{recipe}' takes {wanted} input(s); {given} given")]
    RecipeInputs {
        recipe: String,
        wanted: String,
        given: usize,
    },

    // 401
    #[error("Invalid API key")]
    InvalidApiKey,
    #[error("Operator token required")]
    OperatorOnly,

    // 403
    #[error("Quota exceeded")]
    QuotaExceeded,
    #[error(
        "Quota exceeded. Input files size ({input_gb} GB) exceeds remaining quota ({remaining_gb} GB)"
    )]
    QuotaInsufficient {
        input_gb: String,
        remaining_gb: String,
    },
    #[error(
        "File '{name}' size ({size_mb} MB) exceeds plan ({plan}) max file size limit of {max_mb} MB."
    )]
    FileTooLarge {
        name: String,
        size_mb: String,
        plan: String,
        max_mb: String,
    },
    #[error("Storage limit exceeded")]
    StorageLimitExceeded,
    #[error("Unauthorized access to directory")]
    DirectoryForbidden,
    #[error("Unauthorized access to job")]
    JobForbidden,
    #[error("Input URL is larger than {0} bytes")]
    UrlTooLarge(u64),
    #[error("Upload URL has expired")]
    UploadUrlExpired,
    #[error("Download URL has expired")]
    DownloadUrlExpired,
    #[error("Invalid URL signature")]
    BadSignature,
    /// A `read` key on a route that changes something (`api::require_account`).
    #[error(
        "This API key is read-only (scope read): it may list, download, probe and view jobs, not change anything"
    )]
    ReadOnlyKey,

    // 404
    #[error("Directory not found")]
    DirectoryNotFound,
    #[error("File not found in directory")]
    FileNotFound,
    /// A file addressed by its own path (info, download, delete) or by a presigned URL.
    #[error("File not found")]
    FileMissing,
    #[error("File has not been uploaded yet")]
    NotUploaded,
    #[error("Job not found")]
    JobNotFound,
    #[error("Recipe '{0}' not found (GET /recipes lists them)")]
    RecipeNotFound(String),
    #[error("Account '{0}' not found")]
    AccountNotFound(String),
    #[error("API key '{0}' not found")]
    KeyNotFound(String),
    #[error("Credential '{0}' not found (GET /credentials lists yours)")]
    CredentialNotFound(String),
    #[error("The output directory expired before the task finished; its outputs were discarded")]
    OutputDirectoryExpired,
    #[error("Not found")]
    NotFound,

    // 408
    #[error(
        "Request body arrived too slowly: it must keep up at least {min_bytes_per_s} bytes/s after the first {grace_s} s"
    )]
    BodyTooSlow { min_bytes_per_s: u64, grace_s: u64 },

    // 409
    #[error("File '{0}' already exists in directory")]
    FileExists(String),
    #[error("Cannot cancel job in '{0}' status. Only pending jobs can be cancelled.")]
    JobNotCancellable(&'static str),
    #[error(
        "File has already been uploaded; its bytes cannot be replaced (create a new file, or delete this one first)"
    )]
    AlreadyUploaded,
    #[error("Another upload to this file is in progress")]
    UploadInProgress,
    #[error("Account '{0}' already exists")]
    AccountExists(String),
    #[error("Credential '{0}' already exists (delete it first to replace it)")]
    CredentialExists(String),
    /// A tus PATCH at another offset than the upload's.
    #[error("Upload-Offset does not match the upload's offset ({expected})")]
    TusOffset { expected: u64 },

    // 410
    #[error(
        "POST /ffmpeg/run was removed on 28 February 2026. Use POST /file, PUT the bytes to the upload URL, then POST /ffmpeg/process"
    )]
    LegacyRunRemoved,

    // 413
    #[error("Request body is too large (limit {0} KB)")]
    BodyTooLarge(u64),
    #[error("The body goes past the upload's Upload-Length ({0} bytes)")]
    TusPastLength(u64),

    // 415
    #[error("A PATCH must have Content-Type application/offset+octet-stream")]
    TusContentType,

    // 423 (as tusd answers)
    #[error("Another PATCH of this upload is running; try again once it ends")]
    TusLocked,

    // 460 (the tus checksum extension's)
    #[error("Upload-Checksum does not match the bytes of this request; they were not kept")]
    TusChecksum,

    // 429
    #[error("Too many concurrent tasks")]
    TooManyTasks,
    #[error(
        "Too many open job watches for this account (at most {0} event streams and waits at once); close one, or poll GET /job/{{jobId}}"
    )]
    TooManyWatchers(u32),
    #[error("Rate limit exceeded")]
    RateLimited { retry_after_s: u64 },

    // 500
    #[error("FFmpeg command failed with exit code {code}")]
    FfmpegFailed { code: i32, details: Option<String> },
    #[error("Failed to parse response")]
    ParseResponse,
    #[error("{what} timed out after {seconds} s")]
    TimedOut { what: &'static str, seconds: u64 },
    #[error("Outputs exceeded the limit of {max_bytes} bytes or {max_files} files")]
    OutputsTooLarge { max_bytes: u64, max_files: usize },
    #[error("Processing exceeded the memory limit of {0} MB")]
    OutOfMemory(u64),
    #[error("FFmpeg produced no output file")]
    NoOutputProduced,
    #[error("Output '{0}' was created concurrently")]
    OutputRace(String),
    /// A split encode whose stitched output fails a check (`pipeline/split/verify.rs`): it is
    /// never registered.
    #[error("The split encode's output failed its check: {0}")]
    SplitCheck(String),
    /// A segment of a split encode failed after its retries (`pipeline/split/`).
    #[error("A segment of the split encode was interrupted too many times")]
    SplitPartInterrupted,
    /// A plugin trapped, ran out of time or memory, or returned something unacceptable.
    #[error("{0}")]
    PluginFailed(String),
    #[error("Internal server error")]
    Internal(#[source] anyhow::Error),
    /// An identical task's failure, reported to each request that waited for its run
    /// (`cache::flights`): the first request's status, message and details.
    #[error("{message}")]
    Joined {
        status: u16,
        message: String,
        details: Option<String>,
    },

    // 507
    #[error("Insufficient storage")]
    InsufficientStorage,

    // 502, 503
    #[error("Could not fetch input URL: {0}")]
    UrlUnreachable(String),
    #[error("Could not fetch input URL: no complete answer within {0} s")]
    UrlTimedOut(u64),
    #[error(
        "Could not fetch input URL: it sent less than {min_bytes_per_s} bytes/s on average after the first {grace_s} s"
    )]
    UrlTooSlow { min_bytes_per_s: u64, grace_s: u64 },
    /// A tenant bucket's failure, naming the object: reading an `s3://` input, or writing an
    /// export (whose outputs stay in their directory).
    #[error("{0}")]
    BucketFailed(String),
    #[error(
        "Tenant buckets are not enabled on this server (the operator sets [storage] credentials_key)"
    )]
    BucketsDisabled,
    #[error("No {0} plugin is configured")]
    NoPlugin(&'static str),
    #[error("File storage is unavailable; nothing was kept, try again shortly")]
    StorageUnavailable,
    #[error("The database is unavailable; nothing was changed, try again shortly")]
    DatabaseUnavailable,

    /// A recipe step's failure, naming the step; the status and details are the step's own.
    #[error("Recipe '{recipe}' failed at step {step} ({kind}): {inner}")]
    RecipeStep {
        recipe: String,
        step: usize,
        kind: &'static str,
        inner: Box<AppError>,
    },
}

impl AppError {
    pub fn status(&self) -> StatusCode {
        use AppError::*;
        match self {
            InvalidJson
            | BodyRequired
            | TaskRequired
            | ProbeRequired
            | Required(_)
            | InvalidFilePath
            | OutputConflict(_)
            | MixedDirectories
            | NoInputs
            | NoOutputs
            | TooManyFiles { .. }
            | InvalidOutputName(_)
            | CommandTooLong(_)
            | WebhookUrlType
            | InvalidPriority
            | FlagType(_)
            | PluginRefused(_)
            | HostRefused(_)
            | ConcatList { .. }
            | UnknownInput(_)
            | RecipeUnknownInput(_)
            | UrlRefused(_)
            | UrlStatus(_)
            | RecipeParams { .. }
            | RecipeInputs { .. }
            | BadObject { .. }
            | BadRequest(_) => StatusCode::BAD_REQUEST,
            InvalidApiKey | OperatorOnly => StatusCode::UNAUTHORIZED,
            QuotaExceeded
            | QuotaInsufficient { .. }
            | FileTooLarge { .. }
            | StorageLimitExceeded
            | DirectoryForbidden
            | JobForbidden
            | UrlTooLarge(_)
            | UploadUrlExpired
            | DownloadUrlExpired
            | BadSignature
            | ReadOnlyKey => StatusCode::FORBIDDEN,
            DirectoryNotFound
            | FileNotFound
            | FileMissing
            | NotUploaded
            | JobNotFound
            | RecipeNotFound(_)
            | AccountNotFound(_)
            | KeyNotFound(_)
            | CredentialNotFound(_)
            | OutputDirectoryExpired
            | NotFound => StatusCode::NOT_FOUND,
            BodyTooSlow { .. } => StatusCode::REQUEST_TIMEOUT,
            FileExists(_)
            | JobNotCancellable(_)
            | AlreadyUploaded
            | UploadInProgress
            | AccountExists(_)
            | CredentialExists(_)
            | TusOffset { .. } => StatusCode::CONFLICT,
            TusChecksum => StatusCode::from_u16(460).expect("a valid status"),
            TusPastLength(_) => StatusCode::PAYLOAD_TOO_LARGE,
            TusContentType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            TusLocked => StatusCode::LOCKED,
            LegacyRunRemoved => StatusCode::GONE,
            BodyTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            TooManyTasks | TooManyWatchers(_) | RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            FfmpegFailed { .. }
            | ParseResponse
            | TimedOut { .. }
            | OutputsTooLarge { .. }
            | OutOfMemory(_)
            | NoOutputProduced
            | OutputRace(_)
            | SplitCheck(_)
            | SplitPartInterrupted
            | PluginFailed(_)
            | Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            UrlUnreachable(_) | BucketFailed(_) => StatusCode::BAD_GATEWAY,
            UrlTimedOut(_) | UrlTooSlow { .. } => StatusCode::GATEWAY_TIMEOUT,
            NoPlugin(_) | BucketsDisabled | StorageUnavailable | DatabaseUnavailable => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            InsufficientStorage => StatusCode::INSUFFICIENT_STORAGE,
            Joined { status, .. } => {
                StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
            }
            RecipeStep { inner, .. } => inner.status(),
        }
    }

    /// Seconds a refused client should wait before trying again (`Retry-After`).
    pub fn retry_after_s(&self) -> Option<u64> {
        match self {
            AppError::TooManyTasks | AppError::TooManyWatchers(_) => Some(1),
            AppError::RateLimited { retry_after_s } => Some(*retry_after_s),
            AppError::StorageUnavailable | AppError::DatabaseUnavailable => Some(5),
            AppError::RecipeStep { inner, .. } => inner.retry_after_s(),
            _ => None,
        }
    }

    pub fn details(&self) -> Option<&str> {
        match self {
            AppError::FfmpegFailed { details, .. } | AppError::Joined { details, .. } => {
                details.as_deref()
            }
            AppError::RecipeStep { inner, .. } => inner.details(),
            _ => None,
        }
    }

    pub fn body(&self) -> serde_json::Value {
        let mut body = json!({ "ok": false, "error": self.to_string() });
        if let Some(details) = self.details() {
            body["details"] = json!(details);
        }
        body
    }

    /// The same failure for another request that waited on this run.
    pub fn joined(&self) -> AppError {
        AppError::Joined {
            status: self.status().as_u16(),
            message: self.to_string(),
            details: self.details().map(str::to_string),
        }
    }

    /// `File '<name>' size (<n> MB) exceeds plan (<plan>) max file size limit of <n> MB.`
    pub fn file_too_large(name: &str, size_bytes: u64, plan: &str, max_mb: f64) -> AppError {
        AppError::FileTooLarge {
            name: name.to_string(),
            size_mb: number(size_bytes as f64 / 1_048_576.0),
            plan: plan.to_string(),
            max_mb: number(max_mb),
        }
    }
}

/// Numbers in messages: at most two decimals, no trailing zeros (`1.5`, `100`, `0.01`).
pub fn number(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

impl From<crate::net::NetError> for AppError {
    fn from(e: crate::net::NetError) -> Self {
        use crate::net::NetError;
        match e {
            NetError::Refused(m) => AppError::UrlRefused(m),
            NetError::Status(code) => AppError::UrlStatus(code),
            NetError::TooLarge { limit, .. } => AppError::UrlTooLarge(limit),
            NetError::Transport(m) => AppError::UrlUnreachable(m),
            NetError::TimedOut(seconds) => AppError::UrlTimedOut(seconds),
            NetError::TooSlow {
                min_bytes_per_s,
                grace_s,
            } => AppError::UrlTooSlow {
                min_bytes_per_s,
                grace_s,
            },
        }
    }
}

impl From<crate::plugins::PluginError> for AppError {
    fn from(e: crate::plugins::PluginError) -> Self {
        use crate::plugins::PluginError;
        match e {
            PluginError::Refused { message, .. } => AppError::PluginRefused(message),
            // Logged and counted where it failed (`PluginHost::report`).
            PluginError::Failed { .. } => AppError::PluginFailed(e.to_string()),
            PluginError::Missing(world) => AppError::NoPlugin(world),
        }
    }
}

impl From<anyhow::Error> for AppError {
    /// A full disk (or quota) under the store or scratch space is the operator's to fix and
    /// the client's to retry: 507, not a bare 500.
    fn from(e: anyhow::Error) -> Self {
        let full = e.chain().any(|cause| {
            cause.downcast_ref::<std::io::Error>().is_some_and(|io| {
                io.kind() == std::io::ErrorKind::StorageFull
                    || io.raw_os_error() == Some(libc::EDQUOT)
            })
        });
        if full {
            tracing::error!("storage full: {e:#}");
            return AppError::InsufficientStorage;
        }
        if e.chain().any(|c| c.is::<crate::storage::Unavailable>()) {
            tracing::warn!("{e:#}");
            return AppError::StorageUnavailable;
        }
        // A query that met a database outage deep in a helper that speaks anyhow (the cache's,
        // say) is still an outage: the job's lease lapses and it runs again, never "failed".
        if e.chain().any(|c| {
            matches!(
                c.downcast_ref::<crate::db::DbError>(),
                Some(crate::db::DbError::Unavailable(_))
            )
        }) {
            tracing::warn!("{e:#}");
            return AppError::DatabaseUnavailable;
        }
        AppError::Internal(e)
    }
}

impl Scribe for AppError {
    fn render(self, res: &mut Response) {
        if let AppError::Internal(e) = &self {
            tracing::error!("internal error: {e:#}");
        }
        res.status_code(self.status());
        if let Some(s) = self.retry_after_s() {
            res.headers_mut()
                .insert("retry-after", salvo::http::HeaderValue::from(s));
        }
        res.render(Json(self.body()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_messages() {
        assert_eq!(
            AppError::file_too_large("a.mp4", 157_286_400, "free", 100.0).to_string(),
            "File 'a.mp4' size (150 MB) exceeds plan (free) max file size limit of 100 MB."
        );
        assert_eq!(
            AppError::JobNotCancellable("processing").to_string(),
            "Cannot cancel job in 'processing' status. Only pending jobs can be cancelled."
        );
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(2.0), "2");
        assert_eq!(number(0.0049), "0");
        assert_eq!(
            AppError::FfmpegFailed {
                code: 1,
                details: None
            }
            .status(),
            StatusCode::INTERNAL_SERVER_ERROR
        );
    }
}
