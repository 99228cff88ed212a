//! Shapes of request and response bodies as the OpenAPI document shows them (spec sections 2
//! and 4). Handlers build their JSON directly; these types only document it, and the black-box
//! tests hold the two together.

#![allow(dead_code)]

use salvo::oapi::{Components, Content, EndpointOutRegister, Operation, ToSchema};
use serde::Serialize;
use serde_json::Value;

use crate::error::AppError;
use crate::task::{ProbeConfig, Task};

#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    /// Always false.
    pub ok: bool,
    pub error: String,
    /// A bounded, sanitised excerpt of the tool's error output, for some failures.
    pub details: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct Usage {
    pub time_sec: f64,
    pub input_size_gb: f64,
    pub output_size_gb: f64,
    pub gb_sec: f64,
}

#[derive(Serialize, ToSchema)]
pub struct OutputFile {
    pub file_name: String,
    pub size_bytes: u64,
    /// Presigned GET URL, valid `storage.download_url_ttl_s` seconds.
    pub download_url: String,
}

#[derive(Serialize, ToSchema)]
pub struct ProcessRequest {
    pub task: Task,
}

#[derive(Serialize, ToSchema)]
pub struct ProcessResponse {
    pub ok: bool,
    pub result: Vec<OutputFile>,
    pub usage: Usage,
}

#[derive(Serialize, ToSchema)]
pub struct Decision {
    pub subject: String,
    pub allowed: bool,
    pub reason: String,
}

