//! The tools. Each parses its arguments as the API parses the matching request (the same
//! functions, so the same messages), calls the same function the HTTP handler calls, and returns
//! the API's response body as structured content. A refusal is a tool error (`isError`) whose
//! text is the API's message.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use salvo::hyper::http::request::Parts;
use salvo::oapi::ToSchema;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::schema;
use crate::accounts::Actor;
use crate::api::{self, from_value, schemas};
use crate::app::AppState;
use crate::db::Account;
use crate::error::{AppError, AppResult};
use crate::media::inspect;
use crate::task::{Source, Task, source_of};
use crate::{directories, names, pipeline};

/// One MCP server per request (stateless transport); they share the state.
#[derive(Clone)]
pub struct Tools {
    pub state: Arc<AppState>,
}

// ---- arguments that have no API request type of their own ------------------------------------

#[derive(Deserialize, ToSchema)]
struct DirArgs {
    /// Directory id.
    dir_id: String,
}

#[derive(Deserialize, ToSchema)]
struct FilePathArgs {
    /// `<dir_id>/<file_name>`.
    file_path: String,
}

#[derive(Deserialize, ToSchema)]
struct ResumableArgs {
    /// The file's name in its directory.
    file_name: String,
    /// The file's whole size in bytes (checked against the plan now).
    size_bytes: u64,
    /// Without it a new directory with a 24 h TTL is made.
    #[serde(default)]
    dir_id: Option<String>,
}

#[derive(Deserialize, ToSchema)]
struct ImportUrlArgs {
    /// An http(s) URL the server may fetch (public addresses only, at most the plan's file size).
    url: String,
    /// Without it a new directory with a 24 h TTL is made.
    #[serde(default)]
    dir_id: Option<String>,
    /// Without it the URL's last path segment, made unique in the directory.
    #[serde(default)]
    file_name: Option<String>,
}

/// `ask`: POST /ai/ffmpeg/validate's body (POST /ai/ffmpeg/process's with `run: true`).
#[derive(ToSchema)]
#[allow(dead_code)]
struct AskArgs {
    inputs: Vec<schemas::AiInput>,
    /// Plain language, up to 2000 characters.
    instructions: String,
    output_dir_id: Option<String>,
    /// `true`: run the translated task now and answer with its outputs. Default: answer with
    /// the translated task, its dry run and its estimate, nothing run or charged (check it, then
    /// call again with `run: true` or run `generated_command` with `process`).
    run: Option<bool>,
}

/// `ask`'s answer: always the translated task; its dry run and estimate, or (with `run: true`)
/// its outputs and usage.
#[derive(Serialize, ToSchema)]
struct AskResponse {
    ok: bool,
    /// Whether the task ran (`run: true`).
    ran: bool,
    /// The task, or `{recipe}`: a recipe called over every input.
    generated_command: crate::task::Generated,
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decisions: Option<Vec<crate::plugins::types::PolicyDecision>>,
    /// A recipe's dry run: the steps it runs first.
    #[serde(skip_serializing_if = "Option::is_none")]
    steps: Option<Vec<crate::recipes::StepReport>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    estimate: Option<crate::usage::Estimate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    quota: Option<schemas::QuotaFit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Vec<pipeline::OutputLink>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<crate::usage::Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache: Option<crate::cache::Outcome>,
    /// A recipe's data (what it measured).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[salvo(schema(value_type = Option<Object>))]
    data: Option<Value>,
    /// A streaming recipe's playlist or manifest.
    #[serde(skip_serializing_if = "Option::is_none")]
    playback_url: Option<String>,
}

/// `submit_job`: POST /ffmpeg/process/async's body, and its `Idempotency-Key` header.
#[derive(ToSchema)]
#[allow(dead_code)]
struct SubmitJobArgs {
    task: Task,
    /// https and public; receives the job's completion or failure.
    webhook_url: Option<String>,
    /// A repeated key (within 24 h) returns the first job instead of queueing another.
    idempotency_key: Option<String>,
}

#[derive(Deserialize, ToSchema)]
struct JobStatusArgs {
    /// Job id.
    job_id: String,
    /// Wait until the job ends (or `timeout_s` passes), with progress notifications.
    #[serde(default)]
    wait: Option<bool>,
    /// How long to wait, 1-240 s; default 60.
    #[serde(default)]
    timeout_s: Option<u64>,
}

