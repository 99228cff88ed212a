//! The recipes (beyond the spec, `docs/recipes.md`): `GET /recipes` lists what the recipe
//! plugin offers, `POST /recipes/{name}` runs one now, `POST /recipes/{name}/validate` shows
//! the steps it would run first, each built and checked, nothing run or charged.

use std::sync::Arc;

use salvo::oapi::ToSchema;
use salvo::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::jobs::{accepted, idempotency_key, priority, webhook_url};
use super::process::quota_fit;
use super::schemas::{Accepted, EstimateResponse};
use super::{account, body_value, max_body, state};
use crate::app::AppState;
use crate::db::Account;
use crate::error::{AppError, AppResult};
use crate::jobs::{self, Submission};
use crate::pipeline::{self, OutputLink};
use crate::recipes::{self, Entry, FirstRound, StepReport};
use crate::task::Task;
use crate::usage::Usage;

pub fn router() -> Router {
    Router::with_path("recipes").get(list).push(
        Router::with_path("{name}")
            .get(show)
            .post(run)
            .push(Router::with_path("async").post(submit))
            .push(Router::with_path("validate").post(validate))
            .push(Router::with_path("estimate").post(cost)),
    )
}

#[derive(Serialize, ToSchema)]
pub struct RecipeList {
    pub ok: bool,
    pub recipes: Vec<Entry>,
}

#[derive(Serialize, ToSchema)]
pub struct RecipeShown {
    pub ok: bool,
    pub recipe: Entry,
}

/// `POST /recipes/{name}`'s body.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)] // the schema of the body, which is read as JSON (`request`)
pub struct RecipeRequest {
    /// `<dir_id>/<file_name>` or https URLs (strings, or `{file_path}` objects as tasks have).
    pub inputs: Vec<Value>,
    /// The recipe's parameters, checked against its `params_schema`.
    #[salvo(schema(value_type = Object))]
    pub params: Option<Value>,
    pub output_dir_id: Option<String>,
    /// `false`: no step is answered from the result cache.
    pub cache: Option<bool>,
    /// `/async` only: https and public; receives the job's completion or failure.
    pub webhook_url: Option<String>,
    /// `/async` only: high, normal (default) or low.
    pub priority: Option<String>,
    /// Every file the recipe wrote copied to a bucket of yours (`POST /credentials`).
    pub export: Option<crate::task::Export>,
}

#[derive(Serialize, ToSchema)]
pub struct RecipeResponse {
    pub ok: bool,
    /// Every file the recipe wrote, in its output directory.
    pub result: Vec<OutputLink>,
    /// What the recipe measured (`null` for none).
    #[salvo(schema(value_type = Object))]
    pub data: Value,
    pub usage: Usage,
    pub output_dir_id: String,
    /// For streaming recipes: the master playlist or manifest, under the directory's playback
    /// prefix, where every file it names resolves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playback_url: Option<String>,
    /// Each step as it ran.
    pub steps: Vec<StepReport>,
}

#[derive(Serialize, ToSchema)]
pub struct RecipeValidateResponse {
    pub ok: bool,
    /// The steps the recipe runs first, each with its command and the builder's decisions.
    /// Steps that depend on what these measure are planned only when the recipe runs.
    pub steps: Vec<StepReport>,
}

/// The request as the domain takes it; the messages name the field.
pub fn request(name: &str, body: &Value) -> AppResult<recipes::Request> {
    let inputs: Vec<String> = match body.get("inputs") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(s.clone()),
                other => other
                    .get("file_path")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| {
                        AppError::BadRequest(
                            "Each input must be a file path or an object with a file_path".into(),
                        )
                    }),
            })
            .collect::<AppResult<_>>()?,
        None | Some(Value::Null) => Vec::new(),
        Some(_) => return Err(AppError::BadRequest("inputs must be an array".into())),
    };
    let params = match body.get("params") {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(p @ Value::Object(_)) => p.clone(),
        Some(_) => return Err(AppError::BadRequest("params must be an object".into())),
    };
    let output_dir_id = super::output_dir_id(body)?;
    let cache = match body.get("cache") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(AppError::FlagType("cache")),
    };
    let export = match body.get("export") {
        None | Some(Value::Null) => None,
        Some(e) => Some(super::from_value(e.clone())?),
    };
    Ok(recipes::Request {
        name: name.to_string(),
        inputs,
        params,
        output_dir_id,
        cache,
        export,
    })
}

/// Runs a recipe now (the handler and the MCP recipe tools).
pub async fn run_recipe(
    state: &Arc<AppState>,
    account: &Account,
    req: &recipes::Request,
) -> AppResult<RecipeResponse> {
    let admitted = pipeline::admit(state, account)?;
    run_admitted(state, account, req, &admitted).await
}

/// `run_recipe` on a turn already taken (the natural-language endpoint admits before it
/// translates).
pub async fn run_admitted(
    state: &Arc<AppState>,
    account: &Account,
    req: &recipes::Request,
    admitted: &crate::tenants::TaskPermit,
) -> AppResult<RecipeResponse> {
    let ran = recipes::run(state, account, req, admitted, None).await?;
    let result = pipeline::links(state, &ran.outputs).await?;
    let playback_url = playback_of(&ran.data, &result);
    Ok(RecipeResponse {
        ok: true,
        result,
        data: ran.data,
        usage: ran.usage,
        output_dir_id: ran.output_dir_id,
        playback_url,
        steps: ran.steps,
    })
}

