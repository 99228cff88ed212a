//! Plain language → a task, a recipe or a probe configuration (beta): the translator plugin
//! gets the instructions, facts about each input and the recipes on offer, and what it returns
//! then runs through the same pipeline as a hand-written request (validation, command builder,
//! sandbox, metering, quota), or as a call of that recipe. The natural-language endpoints and
//! the MCP tools `ask` and `ask_probe` all start here.

use crate::app::AppState;
use crate::db::Account;
use crate::error::{AppError, AppResult};
use crate::media::inspect;
use crate::plugins::types::{OfferedRecipe, Translation};
use crate::plugins::{Failure, PluginError, World, facts_from_probe};
use crate::task::{Generated, ProbeConfig, RecipeCall, Source, source_of};
use crate::{directories, facts, pipeline::url_file_name, recipes};

pub const MAX_INSTRUCTIONS: usize = 2000;

/// A request to turn instructions over some inputs into a task.
#[derive(Debug, Clone)]
pub struct TaskRequest {
    pub instructions: String,
    /// `<dir_id>/<file_name>` or URLs, as a task's inputs.
    pub inputs: Vec<String>,
    pub output_dir_id: Option<String>,
}

/// The instructions, trimmed: required, and at most `MAX_INSTRUCTIONS` bytes.
pub fn instructions(given: Option<&str>) -> AppResult<String> {
    match given.map(str::trim) {
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

/// Resolves and imports the inputs, asks the translator for a task (or a recipe) over them, and
/// returns it as it will run (inputs as stored files, output directory fixed; a recipe's
/// params checked against its schema).
pub async fn task(state: &AppState, account: &Account, req: &TaskRequest) -> AppResult<Generated> {
    let instructions = instructions(Some(&req.instructions))?;
    let known = facts::known(state, account, &req.inputs, req.output_dir_id.clone()).await?;
    let offered = offered(state).await;
    let answer = state
        .plugins
        .translate_task(&instructions, &known.facts, &offered)
        .await
        .map_err(translation_error)?;
    let output_dir_id = known.output_dir_id().map(str::to_string);
    let mut generated = match answer {
        Translation::Task(task) => task,
        Translation::Recipe { name, params } => {
            let recipe = recipe_call(state, &known, &offered, name, &params)?;
            recipes::checked(state, &recipe).await?;
            return Ok(Generated::Recipe {
                recipe: RecipeCall {
                    output_dir_id,
                    ..recipe
                },
            });
        }
    };
    for input in &mut generated.inputs {
        let path = known.path_of(&input.file_path).map(str::to_string);
        input.file_path = path.ok_or_else(|| {
            let refused = AppError::UnknownInput(input.file_path.clone());
            let why = refused.to_string();
            state
                .plugins
                .report(World::Translator, Failure::Output, &why);
            refused
        })?;
    }
    generated.output_dir_id = output_dir_id;
    Ok(Generated::Task(generated))
}

/// The recipes a translator may answer with: those the recipe plugin lists. A recipe plugin
/// that cannot answer offers none (the translator then answers with tasks, as a 0.2.0 one does).
async fn offered(state: &AppState) -> Vec<OfferedRecipe> {
    // The plugins' own text, as the catalogue holds it: nothing parsed on this path.
    match state.plugins.recipes().await {
        Ok(list) => list
            .into_iter()
            .map(|r| OfferedRecipe {
                name: r.name,
                description: r.description,
                params_schema: r.params_schema,
            })
            .collect(),
        Err(e) => {
            tracing::debug!("no recipes offered to the translator: {e}");
            Vec::new()
        }
    }
}

/// The translator's recipe answer as a call over every input; a recipe it was not offered, or
/// params that are not a JSON object, are the plugin's failure.
fn recipe_call(
    state: &AppState,
    known: &facts::Known,
    offered: &[OfferedRecipe],
    name: String,
    params: &str,
) -> AppResult<RecipeCall> {
    let failed = |why: String| {
        state
            .plugins
            .report(World::Translator, Failure::Output, &why);
        AppError::PluginFailed(format!("the translator failed: {why}"))
    };
    if !offered.iter().any(|r| r.name == name) {
        return Err(failed(format!(
            "it answered with recipe '{}', which was not offered",
            name.chars().take(100).collect::<String>()
        )));
    }
    let params = match serde_json::from_str(params) {
        Ok(p @ serde_json::Value::Object(_)) => p,
        _ => {
            return Err(failed(format!(
                "the params of recipe '{name}' are not a JSON object"
            )));
        }
    };
    Ok(RecipeCall {
        name,
        inputs: known.paths.iter().map(|(_, p)| p.clone()).collect(),
        params,
        output_dir_id: None,
        cache: true,
        export: None,
    })
}

/// Asks the translator for a probe configuration for one input (a stored file of the
/// caller's, or a URL, which is analysed in place: the translator gets its name).
pub async fn probe(
    state: &AppState,
    account: &Account,
    instructions: &str,
    file_path: &str,
) -> AppResult<ProbeConfig> {
    let instructions = self::instructions(Some(instructions))?;
    let facts = match source_of(file_path).ok_or(AppError::InvalidFilePath)? {
        Source::Stored { dir_id, file_name } => {
            directories::owned(state, account, dir_id).await?;
            let file = state
                .db
                .file(dir_id, file_name)
                .await?
                .ok_or(AppError::FileNotFound)?;
            let probed = inspect::inspect(state, &account.name, &file).await;
            facts_from_probe(file_name, file.size, probed.as_ref())
        }
        Source::Url(raw) => {
            let name = url::Url::parse(raw)
                .map(|u| url_file_name(&u))
                .unwrap_or_else(|_| "input".into());
            facts_from_probe(&name, 0, None)
        }
        Source::Bucket { key, .. } => {
            let name = crate::pipeline::file_name_of(key.rsplit('/').next().unwrap_or(""));
            facts_from_probe(&name, 0, None)
        }
    };
    state
        .plugins
        .translate_probe(&instructions, &facts)
        .await
        .map_err(translation_error)
}