/// `list_jobs`: GET /jobs's query parameters.
#[derive(ToSchema)]
#[allow(dead_code)]
struct ListJobsArgs {
    /// Comma-separated statuses: pending, processing, completed, failed, cancelled.
    status: Option<String>,
    /// 1-100, default 20.
    limit: Option<u32>,
    /// Default 0.
    offset: Option<u32>,
    /// created_at_desc (default) or created_at_asc.
    sort: Option<String>,
}

#[derive(Deserialize, ToSchema)]
struct JobIdArgs {
    /// Job id.
    job_id: String,
}

const WAIT_DEFAULT_S: u64 = 60;
/// Below the 300 s an HTTP client commonly waits for a quiet response.
const WAIT_MAX_S: u64 = 240;
const POLL: Duration = Duration::from_millis(500);

// ---- the catalogue -------------------------------------------------------------------------

/// Every tool: its name, what it does, and the schemas of its arguments and result.
pub fn catalogue() -> &'static [Tool] {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        use schemas::*;
        let read_only = || ToolAnnotations::new().read_only(true);
        let writes = || ToolAnnotations::new().read_only(false).destructive(false);
        vec![
            tool::<CreateDirectoryRequest, DirectoryResponse>(
                "create_directory",
                "Create a directory (a workspace that expires after `ttl` seconds, default 24 h) \
                 for uploads and outputs.",
                writes(),
            ),
            Tool::new(
                "list_directories",
                "List your live directories.",
                schema::no_arguments(),
            )
            .with_raw_output_schema(Arc::new(schema::of::<DirectoriesResponse>()))
            .annotate(read_only()),
            tool::<DirArgs, FilesResponse>(
                "list_files",
                "List the files of a directory.",
                read_only(),
            ),
            tool::<CreateFileRequest, CreateFileResponse>(
                "create_file",
                "Create a file record and get a presigned upload URL: PUT the raw bytes to \
                 `upload.url` with every header of `upload.headers`. The file path for tasks is \
                 `file.file_path`. For large files use `create_resumable_upload`.",
                writes(),
            ),
            tool::<ResumableArgs, api::tus::ResumableUpload>(
                "create_resumable_upload",
                "For a large file (over about 100 MB) or an unreliable network: make a resumable \
                 upload (the tus protocol) and get `upload_url`. PATCH the bytes there in chunks \
                 (say 8 MiB), each with the headers `Upload-Offset: <bytes the server holds>`, \
                 `Tus-Resumable: 1.0.0`, `Content-Type: application/offset+octet-stream` and \
                 this API key; after a cut, `HEAD upload_url` answers `Upload-Offset` to go on \
                 from. The file is ready at `file_path` when the last byte is in.",
                writes(),
            ),
            tool::<ImportUrlArgs, FileInfoResponse>(
                "import_url",
                "Fetch an http(s) URL and store its bytes as a file (in `dir_id`, or a new \
                 directory). Answers the new file's path, type and size.",
                writes().open_world(true),
            ),
            tool::<FilePathArgs, DownloadResponse>(
                "get_download_url",
                "A presigned download URL for a stored file (`<dir_id>/<file_name>`).",
                read_only(),
            ),
            tool::<FilePathArgs, DeleteFileResponse>(
                "delete_file",
                "Delete a stored file (`<dir_id>/<file_name>`).",
                ToolAnnotations::new().read_only(false).destructive(true),
            ),
            tool::<ProcessRequest, ValidateResponse>(
                "validate",
                "Dry run of a task: the ffmpeg argv that would run and each policy decision, \
                 without running or charging anything.",
                read_only(),
            ),
            tool::<ProcessRequest, EstimateResponse>(
                "estimate",
                "What a task would cost before running it: expected processing seconds, output \
                 bytes and GB-seconds (with a confidence and what it is based on), and whether \
                 its inputs fit this month's remaining quota. Runs nothing, charges nothing.",
                read_only(),
            ),
            tool::<ProcessRequest, ProcessResponse>(
                "process",
                "Run an ffmpeg task now and wait for it: inputs are `<dir_id>/<file_name>` paths \
                 or URLs, outputs are file names with options. Answers the outputs' download URLs \
                 and the usage. Sends progress notifications when the request has a progress \
                 token.",
                writes().open_world(true),
            ),
            tool::<ProbeRequest, ProbeResponse>(
                "probe",
                "ffprobe a stored file or a URL, returning only the sections and fields asked for.",
                read_only().open_world(true),
            ),
            tool::<AskArgs, AskResponse>(
                "ask",
                "Plain-language processing (beta): the instructions are translated into a task \
                 (returned as `generated_command`) with its dry run (`command`, `decisions`) and \
                 `estimate`, nothing run; with `run: true` it then runs like `process`. A named \
                 job (\"make it streamable\", \"draw the waveform\") is answered with a recipe \
                 (`generated_command.recipe`, its first `steps`; run: its `data` and \
                 `playback_url`). A request the translator cannot carry out in full is refused \
                 with what it did not understand or cannot do.",
                writes().open_world(true),
            ),
            tool::<AiProbeRequest, ProbeResponse>(
                "ask_probe",
                "Plain-language analysis (beta): the instructions are translated into a probe \
                 configuration (returned as `generated_probe`), which then runs like `probe`.",
                read_only().open_world(true),
            ),
            tool::<SubmitJobArgs, Accepted>(
                "submit_job",
                "Queue a task as an async job; follow it with `job_status`.",
                writes().open_world(true),
            ),
            tool::<JobStatusArgs, JobView>(
                "job_status",
                "A job's state, and its outputs once completed. With `wait: true`, waits until \
                 the job ends (at most `timeout_s`), sending progress notifications.",
                read_only(),
            ),
            Tool::new(
                "list_jobs",
                "List your jobs, newest first, optionally by status.",
                schema::of::<ListJobsArgs>(),
            )
            .with_raw_output_schema(Arc::new(schema::of::<JobList>()))
            .annotate(read_only()),
            tool::<JobIdArgs, Message>(
                "cancel_job",
                "Cancel a pending job.",
                ToolAnnotations::new().read_only(false).destructive(true),
            ),
        ]
    })
}

