//! POST /ffmpeg/run, deprecated; its announced removal date (28 February 2026) has
//! passed. By default it answers 410 Gone naming the replacement. With `[compat] legacy_run =
//! true` it works as documented: multipart with a `command` field (JSON: inputs by `file`,
//! outputs) and one file part per input, named like it; the files go into a new temporary
//! directory and the task runs through the one pipeline. Beside a concat list, parts the
//! command does not declare are inputs too (the list names them).

use salvo::http::HeaderValue;
use salvo::prelude::*;
use serde::Deserialize;

use super::schemas::LegacyResponse;
use super::{account, state};
use crate::error::{AppError, AppResult};
use crate::task::{Task, TaskInput, TaskOutput};
use crate::{directories, files, names, pipeline};

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

#[endpoint(tags("deprecated"), status_codes(200, 400, 401, 403, 410, 429, 500), security(("api_key" = [])))]
async fn run(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> AppResult<Json<LegacyResponse>> {
    let state = state(depot);
    if !state.cfg.compat.legacy_run {
        return Err(AppError::LegacyRunRemoved);
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
        .ok_or(AppError::Required("command field"))?;
    let command: Command = serde_json::from_str(command)
        .map_err(|_| AppError::BadRequest("command is not valid JSON".into()))?;
    let dir = directories::create(&state, &account, directories::DEFAULT_TTL_S).await?;
    let mut inputs = Vec::new();
    let mut lists = false;
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
        lists |= pipeline::is_concat_list(&input.file, &input.options, part.path()).await?;
        files::store(&state, &dir.dir_id, &input.file, part.path(), &account).await?;
        inputs.push(TaskInput {
            file_path: format!("{}/{}", dir.dir_id, input.file),
            options: input.options.clone(),
        });
    }
    // The old clients' timelapses send their frames as parts that only a concat list names:
    // here the request's parts are the task's inputs, so the list may name them. Only beside a
    // list, so that a stray part never joins ffmpeg's choice of streams otherwise.
    if lists {
        let mut extra: Vec<(&String, _)> = form
            .files
            .iter()
            .filter(|(name, _)| !command.inputs.iter().any(|i| &i.file == *name))
            .collect();
        extra.sort_by(|a, b| a.0.cmp(b.0));
        extra.dedup_by(|a, b| a.0 == b.0);
        for (name, part) in extra {
            if !names::valid_file_name(name) {
                return Err(AppError::BadRequest(format!(
                    "Invalid input file name '{}'",
                    names::clip(name)
                )));
            }
            if part.size() > plan.max_file_size_bytes() {
                return Err(AppError::file_too_large(
                    name,
                    part.size(),
                    &plan_name,
                    plan.max_file_size_mb,
                ));
            }
            files::store(&state, &dir.dir_id, name, part.path(), &account).await?;
            inputs.push(TaskInput {
                file_path: format!("{}/{name}", dir.dir_id),
                options: Vec::new(),
            });
        }
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
        cache: true,
        split: true,
        export: None,
    };
    let done = pipeline::run_now(&state, &account, task).await?;
    Ok(Json(LegacyResponse {
        ok: true,
        result: pipeline::links(&state, &done.outputs)
            .await?
            .into_iter()
            .map(Into::into)
            .collect(),
        cache: done.cache,
    }))
}
