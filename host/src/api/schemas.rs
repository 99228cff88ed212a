//! The bodies handlers return, and the request shapes the OpenAPI document shows. Handlers build these types, so the document cannot drift from the
//! responses; requests are parsed field by field (for the API's exact messages) and documented here.

use std::collections::BTreeMap;

use salvo::oapi::{Components, Content, EndpointOutRegister, Operation, ToSchema};
use serde::Serialize;
use serde_json::Value;

pub use crate::cache::Outcome;
pub use crate::db::Progress;
use crate::error::AppError;
pub use crate::pipeline::OutputLink;
pub use crate::plugins::types::PolicyDecision;
use crate::task::{Generated, ProbeConfig, Task};
pub use crate::usage::{Estimate, Usage};

#[derive(Serialize, ToSchema)]
pub struct EstimateResponse {
    pub ok: bool,
    pub estimate: Estimate,
    pub quota: QuotaFit,
}

#[derive(Serialize, ToSchema)]
pub struct QuotaFit {
    pub remaining_gb: f64,
    /// Whether the inputs fit in what is left of this month's quota.
    pub fits: bool,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    /// Always false.
    pub ok: bool,
    pub error: String,
    /// A bounded, sanitised excerpt of the tool's error output, for some failures.
    pub details: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct ProcessRequest {
    pub task: Task,
    /// `false`: run even if an identical task's outputs are cached, and cache nothing.
    pub cache: Option<bool>,
    /// `false`: never encode the task in keyframe segments (`[split]`), even when it could be.
    pub split: Option<bool>,
}

#[derive(Serialize, ToSchema)]
pub struct ProcessResponse {
    pub ok: bool,
    pub result: Vec<OutputLink>,
    pub usage: Usage,
    /// `hit`: the outputs are copies of an identical earlier run's (no time charged).
    pub cache: Outcome,
}

#[derive(Serialize, ToSchema)]
pub struct ValidateResponse {
    pub ok: bool,
    /// The argv that would run, with your own file names.
    pub command: Vec<String>,
    pub decisions: Vec<PolicyDecision>,
    pub output_dir_id: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct AsyncRequest {
    pub task: Task,
    /// https and public; receives the job's completion or failure.
    pub webhook_url: Option<String>,
    /// `high`, `normal` (default) or `low`: order among this account's pending jobs.
    pub priority: Option<String>,
    /// `false`: run even if an identical task's outputs are cached, and cache nothing.
    pub cache: Option<bool>,
    /// `false`: never encode the task in keyframe segments (`[split]`), even when it could be.
    pub split: Option<bool>,
}

#[derive(Serialize, ToSchema)]
pub struct Accepted {
    pub ok: bool,
    pub job_id: String,
    /// `pending`.
    pub status: String,
    /// Natural-language submissions only: the derived task, or `{recipe}`: the recipe call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generated_command: Option<Generated>,
    /// high, normal or low.
    pub priority: String,
    /// What the job is expected to cost (as POST /ffmpeg/estimate answers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Estimate>,
}

/// The recipe a recipe job runs.
#[derive(Serialize, ToSchema)]
pub struct RecipeOfJob {
    pub name: String,
    #[salvo(schema(value_type = Object))]
    pub params: serde_json::Value,
}

#[derive(Serialize, ToSchema)]
pub struct JobView {
    /// False for failed and cancelled jobs.
    pub ok: bool,
    pub job_id: String,
    /// pending, processing, completed, failed or cancelled.
    pub status: String,
    /// high, normal or low.
    pub priority: String,
    /// While pending: how many jobs will run before it (accounts take turns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_position: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Estimate>,
    pub task: Task,
    /// Natural-language jobs only: the derived task, or `{recipe}`: the recipe call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generated_command: Option<Generated>,
    /// While processing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<Progress>,
    /// When completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Vec<OutputLink>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// When completed: the argv that ran, with your own file names (as the dry run shows it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// When completed: `hit` when the outputs came from the result cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<Outcome>,
    /// A recipe job: the recipe and its params (`task` then holds only the inputs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recipe: Option<RecipeOfJob>,
    /// A completed recipe job: what the recipe measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[salvo(schema(value_type = Option<Object>))]
    pub data: Option<Value>,
    /// A completed streaming recipe job: its master playlist or manifest's playback URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playback_url: Option<String>,
    /// When failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
    /// Delivery of the callback, when a webhook_url was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook: Option<WebhookView>,
}

#[derive(Serialize, ToSchema)]
pub struct WebhookView {
    pub url: Option<String>,
    /// pending, delivering, delivered or failed.
    pub state: String,
    pub attempts: u32,
    pub last_status: Option<u16>,
    pub last_error: Option<String>,
    pub delivered_at: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct JobEntry {
    pub id: String,
    pub status: String,
    pub priority: String,
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

/// GET /: the account a key belongs to, and its plan.
#[derive(Serialize, ToSchema)]
pub struct KeyOwner {
    pub ok: bool,
    pub account: String,
    pub plan: String,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// ffprobe's JSON, only the sections and fields asked for.
    pub result: Value,
    pub usage: Usage,
    /// Natural-language requests only.
    #[serde(skip_serializing_if = "Option::is_none")]
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
    /// Async variant only: `high`, `normal` (default) or `low`.
    pub priority: Option<String>,
    /// `false`: run even if an identical task's outputs are cached, and cache nothing.
    pub cache: Option<bool>,
    /// `false`: never encode the task in keyframe segments (`[split]`), even when it could be.
    pub split: Option<bool>,
}

/// POST /ai/ffmpeg/validate: the translated task with its dry run and estimate; nothing run
/// or charged, so the task can be checked before it is paid for.
#[derive(Serialize, ToSchema)]
pub struct AiValidateResponse {
    pub ok: bool,
    /// The derived task, or `{recipe}`: the call of a recipe over every input.
    pub generated_command: Generated,
    /// The argv that would run, with your own file names (a task; a recipe's are in `steps`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decisions: Option<Vec<PolicyDecision>>,
    /// A recipe: the steps it runs first, each built and checked (`/recipes/{name}/validate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<crate::recipes::StepReport>>,
    pub output_dir_id: Option<String>,
    pub estimate: Estimate,
    pub quota: QuotaFit,
}

#[derive(Serialize, ToSchema)]
pub struct AiProcessResponse {
    pub ok: bool,
    pub result: Vec<OutputLink>,
    pub usage: Usage,
    /// A recipe: `hit` only when every ffmpeg step came from the cache.
    pub cache: Outcome,
    /// The derived task, or `{recipe}`: the call of a recipe over every input.
    pub generated_command: Generated,
    /// A recipe: what it measured (`null` for none).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[salvo(schema(value_type = Option<Object>))]
    pub data: Option<Value>,
    /// A streaming recipe: its playlist or manifest, under the directory's playback prefix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playback_url: Option<String>,
}

/// POST /ffmpeg/run (deprecated).
#[derive(Serialize, ToSchema)]
pub struct LegacyResponse {
    pub ok: bool,
    pub result: Vec<LegacyOutput>,
    pub cache: Outcome,
}

/// An output as the old endpoint's clients read it: they take `file` as the URL (some read
/// `filename`), so both stand beside the current fields.
#[derive(Serialize, ToSchema)]
pub struct LegacyOutput {
    pub file_name: String,
    pub size_bytes: u64,
    pub download_url: String,
    /// The download URL again.
    pub file: String,
    /// The output's name again.
    pub filename: String,
}

impl From<OutputLink> for LegacyOutput {
    fn from(o: OutputLink) -> LegacyOutput {
        LegacyOutput {
            file: o.download_url.clone(),
            filename: o.file_name.clone(),
            file_name: o.file_name,
            size_bytes: o.size_bytes,
            download_url: o.download_url,
        }
    }
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
    pub headers: BTreeMap<String, String>,
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
pub struct PlanView {
    pub name: String,
    pub max_file_size_mb: f64,
    pub monthly_quota_gb: f64,
}

#[derive(Serialize, ToSchema)]
pub struct UsageResponse {
    pub ok: bool,
    /// `YYYY-MM` (UTC).
    pub month: String,
    pub plan: PlanView,
    pub usage: Usage,
    pub remaining_gb: f64,
}

/// The answer to a PUT on a presigned upload URL.
#[derive(Serialize, ToSchema)]
pub struct Uploaded {
    pub ok: bool,
    pub file_path: String,
    pub file_size: u64,
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
            (
                "429",
                "Rate limit exceeded, or too many concurrent tasks (with `Retry-After`)",
            ),
            ("500", "Processing failed or internal error"),
            ("502", "An input URL could not be fetched"),
            (
                "503",
                "Temporarily unavailable (file storage unreachable, with `Retry-After`), or no plugin is configured for the world",
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