/// Recipes are tools named `recipe_<name>` (`GET /recipes`), listed from the recipe plugin.
const RECIPE_TOOL: &str = "recipe_";

/// A recipe as a tool: its inputs, its own params schema, and the recipe response.
fn recipe_tool(r: &crate::recipes::Entry) -> Tool {
    let input = serde_json::json!({
        "type": "object",
        "properties": {
            "inputs": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": r.min_inputs,
                "maxItems": r.max_inputs,
                "description": "`<dir_id>/<file_name>` paths or https URLs",
            },
            "params": r.params_schema,
            "output_dir_id": {"type": "string", "description": "Without it, a new directory"},
            "cache": {"type": "boolean", "description": "false: no step from the result cache"},
        },
        "required": ["inputs"],
    });
    let input = match input {
        Value::Object(map) => map,
        _ => unreachable!("built as an object"),
    };
    let name = format!("{RECIPE_TOOL}{}", r.name);
    let description = format!(
        "Recipe `{}`: {}. Runs every step now and answers the outputs, `data` and usage \
         (docs/recipes.md); example params: {}",
        r.name, r.description, r.example
    );
    Tool::new(name, description, Arc::new(input))
        .with_raw_output_schema(Arc::new(schema::of::<api::recipes::RecipeResponse>()))
        .annotate(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(false)
                .open_world(true),
        )
}

fn tool<I: ToSchema, O: ToSchema>(
    name: &'static str,
    description: &'static str,
    annotations: ToolAnnotations,
) -> Tool {
    Tool::new(name, description, schema::of::<I>())
        .with_raw_output_schema(Arc::new(schema::of::<O>()))
        .annotate(annotations)
}

// ---- the server ----------------------------------------------------------------------------

impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("mediaforge", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Mediaforge processes media with ffmpeg in a sandbox. Upload with create_file \
                 (then PUT the bytes) or import_url; run tasks with process (or submit_job and \
                 job_status); inspect with probe; describe work in plain language with ask. \
                 Files are addressed as <dir_id>/<file_name>.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = catalogue().to_vec();
        // A recipe plugin that cannot answer leaves the fixed tools listed.
        match crate::recipes::list(&self.state).await {
            Ok(recipes) => tools.extend(recipes.iter().map(recipe_tool)),
            Err(e) => tracing::warn!("recipe tools not listed: {e}"),
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        catalogue().iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // Put there by the route, after authentication.
        let account = context
            .extensions
            .get::<Parts>()
            .and_then(|p| p.extensions.get::<Account>())
            .cloned()
            .ok_or_else(|| ErrorData::internal_error("unauthenticated call", None))?;
        let actor = context
            .extensions
            .get::<Parts>()
            .and_then(|p| p.extensions.get::<Actor>())
            .cloned()
            .ok_or_else(|| ErrorData::internal_error("unauthenticated call", None))?;
        if !catalogue().iter().any(|t| t.name == request.name)
            && !request.name.starts_with(RECIPE_TOOL)
        {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool '{}'", request.name),
                None,
            ));
        }
        let args = Value::Object(request.arguments.unwrap_or_default());
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| Progress::new(context.peer.clone(), token));
        let started = Instant::now();
        let outcome = tokio::select! {
            outcome = self.call(&request.name, args, &account, &actor, progress) => outcome,
            // A cancelled call is dropped, which stops its ffmpeg (the runner kills the group).
            _ = context.ct.cancelled() => Err(AppError::BadRequest("Cancelled".into())),
        };
        tracing::info!(
            tool = %request.name,
            account = account.name,
            ok = outcome.is_ok(),
            ms = started.elapsed().as_millis() as u64,
            "mcp tool call"
        );
        Ok(match outcome {
            Ok(body) => CallToolResult::structured(body),
            Err(e) => refusal(e),
        }
        .into())
    }
}

/// The API's message as a tool error (and the sanitised details, when there are some).
fn refusal(e: AppError) -> CallToolResult {
    if let AppError::Internal(inner) = &e {
        tracing::error!("internal error: {inner:#}");
    }
    let mut content = vec![ContentBlock::text(e.to_string())];
    if let Some(details) = e.details() {
        content.push(ContentBlock::text(details));
    }
    CallToolResult::error(content)
}

fn body<T: Serialize>(value: T) -> AppResult<Value> {
    serde_json::to_value(value).map_err(|e| AppError::Internal(e.into()))
}

/// `<dir_id>/<file_name>` of a tool's `file_path`.
fn split_path(file_path: &str) -> AppResult<(&str, &str)> {
    names::split_file_path(file_path).ok_or(AppError::InvalidFilePath)
}