#[derive(Serialize, ToSchema)]
pub struct ValidateResponse {
    pub ok: bool,
    /// The argv that would run, with your own file names.
    pub command: Vec<String>,
    pub decisions: Vec<Decision>,
    pub output_dir_id: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct AsyncRequest {
    pub task: Task,
    /// https and public; receives the job's completion or failure.
    pub webhook_url: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct Accepted {
    pub ok: bool,
    pub job_id: String,
    /// `pending`.
    pub status: String,
    /// Natural-language submissions only: the derived task.
    pub generated_command: Option<Task>,
}

#[derive(Serialize, ToSchema)]
pub struct JobView {
    /// False for failed and cancelled jobs.
    pub ok: bool,
    pub job_id: String,
    /// pending, processing, completed, failed or cancelled.
    pub status: String,
    pub task: Option<Task>,
    /// While processing: `processed_sec` and `percent`.
    pub progress: Option<Value>,
    /// When completed.
    pub result: Option<Vec<OutputFile>>,
    pub usage: Option<Usage>,
    /// When failed.
    pub error: Option<String>,
    pub details: Option<String>,
    /// Delivery of the callback, when a webhook_url was given.
    pub webhook: Option<Value>,
}

#[derive(Serialize, ToSchema)]
pub struct JobEntry {
    pub id: String,
    pub status: String,
    pub webhook_url: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub completed_at: Option<String>,
    pub input_count: u32,
    pub output_count: u32,
    pub has_error: bool,
}

#[derive(Serialize, ToSchema)]
pub struct Pagination {
    pub total: u64,
    pub limit: u32,
    pub offset: u32,
    pub has_more: bool,
}

#[derive(Serialize, ToSchema)]
pub struct JobList {
    pub ok: bool,
    pub jobs: Vec<JobEntry>,
    pub pagination: Pagination,
}

#[derive(Serialize, ToSchema)]
pub struct Message {
    pub ok: bool,
    pub message: String,
}

#[derive(Serialize, ToSchema)]
pub struct ProbeRequest {
    /// `<dir_id>/<file_name>` or an https URL (analysed in place, not imported).
    pub file_path: String,
    pub probe: ProbeConfig,
}

#[derive(Serialize, ToSchema)]
pub struct ProbeResponse {
    pub ok: bool,
    /// When ffprobe could not read the input.
    pub error: Option<String>,
    /// ffprobe's JSON, only the sections and fields asked for.
    pub result: Value,
    pub usage: Usage,
    /// Natural-language requests only.
    pub generated_probe: Option<ProbeConfig>,
}

#[derive(Serialize, ToSchema)]
pub struct AiInput {
    pub file_path: String,
}

#[derive(Serialize, ToSchema)]
pub struct AiProcessRequest {
    pub inputs: Vec<AiInput>,
    /// Plain language, up to 2000 characters.
    pub instructions: String,
    pub output_dir_id: Option<String>,
    /// Async variant only.
    pub webhook_url: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct AiProcessResponse {
    pub ok: bool,
    pub result: Vec<OutputFile>,
    pub usage: Usage,
    pub generated_command: Task,
}

#[derive(Serialize, ToSchema)]
pub struct AiProbeRequest {
    pub file_path: String,
    pub instructions: String,
}

#[derive(Serialize, ToSchema)]
pub struct CreateFileRequest {
    /// 1-255 bytes, no `/`, no control characters, not `.` or `..`.
    pub file_name: String,
    /// Without it a new directory with a 24 h TTL is made.
    pub dir_id: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct FileRecord {
    pub dir_id: String,
    pub added_on: String,
    pub file_name: String,
    pub file_path: String,
}

#[derive(Serialize, ToSchema)]
pub struct Upload {
    /// PUT the raw bytes here, with every header of `headers`.
    pub url: String,
    pub method: String,
    pub headers: std::collections::BTreeMap<String, String>,
    #[serde(rename = "expiresInSeconds")]
    pub expires_in_seconds: u64,
}

#[derive(Serialize, ToSchema)]
pub struct CreateFileResponse {
    pub ok: bool,
    pub file: FileRecord,
    pub upload: Upload,
}

#[derive(Serialize, ToSchema)]
pub struct Download {
    pub url: String,
    pub method: String,
    #[serde(rename = "expiresInSeconds")]
    pub expires_in_seconds: u64,
    pub file_path: String,
    pub file_size: u64,
    pub file_type: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct DownloadResponse {
    pub ok: bool,
    pub download: Download,
}

#[derive(Serialize, ToSchema)]
pub struct FileInfo {
    pub file_path: String,
    pub file_type: Option<String>,
    pub file_size: u64,
}

#[derive(Serialize, ToSchema)]
pub struct FileInfoResponse {
    pub ok: bool,
    pub file_info: FileInfo,
}

#[derive(Serialize, ToSchema)]
pub struct FilePath {
    pub file_path: String,
}

#[derive(Serialize, ToSchema)]
pub struct DeleteFileResponse {
    pub ok: bool,
    pub deleted: FilePath,
}

#[derive(Serialize, ToSchema)]
pub struct CreateDirectoryRequest {
    /// Seconds, 1-604800; default 86400.
    pub ttl: Option<u64>,
}

#[derive(Serialize, ToSchema)]
pub struct DirectorySummary {
    pub id: String,
    pub ttl: u64,
}

#[derive(Serialize, ToSchema)]
pub struct DirectoryResponse {
    pub ok: bool,
    pub directory: DirectorySummary,
}

#[derive(Serialize, ToSchema)]
pub struct DirectoryEntry {
    pub id: String,
    pub ttl: u64,
    pub added_on: String,
}

#[derive(Serialize, ToSchema)]
pub struct DirectoriesResponse {
    pub ok: bool,
    pub directories: Vec<DirectoryEntry>,
}

#[derive(Serialize, ToSchema)]
pub struct FileEntry {
    pub file_name: String,
    pub added_on: String,
}

#[derive(Serialize, ToSchema)]
pub struct FilesResponse {
    pub ok: bool,
    pub files: Vec<FileEntry>,
}

#[derive(Serialize, ToSchema)]
pub struct UsageResponse {
    pub ok: bool,
    /// `YYYY-MM` (UTC).
    pub month: String,
    pub plan: Value,
    pub usage: Value,
    pub remaining_gb: f64,
}

/// Every endpoint may answer with the error shape; which statuses apply is narrowed per endpoint.
impl EndpointOutRegister for AppError {
    fn register(components: &mut Components, operation: &mut Operation) {
        let schema = ErrorBody::to_schema(components);
        for (code, what) in [
            (
                "400",
                "Invalid request (JSON, fields, file_path, names, policy, translation)",
            ),
            ("401", "Invalid or missing API key"),
            (
                "403",
                "Quota exceeded, file over the plan's size, or another account's directory",
            ),
            ("404", "Directory, file or job not found"),
            ("409", "Name already exists, or the job is not pending"),
            ("410", "Removed endpoint"),
            (
                "413",
                "Request body is too large (`server.max_json_body_kb`)",
            ),
            ("500", "Processing failed or internal error"),
            ("502", "An input URL could not be fetched"),
            (
                "503",
                "Temporarily unavailable, or no plugin is configured for the world",
            ),
        ] {
            operation.responses.insert(
                code,
                salvo::oapi::Response::new(what)
                    .add_content("application/json", Content::new(schema.clone())),
            );
        }
    }
}
