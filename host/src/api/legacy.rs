//! POST /ffmpeg/run (spec 4.2), deprecated; its announced removal date (28 February 2026) has
//! passed. By default it answers 410 Gone naming the replacement. With `[compat] legacy_run =
//! true` it works as documented: multipart with a `command` field (JSON: inputs by `file`,
//! outputs) and one file part per input, named like it; the files go into a new temporary
//! directory and the task runs through the same validation, sandbox and metering.

use salvo::http::HeaderValue;
use salvo::prelude::*;
use serde::Deserialize;
use serde_json::{Value, json};

use super::directories::{DEFAULT_TTL_S, new_directory};
use super::{account, state};
use crate::clock;
use crate::db::{FileRecord, FileState};
use crate::error::{AppError, AppResult};
use crate::media::task;
use crate::metering;
use crate::names;
use crate::task::{Task, TaskInput, TaskOutput};

const REPLACEMENT: &str = "POST /ffmpeg/run was removed on 28 February 2026. Use POST /file, PUT the bytes to the upload URL, then POST /ffmpeg/process";

pub fn router() -> Router {
    Router::with_path("ffmpeg/run").post(run)
}

#[derive(Deserialize)]
struct Command {
    inputs: Vec<LegacyIo>,
    outputs: Vec<LegacyIo>,
}

#[derive(Deserialize)]
struct LegacyIo {
    file: String,
    #[serde(default)]
    options: Vec<String>,
}

#[endpoint(tags("deprecated"), responses((status_code = 200, body = super::schemas::ProcessResponse)), status_codes(200, 400, 401, 403, 410, 500), security(("api_key" = [])))]
async fn run(req: &mut Request, depot: &mut Depot, res: &mut Response) -> AppResult<Json<Value>> {
    let state = state(depot);
    if !state.cfg.compat.legacy_run {
        return Err(AppError::Gone(REPLACEMENT.into()));
    }
    // RFC 9745 / RFC 8594: deprecated since the announcement, sunset on the removal date.
    res.headers_mut()
        .insert("deprecation", HeaderValue::from_static("@1767225600"));
    res.headers_mut().insert(
        "sunset",
        HeaderValue::from_static("Sat, 28 Feb 2026 00:00:00 GMT"),
    );
    let account = account(depot);
    let (plan_name, plan) = state.plan_of(&account)?;
    let limit = plan
        .max_file_size_bytes()
        .saturating_mul(state.cfg.limits.max_inputs as u64) as usize;
    let form = req
        .form_data_max_size(limit)
        .await
        .map_err(|e| AppError::BadRequest(format!("Invalid multipart body: {e}")))?;
    let command = form
        .fields
        .get("command")
        .ok_or_else(|| AppError::BadRequest("command field is required".into()))?;
    let command: Command = serde_json::from_str(command)
        .map_err(|_| AppError::BadRequest("command is not valid JSON".into()))?;
    let dir = new_directory(&state, &account, DEFAULT_TTL_S).await?;
    let mut inputs = Vec::new();
    for input in &command.inputs {
        if !names::valid_file_name(&input.file) {
            return Err(AppError::BadRequest(format!(
                "Invalid input file name '{}'",
                input.file
            )));
        }
        let part = form
            .files
            .get(&input.file)
            .ok_or_else(|| AppError::BadRequest(format!("No file part named '{}'", input.file)))?;
        if part.size() > plan.max_file_size_bytes() {
            return Err(AppError::file_too_large(
                &input.file,
                part.size(),
                &plan_name,
                plan.max_file_size_mb,
            ));
        }
        let record = FileRecord {
            object_id: names::random_id(32),
            dir_id: dir.dir_id.clone(),
            file_name: input.file.clone(),
            state: FileState::Pending,
            size: 0,
            content_type: None,
            added_at: clock::now_ms(),
        };
        state.db.create_file(&record).await?;
        let size = state.store.put_file(&record.object_id, part.path()).await?;
        let content_type = super::blob::guess_type(&input.file);
        state
            .db
            .mark_uploaded(&record.object_id, size, content_type.as_deref())
            .await?;
        inputs.push(TaskInput {
            file_path: format!("{}/{}", dir.dir_id, input.file),
            options: input.options.clone(),
        });
    }
    let task = Task {
        inputs,
        outputs: command
            .outputs
            .iter()
            .map(|o| TaskOutput {
                file: o.file.clone(),
                options: o.options.clone(),
                maps: Vec::new(),
            })
            .collect(),
        filter_complex: None,
        output_dir_id: Some(dir.dir_id.clone()),
    };
    let resolved = task::resolve(&state, &account, task).await?;
    let done = task::execute(&state, &resolved, None).await?;
    metering::charge(
        &state,
        &account.name,
        done.input_bytes,
        done.output_bytes,
        &done.usage,
    )
    .await?;
    Ok(Json(json!({ "ok": true, "result": done.result })))
}