impl Tools {
    async fn call(
        &self,
        name: &str,
        args: Value,
        account: &Account,
        actor: &Actor,
        progress: Option<Progress>,
    ) -> AppResult<Value> {
        let state = &self.state;
        match name {
            "create_directory" => body(api::directories::create_of(state, account, args).await?),
            "list_directories" => body(api::directories::list_of(state, account).await?),
            "list_files" => {
                let a: DirArgs = from_value(args)?;
                body(api::directories::files_of(state, account, &a.dir_id).await?)
            }
            "create_file" => body(api::files::create_upload(state, account, args).await?),
            "create_resumable_upload" => {
                let a: ResumableArgs = from_value(args)?;
                body(
                    api::tus::create_of(
                        state,
                        account,
                        &a.file_name,
                        a.dir_id.as_deref(),
                        a.size_bytes,
                    )
                    .await?,
                )
            }
            "import_url" => {
                let a: ImportUrlArgs = from_value(args)?;
                let file = pipeline::import_url(
                    state,
                    account,
                    &a.url,
                    a.dir_id.as_deref(),
                    a.file_name.as_deref(),
                )
                .await?;
                body(api::files::info_of(state, account, file).await?)
            }
            "get_download_url" => {
                let a: FilePathArgs = from_value(args)?;
                let (dir_id, file_name) = split_path(&a.file_path)?;
                body(api::files::download_of(state, account, dir_id, file_name).await?)
            }
            "delete_file" => {
                let a: FilePathArgs = from_value(args)?;
                let (dir_id, file_name) = split_path(&a.file_path)?;
                body(api::files::delete_of(state, account, actor, dir_id, file_name).await?)
            }
            "validate" => {
                let task = api::process::task_from(&args)?;
                body(api::process::dry_run_task(state, account, task).await?)
            }
            "estimate" => {
                let task = api::process::task_from(&args)?;
                body(api::process::estimate_task(state, account, task).await?)
            }
            "process" => {
                let task = api::process::task_from(&args)?;
                let Some(progress) = progress else {
                    return body(api::process::run_task(state, account, task, None).await?);
                };
                let (tx, rx) = watch::channel(0u64);
                let total = tokio::spawn(first_input_duration(
                    state.clone(),
                    account.clone(),
                    task.inputs.first().map(|i| i.file_path.clone()),
                ));
                let reporter = tokio::spawn(progress.ffmpeg(rx, total));
                let done = api::process::run_task(state, account, task, Some(tx)).await;
                reporter.abort();
                body(done?)
            }
            "probe" => {
                let (file_path, probe) = api::probe::probe_request(&args)?;
                let probed = pipeline::probe::analyze(state, account, &file_path, probe).await?;
                body(api::probe::probed_body(probed))
            }
            "ask" => match args.get("run") {
                None | Some(Value::Null) | Some(Value::Bool(false)) => {
                    // Boxed: the debug build's tool-call future would outgrow its stack with
                    // both branches inline.
                    let checked =
                        Box::pin(api::ai::validate_request(state, account, &args)).await?;
                    body(AskResponse {
                        ok: true,
                        ran: false,
                        generated_command: checked.generated_command,
                        command: checked.command,
                        decisions: checked.decisions,
                        steps: checked.steps,
                        estimate: Some(checked.estimate),
                        quota: Some(checked.quota),
                        result: None,
                        usage: None,
                        cache: None,
                        data: None,
                        playback_url: None,
                    })
                }
                Some(Value::Bool(true)) => {
                    let done = Box::pin(api::ai::run_request(state, account, &args)).await?;
                    body(AskResponse {
                        ok: true,
                        ran: true,
                        generated_command: done.generated_command,
                        command: None,
                        decisions: None,
                        steps: None,
                        estimate: None,
                        quota: None,
                        result: Some(done.result),
                        usage: Some(done.usage),
                        cache: Some(done.cache),
                        data: done.data,
                        playback_url: done.playback_url,
                    })
                }
                Some(_) => Err(AppError::BadRequest("run must be a boolean".into())),
            },
            "ask_probe" => body(api::ai::probe_request(state, account, &args).await?),
            "submit_job" => {
                let key = match args.get("idempotency_key") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(k)) => Some(k.clone()),
                    Some(_) => {
                        return Err(AppError::BadRequest(
                            "idempotency_key must be a string".into(),
                        ));
                    }
                };
                let job = api::jobs::submit_of(state, account, &args, key).await?;
                body(api::jobs::accepted_body(&job))
            }
            "job_status" => {
                let a: JobStatusArgs = from_value(args)?;
                body(self.job_status(account, a, progress).await?)
            }
            "list_jobs" => {
                // The query parameters as a URL would carry them, so they are checked alike.
                let q = |key: &str| match args.get(key) {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(Value::Array(items)) => Some(
                        items
                            .iter()
                            .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                            .collect::<Vec<_>>()
                            .join(","),
                    ),
                    Some(other) => Some(other.to_string()),
                };
                body(api::jobs::list_of(state, account, &q).await?)
            }
            "cancel_job" => {
                let a: JobIdArgs = from_value(args)?;
                body(api::jobs::cancel_of(state, account, actor, &a.job_id).await?)
            }
            other => match other.strip_prefix(RECIPE_TOOL) {
                Some(recipe) => {
                    let request = api::recipes::request(recipe, &args)?;
                    body(Box::pin(api::recipes::run_recipe(state, account, &request)).await?)
                }
                None => Err(AppError::BadRequest(format!("Unknown tool '{other}'"))),
            },
        }
    }

    /// GET /job/{job_id}; with `wait`, polled until the job ends or the time is up.
    async fn job_status(
        &self,
        account: &Account,
        a: JobStatusArgs,
        mut progress: Option<Progress>,
    ) -> AppResult<schemas::JobView> {
        let state = &self.state;
        let timeout = match a.timeout_s {
            None => WAIT_DEFAULT_S,
            Some(t) if (1..=WAIT_MAX_S).contains(&t) => t,
            Some(_) => {
                return Err(AppError::BadRequest(format!(
                    "timeout_s must be from 1 to {WAIT_MAX_S}"
                )));
            }
        };
        let mut job = api::jobs::owned_job(state, account, &a.job_id).await?;
        if a.wait == Some(true) {
            let _permit = state
                .tenants
                .admit_watcher(&account.name, state.cfg.jobs.max_watchers_per_account)?;
            let deadline = Instant::now() + Duration::from_secs(timeout);
            // Woken when the job changes (the live query on `job`), else every `POLL`.
            let mut changes = state.wakers.changed.0.subscribe();
            while !job.status.is_terminal() && Instant::now() < deadline {
                if let (Some(p), Some(now)) = (progress.as_mut(), job.progress) {
                    // Seconds of media processed, against the total the percentage implies.
                    let total = now
                        .percent
                        .filter(|pc| *pc > 0.0)
                        .map(|pc| (now.processed_sec * 100.0 / pc).round());
                    p.send(now.processed_sec, total).await;
                }
                let left = deadline.saturating_duration_since(Instant::now());
                tokio::select! {
                    () = tokio::time::sleep(POLL.min(left)) => {}
                    () = crate::jobs::Changed::of(&mut changes, &a.job_id) => {}
                }
                job = api::jobs::owned_job(state, account, &a.job_id).await?;
            }
        }
        api::jobs::job_view(state, &job).await
    }
}