/// A streaming recipe's entry point: the playback URL of the output its data names as the
/// `playlist` (docs/recipes.md).
pub fn playback_of(data: &Value, links: &[OutputLink]) -> Option<String> {
    let playlist = data.get("playlist")?.as_str()?;
    links
        .iter()
        .find(|l| l.file_name == playlist)?
        .playback_url
        .clone()
}

fn name(req: &Request) -> String {
    req.param::<String>("name").unwrap_or_default()
}

#[endpoint(tags("recipes"), status_codes(200, 401, 500, 503), security(("api_key" = [])))]
async fn list(depot: &mut Depot) -> AppResult<Json<RecipeList>> {
    let state = state(depot);
    Ok(Json(RecipeList {
        ok: true,
        recipes: recipes::list(&state).await?,
    }))
}

#[endpoint(tags("recipes"), parameters(("name" = String, Path, description = "Recipe name (GET /recipes)")), status_codes(200, 401, 404, 500, 503), security(("api_key" = [])))]
async fn show(req: &mut Request, depot: &mut Depot) -> AppResult<Json<RecipeShown>> {
    let state = state(depot);
    let name = name(req);
    let recipe = recipes::list(&state)
        .await?
        .into_iter()
        .find(|r| r.name == name)
        .ok_or_else(|| AppError::RecipeNotFound(name.chars().take(100).collect()))?;
    Ok(Json(RecipeShown { ok: true, recipe }))
}

#[endpoint(tags("recipes"), parameters(("name" = String, Path, description = "Recipe name (GET /recipes)")), request_body = RecipeRequest, status_codes(200, 400, 401, 403, 404, 413, 429, 500, 502, 503), security(("api_key" = [])))]
async fn run(req: &mut Request, depot: &mut Depot) -> AppResult<Json<RecipeResponse>> {
    let state = state(depot);
    let name = name(req);
    let body = body_value(req, max_body(&state)).await?;
    let request = request(&name, &body)?;
    Ok(Json(run_recipe(&state, &account(depot), &request).await?))
}

/// What the recipe would cost, nothing run or charged: its first round's steps estimated as
/// tasks are, and whether its inputs fit this month's remaining quota.
#[endpoint(tags("recipes"), parameters(("name" = String, Path, description = "Recipe name (GET /recipes)")), request_body = RecipeRequest, status_codes(200, 400, 401, 403, 404, 413, 429, 500, 503), security(("api_key" = [])))]
async fn cost(req: &mut Request, depot: &mut Depot) -> AppResult<Json<EstimateResponse>> {
    let state = state(depot);
    let account = account(depot);
    let name = name(req);
    let body = body_value(req, max_body(&state)).await?;
    let request = request(&name, &body)?;
    let first = FirstRound::plan(&state, &account, &request).await?;
    Ok(Json(estimate_of(&state, &account, &request, &first).await?))
}

/// The first round's estimate and whether the recipe's inputs fit the month's quota (the
/// handler and the natural-language dry run).
pub async fn estimate_of(
    state: &AppState,
    account: &Account,
    req: &recipes::Request,
    first: &FirstRound,
) -> AppResult<EstimateResponse> {
    Ok(EstimateResponse {
        ok: true,
        quota: quota_fit(state, account, first.input_bytes()).await?,
        estimate: first.estimate(state, account, req).await?,
    })
}

/// The recipe as an async job: 202 at once, then `GET /job/{job_id}` (or its events, or the
/// webhook), whose result, `data` and `playback_url` are the recipe's.
#[endpoint(tags("recipes"), parameters(("name" = String, Path, description = "Recipe name (GET /recipes)")), request_body = RecipeRequest, responses((status_code = 202, body = Accepted)), status_codes(202, 400, 401, 403, 404, 413, 429, 500, 502, 503), security(("api_key" = [])))]
async fn submit(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> AppResult<Json<Accepted>> {
    let state = state(depot);
    let account = account(depot);
    let name = name(req);
    let body = body_value(req, max_body(&state)).await?;
    let call = request(&name, &body)?;
    let job = queue(&state, &account, call, &body, idempotency_key(req), false).await?;
    Ok(accepted(res, &job))
}

/// A recipe call queued as a job, with the request body's `webhook_url` and `priority`
/// (`generated`: the natural-language endpoint's).
pub async fn queue(
    state: &Arc<AppState>,
    account: &Account,
    call: recipes::Request,
    body: &Value,
    idempotency_key: Option<String>,
    generated: bool,
) -> AppResult<crate::db::Job> {
    jobs::submit(
        state,
        Submission {
            account,
            task: Task::flags_only(),
            webhook_url: webhook_url(body)?,
            idempotency_key,
            generated,
            priority: priority(body)?,
            recipe: Some(call),
        },
    )
    .await
}

#[endpoint(tags("recipes"), parameters(("name" = String, Path, description = "Recipe name (GET /recipes)")), request_body = RecipeRequest, status_codes(200, 400, 401, 403, 404, 413, 429, 500, 503), security(("api_key" = [])))]
async fn validate(req: &mut Request, depot: &mut Depot) -> AppResult<Json<RecipeValidateResponse>> {
    let state = state(depot);
    let name = name(req);
    let body = body_value(req, max_body(&state)).await?;
    let request = request(&name, &body)?;
    let account = account(depot);
    let first = FirstRound::plan(&state, &account, &request).await?;
    let steps = first.dry_run(&state, &account, &request).await?;
    Ok(Json(RecipeValidateResponse { ok: true, steps }))
}
