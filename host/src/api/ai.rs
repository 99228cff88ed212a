//! The natural-language endpoints (beta): the translator plugin turns the
//! instructions and facts about each input into a task or a probe configuration, which then
//! runs through the same pipeline as a hand-written one (validation, command builder, sandbox,
//! metering, quota) and is returned as `generated_command` / `generated_probe`.

use std::sync::Arc;

use salvo::prelude::*;
use serde_json::Value;

use super::jobs::{accepted, idempotency_key, priority, webhook_url};
use super::schemas::{Accepted, AiProcessResponse, ProbeResponse};
use super::{account, body_value, max_body, state};
use crate::app::AppState;
use crate::db::Account;
use crate::error::{AppError, AppResult};
use crate::jobs::{self, Submission};
use crate::media::inspect;
use crate::pipeline::{self, InputFile};
use crate::plugins::PluginError;
use crate::plugins::facts_from_probe;
use crate::task::{Source, Task, TaskInput, TaskOutput, source_of};
use crate::{directories, pipeline::probe};

const MAX_INSTRUCTIONS: usize = 2000;

pub fn router() -> Router {
    Router::with_path("ai")
        .push(
            Router::with_path("ffmpeg/process")
                .post(process)
                .push(Router::with_path("async").post(process_async)),
        )
        .push(Router::with_path("ffprobe/analyze").post(analyze))
}

fn instructions(body: &Value) -> AppResult<String> {
    match body
        .get("instructions")
        .and_then(Value::as_str)
        .map(str::trim)
    {
        Some(s) if !s.is_empty() && s.len() <= MAX_INSTRUCTIONS => Ok(s.to_string()),
        Some(s) if !s.is_empty() => Err(AppError::BadRequest(format!(
            "instructions are limited to {MAX_INSTRUCTIONS} characters"
        ))),
        _ => Err(AppError::Required("instructions")),
    }
}

fn translation_error(e: PluginError) -> AppError {
    match e {
        PluginError::Refused { message, .. } => {
            AppError::BadRequest(format!("Could not translate the instructions: {message}"))
        }
        other => other.into(),
    }
}

/// Resolves and imports the inputs, asks the translator for a task over them, and returns the
/// task as it will run (inputs as stored files, output directory fixed).
async fn translate(state: &AppState, account: &Account, body: &Value) -> AppResult<Task> {
    let instructions = instructions(body)?;
    let inputs: Vec<TaskInput> = match body.get("inputs") {
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|i| match i.get("file_path").and_then(Value::as_str) {
                Some(p) => Ok(TaskInput {
                    file_path: p.to_string(),
                    options: Vec::new(),
                }),
                None => Err(AppError::BadRequest("Each input needs a file_path".into())),
            })
            .collect::<AppResult<_>>()?,
        _ => {
            return Err(AppError::BadRequest(
                "inputs must be a non-empty array".into(),
            ));
        }
    };
    let output_dir_id = match body.get("output_dir_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            return Err(AppError::BadRequest(
                "output_dir_id must be a string".into(),
            ));
        }
    };
    // Inputs are checked and imported as for any task; the outputs are not known yet.
    let inputs_only = Task {
        inputs,
        outputs: vec![TaskOutput {
            file: "pending-translation".into(),
            options: vec![],
            maps: vec![],
        }],
        filter_complex: None,
        output_dir_id,
    };
    let resolved = pipeline::prepare(state, account, inputs_only).await?;
    let mut facts = Vec::new();
    let mut paths = Vec::new();
    for input in &resolved.inputs {
        let InputFile::Stored(file) = &input.file else {
            continue;
        };
        let probed = inspect::inspect(state, &account.name, file).await;
        facts.push(facts_from_probe(
            &file.file_name,
            file.size,
            probed.as_ref(),
        ));
        paths.push((
            file.file_name.clone(),
            format!("{}/{}", file.dir_id, file.file_name),
        ));
    }
    let mut generated = state
        .plugins
        .translate_task(&instructions, &facts)
        .await
        .map_err(translation_error)?;
    for input in &mut generated.inputs {
        let path = paths
            .iter()
            .find(|(name, _)| *name == input.file_path)
            .map(|(_, p)| p.clone());
        input.file_path = path.ok_or_else(|| {
            AppError::BadRequest(format!(
                "The translator referred to an unknown input '{}'",
                input.file_path
            ))
        })?;
    }
    generated.output_dir_id = resolved.output_dir.map(|d| d.dir_id);
    Ok(generated)
}

#[endpoint(tags("natural language"), request_body = super::schemas::AiProcessRequest, status_codes(200, 400, 401, 403, 404, 413, 500, 502, 503), security(("api_key" = [])))]
async fn process(req: &mut Request, depot: &mut Depot) -> AppResult<Json<AiProcessResponse>> {
    let state = state(depot);
    let account = account(depot);
    let body = body_value(req, max_body(&state)).await?;
    let admitted = pipeline::admit(&state, &account)?;
    let generated = translate(&state, &account, &body).await?;
    let done = pipeline::run_admitted(&state, &account, generated.clone(), &admitted).await?;
    Ok(Json(AiProcessResponse {
        ok: true,
        result: pipeline::links(&state, &done.outputs).await?,
        usage: done.usage,
        generated_command: generated,
    }))
}

#[endpoint(tags("natural language"), request_body = super::schemas::AiProcessRequest, responses((status_code = 202, body = Accepted)), status_codes(202, 400, 401, 403, 404, 413, 500, 502, 503), security(("api_key" = [])))]
async fn process_async(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> AppResult<Json<Accepted>> {
    let state: Arc<AppState> = state(depot);
    let account = account(depot);
    let body = body_value(req, max_body(&state)).await?;
    let hook = webhook_url(&body)?;
    let priority = priority(&body)?;
    let generated = translate(&state, &account, &body).await?;
    let job = jobs::submit(
        &state,
        Submission {
            account: &account,
            task: generated,
            webhook_url: hook,
            idempotency_key: idempotency_key(req),
            generated: true,
            priority,
        },
    )
    .await?;
    Ok(accepted(res, &job))
}

#[endpoint(tags("natural language"), request_body = super::schemas::AiProbeRequest, status_codes(200, 400, 401, 403, 404, 413, 500, 502, 503), security(("api_key" = [])))]
async fn analyze(req: &mut Request, depot: &mut Depot) -> AppResult<Json<ProbeResponse>> {
    let state = state(depot);
    let account = account(depot);
    let body = body_value(req, max_body(&state)).await?;
    let instructions = instructions(&body)?;
    let file_path = body
        .get("file_path")
        .and_then(Value::as_str)
        .ok_or(AppError::Required("file_path"))?
        .to_string();
    let facts = match source_of(&file_path).ok_or(AppError::InvalidFilePath)? {
        Source::Stored { dir_id, file_name } => {
            directories::owned(&state, &account, dir_id).await?;
            let file = state
                .db
                .file(dir_id, file_name)
                .await?
                .ok_or(AppError::FileNotFound)?;
            let probed = inspect::inspect(&state, &account.name, &file).await;
            facts_from_probe(file_name, file.size, probed.as_ref())
        }
        // A URL is analysed in place; the translator gets its name.
        Source::Url(raw) => facts_from_probe(raw.rsplit('/').next().unwrap_or("input"), 0, None),
    };
    let generated = state
        .plugins
        .translate_probe(&instructions, &facts)
        .await
        .map_err(translation_error)?;
    let probed = probe::analyze(&state, &account, &file_path, generated.clone()).await?;
    let mut out = super::probe::probed_body(probed);
    out.generated_probe = Some(generated);
    Ok(Json(out))
}