/// Progress notifications for one call: only ever increasing, as MCP asks.
struct Progress {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    last: f64,
}

impl Progress {
    fn new(peer: Peer<RoleServer>, token: ProgressToken) -> Progress {
        Progress {
            peer,
            token,
            last: 0.0,
        }
    }

    /// `seconds` of media processed (of about `total`).
    async fn send(&mut self, seconds: f64, total: Option<f64>) {
        if seconds <= self.last {
            return;
        }
        self.last = seconds;
        let mut note = ProgressNotificationParam::new(self.token.clone(), seconds);
        note = match total.filter(|t| *t >= seconds) {
            Some(total) => note
                .with_total(total)
                .with_message(format!("{seconds} s of about {total} s processed")),
            None => note.with_message(format!("{seconds} s processed")),
        };
        // A client that went away gets no more; the work itself goes on (or is dropped).
        let _ = self.peer.notify_progress(note).await;
    }

    /// Media seconds ffmpeg has processed (microseconds in `rx`), twice a second at most,
    /// until the run ends; against the first input's duration once `total` has found it.
    async fn ffmpeg(mut self, mut rx: watch::Receiver<u64>, total: JoinHandle<Option<f64>>) {
        let mut total = Some(total);
        let mut known = None;
        while rx.changed().await.is_ok() {
            if total.as_ref().is_some_and(|t| t.is_finished()) {
                known = total.take().expect("checked").await.ok().flatten();
            }
            let seconds = (*rx.borrow_and_update() as f64 / 1e4).round() / 100.0;
            self.send(seconds, known.map(|d| (d * 100.0).round() / 100.0))
                .await;
            tokio::time::sleep(POLL).await;
        }
        if let Some(t) = total {
            t.abort();
        }
    }
}

/// The duration of a task's first input when it is a stored file of the caller's (what the
/// progress of a job is reckoned against too); `None` for a URL or anything unreadable.
async fn first_input_duration(
    state: Arc<AppState>,
    account: Account,
    file_path: Option<String>,
) -> Option<f64> {
    let Some(Source::Stored { dir_id, file_name }) = source_of(file_path.as_deref()?) else {
        return None;
    };
    directories::owned(&state, &account, dir_id).await.ok()?;
    let file = state.db.file(dir_id, file_name).await.ok()??;
    inspect::duration_of(&inspect::inspect(&state, &account.name, &file).await?)
}

/// Arguments parsed alone, for the unit tests.
#[cfg(test)]
fn parse_args(value: Value) -> AppResult<JobStatusArgs> {
    from_value(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_tool_has_object_schemas() {
        let names: Vec<&str> = catalogue().iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "create_directory",
                "list_directories",
                "list_files",
                "create_file",
                "create_resumable_upload",
                "import_url",
                "get_download_url",
                "delete_file",
                "validate",
                "estimate",
                "process",
                "probe",
                "ask",
                "ask_probe",
                "submit_job",
                "job_status",
                "list_jobs",
                "cancel_job"
            ]
        );
        for t in catalogue() {
            assert_eq!(t.input_schema["type"], "object", "{}", t.name);
            let out = t.output_schema.as_ref().expect("an output schema");
            assert_eq!(out["type"], "object", "{}", t.name);
            assert!(out["properties"].get("ok").is_some(), "{}", t.name);
        }
    }

    #[test]
    fn arguments_are_checked_with_the_api_messages() {
        let err = parse_args(json!({"job_id": 5})).err().expect("refused");
        assert!(
            err.to_string().starts_with("Invalid field 'job_id'"),
            "{err}"
        );
        let err = parse_args(json!({})).err().expect("refused");
        assert!(err.to_string().contains("job_id"), "{err}");
        assert!(matches!(
            split_path("../etc/passwd"),
            Err(AppError::InvalidFilePath)
        ));
    }
}
