//! The one error type at the HTTP edge. Each kind has its status and its message here, in one
//! table, so the spec's messages live in one place. Every error renders as
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
    #[error("Invalid file_path format. Expected <dir_id>/<file_name>")]
    InvalidFilePath,
    #[error("Output filename '{0}' conflicts with an existing input file")]
    OutputConflict(String),
    #[error("All input files must be from the same directory")]
    MixedDirectories,
    #[error("{0}")]
    BadRequest(String),

    // 401
    #[error("Invalid API key")]
    InvalidApiKey,

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
    #[error("Unauthorized access to directory")]
    DirectoryForbidden,
    #[error("Unauthorized access to job")]
    JobForbidden,
    #[error("{0}")]
    Forbidden(String),

    // 404
    #[error("Directory not found")]
    DirectoryNotFound,
    #[error("File not found in directory")]
    FileNotFound,
    #[error("Job not found")]
    JobNotFound,
    #[error("{0}")]
    NotFound(String),

    // 409
    #[error("File '{0}' already exists in directory")]
    FileExists(String),
    #[error("Cannot cancel job in '{0}' status. Only pending jobs can be cancelled.")]
    JobNotCancellable(String),

    // 410
    #[error("{0}")]
    Gone(String),

    // 413
    #[error("Request body is too large (limit {0} KB)")]
    BodyTooLarge(u64),

    // 500
    #[error("FFmpeg command failed with exit code {code}")]
    FfmpegFailed { code: i32, details: Option<String> },
    #[error("Failed to parse response")]
    ParseResponse,
    #[error("{message}")]
    Processing {
        message: String,
        details: Option<String>,
    },
    #[error("Internal server error")]
    Internal(#[source] anyhow::Error),

    // 502, 503
    #[error("{0}")]
    Upstream(String),
    #[error("{0}")]
    Unavailable(String),
}

impl AppError {
    pub fn status(&self) -> StatusCode {
        use AppError::*;
        match self {
            InvalidJson | BodyRequired | TaskRequired | InvalidFilePath | OutputConflict(_)
            | MixedDirectories | BadRequest(_) => StatusCode::BAD_REQUEST,
            InvalidApiKey => StatusCode::UNAUTHORIZED,
            QuotaExceeded
            | QuotaInsufficient { .. }
            | FileTooLarge { .. }
            | DirectoryForbidden
            | JobForbidden
            | Forbidden(_) => StatusCode::FORBIDDEN,
            DirectoryNotFound | FileNotFound | JobNotFound | NotFound(_) => StatusCode::NOT_FOUND,
            FileExists(_) | JobNotCancellable(_) => StatusCode::CONFLICT,
            Gone(_) => StatusCode::GONE,
            BodyTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            FfmpegFailed { .. } | ParseResponse | Processing { .. } | Internal(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            Upstream(_) => StatusCode::BAD_GATEWAY,
            Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    pub fn details(&self) -> Option<&str> {
        match self {
            AppError::FfmpegFailed { details, .. } | AppError::Processing { details, .. } => {
                details.as_deref()
            }
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

impl From<anyhow::Error> for AppError {
    fn from(e: anyhow::Error) -> Self {
        AppError::Internal(e)
    }
}

impl Scribe for AppError {
    fn render(self, res: &mut Response) {
        if let AppError::Internal(e) = &self {
            tracing::error!("internal error: {e:#}");
        }
        res.status_code(self.status());
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
            AppError::JobNotCancellable("processing".into()).to_string(),
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
