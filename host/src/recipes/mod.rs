//! Recipes: named jobs a recipe plugin describes (`wit/0.3.0/plugin.wit`) and plans step by
//! step. The plugin is pure; each step it asks for runs here through the one pipeline (an ffmpeg
//! step as a task: resolve, stage, build, cache, run or split, register, charge; an analysis as
//! `pipeline::measure`; a probe as `pipeline::probe`; a file it wrote as `pipeline::text`), in
//! the recipe's one output directory, and the plugin is asked again with what the steps left
//! until it says it is done. A step's failure fails the recipe, naming the step.

mod params;

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::watch;

use crate::app::AppState;
use crate::cache::Outcome;
use crate::db::{Account, StoredOutput};
use crate::error::{AppError, AppResult};
use crate::facts::{self, Known};
use crate::plugins::types::{RecipeInfo, RecipePlan, RecipeStep, StepResult};
use crate::plugins::{Failure, World};
use crate::task::Task;
use crate::tenants::TaskPermit;
use crate::usage::Usage;
use crate::{metering, pipeline};

/// Most times the plugin is asked for steps in one recipe, and most steps in all.
const MAX_ROUNDS: usize = 8;
const MAX_STEPS: usize = 32;

/// A recipe as the API lists it.
#[derive(Debug, Clone, Serialize, salvo::oapi::ToSchema)]
pub struct Entry {
    pub name: String,
    pub description: String,
    /// JSON Schema of `params`.
    #[salvo(schema(value_type = Object))]
    pub params_schema: Value,
    /// An example `params` object.
    #[salvo(schema(value_type = Object))]
    pub example: Value,
    pub min_inputs: u32,
    pub max_inputs: u32,
}

/// A request to run a recipe (the row a queued recipe job keeps).
pub use crate::task::RecipeCall as Request;

/// One step as it ran (or, for a dry run, would run).
#[derive(Debug, Clone, Serialize, salvo::oapi::ToSchema)]
pub struct StepReport {
    /// `ffmpeg`, `analysis`, `probe` or `text`.
    pub kind: &'static str,
    /// The argv, as `/ffmpeg/validate` shows it (ffmpeg and analysis steps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// The command builder's decisions (dry run only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decisions: Option<Vec<crate::plugins::types::PolicyDecision>>,
    /// Whether an ffmpeg step's outputs came from the result cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<Outcome>,
    /// The file a text step wrote, or the input a probe read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

impl StepReport {
    /// The report of `step`, its details filled in as it runs.
    fn of(step: &RecipeStep) -> StepReport {
        StepReport {
            kind: kind(step),
            command: None,
            decisions: None,
            cache: None,
            file: None,
        }
    }
}

/// A recipe that finished.
pub struct Ran {
    pub outputs: Vec<StoredOutput>,
    pub usage: Usage,
    /// The recipe's data (analysis values), `null` for none.
    pub data: Value,
    pub steps: Vec<StepReport>,
    pub output_dir_id: String,
}

/// Every recipe the loaded recipe plugin offers.
pub async fn list(state: &AppState) -> AppResult<Vec<Entry>> {
    let infos = state.plugins.recipes().await?;
    infos.into_iter().map(|i| entry(state, i)).collect()
}

/// The recipe called `name`, with its compiled schema.
async fn find(state: &AppState, name: &str) -> AppResult<(Entry, jsonschema::Validator)> {
    let entry = list(state)
        .await?
        .into_iter()
        .find(|e| e.name == name)
        .ok_or_else(|| AppError::RecipeNotFound(name.chars().take(100).collect()))?;
    let validator = params::validator(&entry.params_schema).map_err(|why| {
        plugin_output(
            state,
            format!("recipe '{name}' has an invalid schema: {why}"),
        )
    })?;
    Ok((entry, validator))
}

/// The plugin's description, its JSON parsed; what does not parse is the plugin's failure.
fn entry(state: &AppState, i: RecipeInfo) -> AppResult<Entry> {
    let json = |what: &str, text: &str| {
        serde_json::from_str::<Value>(text).map_err(|e| {
            plugin_output(
                state,
                format!("recipe '{}' has an invalid {what}: {e}", i.name),
            )
        })
    };
    Ok(Entry {
        params_schema: json("params schema", &i.params_schema)?,
        example: json("example", &i.example)?,
        name: i.name,
        description: i.description,
        min_inputs: i.min_inputs,
        max_inputs: i.max_inputs,
    })
}

/// What the plugin returned and the host cannot use: reported to the operator, 500 to the tenant.
fn plugin_output(state: &AppState, why: String) -> AppError {
    state.plugins.report(World::Recipe, Failure::Output, &why);
    AppError::PluginFailed(format!("the recipe plugin failed: {why}"))
}

/// The request's inputs counted and its params checked against the recipe (before a job is
/// queued, and again when it runs).
pub async fn checked(state: &AppState, req: &Request) -> AppResult<Entry> {
    let (entry, validator) = find(state, &req.name).await?;
    let given = req.inputs.len();
    if given < entry.min_inputs as usize || given > entry.max_inputs as usize {
        let wanted = if entry.min_inputs == entry.max_inputs {
            entry.min_inputs.to_string()
        } else {
            format!("{} to {}", entry.min_inputs, entry.max_inputs)
        };
        return Err(AppError::RecipeInputs {
            recipe: entry.name,
            wanted,
            given,
        });
    }
    params::check(&entry.name, &validator, &req.params)?;
    Ok(entry)
}

/// Runs a recipe: every step in turn, each charged as it runs. `admitted`: the caller's turn
/// (a sync request's admission, or a claimed job's).
pub async fn run(
    state: &Arc<AppState>,
    account: &Account,
    req: &Request,
    admitted: &TaskPermit,
    progress: Option<watch::Sender<u64>>,
) -> AppResult<Ran> {
    checked(state, req).await?;
    // A bad export is refused before anything runs.
    let export = crate::pipeline::export_target(state, account, req.export.as_ref()).await?;
    let known = facts::known(state, account, &req.inputs, req.output_dir_id.clone()).await?;
    let output_dir_id = known
        .output_dir_id()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("no output directory")))?
        .to_string();
    let mut run = Running {
        state,
        account,
        req,
        known: &known,
        admitted,
        progress,
        results: Vec::new(),
        outputs: Vec::new(),
        steps: Vec::new(),
        figures: (0.0, 0, 0),
    };
    let params = req.params.to_string();
    for _ in 0..MAX_ROUNDS {
        let next = state
            .plugins
            .plan_recipe(&req.name, &params, &known.facts, &run.results)
            .await?;
        let steps = match next {
            RecipePlan::Done(data) => {
                let data: Value = serde_json::from_str(&data).map_err(|e| {
                    plugin_output(
                        state,
                        format!("recipe '{}' returned data that is not JSON: {e}", req.name),
                    )
                })?;
                let (time, input, output) = run.figures;
                let mut outputs = run.outputs;
                if let Some(target) = &export {
                    crate::pipeline::export_outputs(state, target, &mut outputs).await?;
                }
                return Ok(Ran {
                    outputs,
                    usage: Usage::new(time, input, output),
                    data,
                    steps: run.steps,
                    output_dir_id,
                });
            }
            RecipePlan::Steps(steps) => steps,
        };
        if steps.is_empty() || run.results.len() + steps.len() > MAX_STEPS {
            return Err(plugin_output(
                state,
                format!(
                    "recipe '{}' asked for {} steps after {} (at least 1, at most {MAX_STEPS} in all)",
                    req.name,
                    steps.len(),
                    run.results.len()
                ),
            ));
        }
        for step in steps {
            let n = run.results.len() + 1;
            let kind = kind(&step);
            let result = run
                .step(step)
                .await
                .map_err(|inner| step_failed(req, n, kind, inner))?;
            run.results.push(result);
        }
    }
    Err(plugin_output(
        state,
        format!(
            "recipe '{}' did not finish in {MAX_ROUNDS} rounds",
            req.name
        ),
    ))
}

fn kind(step: &RecipeStep) -> &'static str {
    match step {
        RecipeStep::Ffmpeg(_) => "ffmpeg",
        RecipeStep::Analysis(_) => "analysis",
        RecipeStep::Probe { .. } => "probe",
        RecipeStep::Text { .. } => "text",
    }
}

/// A recipe under way: what its steps have left so far.
struct Running<'a> {
    state: &'a Arc<AppState>,
    account: &'a Account,
    req: &'a Request,
    known: &'a Known,
    admitted: &'a TaskPermit,
    progress: Option<watch::Sender<u64>>,
    results: Vec<StepResult>,
    outputs: Vec<StoredOutput>,
    steps: Vec<StepReport>,
    /// Seconds, input bytes and output bytes of every step.
    figures: (f64, u64, u64),
}

impl Running<'_> {
    async fn step(&mut self, step: RecipeStep) -> AppResult<StepResult> {
        let (state, account) = (self.state, self.account);
        let mut report = StepReport::of(&step);
        let result = match step {
            RecipeStep::Ffmpeg(task) => {
                let task = self.bind(task)?;
                let done = Box::pin(pipeline::run_admitted(
                    state,
                    account,
                    task,
                    self.admitted,
                    self.progress.clone(),
                ))
                .await?;
                self.add(
                    done.usage.time_sec,
                    done.charge.input_bytes,
                    done.charge.output_bytes,
                );
                report.command = Some(done.command);
                report.cache = Some(done.cache);
                let files = done.outputs.iter().map(|o| o.file_name.clone()).collect();
                self.keep(done.outputs);
                StepResult {
                    output: String::new(),
                    files,
                }
            }
            RecipeStep::Analysis(task) => {
                let task = self.bind(task)?;
                let m = pipeline::measure::measure(state, account, task, self.admitted).await?;
                self.add(m.usage.time_sec, m.charge.input_bytes, 0);
                StepResult {
                    output: m.log,
                    files: Vec::new(),
                }
            }
            RecipeStep::Probe { input, probe } => {
                let path = self.path(&input)?;
                let probed =
                    pipeline::probe::analyze_admitted(state, account, &path, probe, self.admitted)
                        .await?;
                self.add(probed.usage.time_sec, 0, 0);
                report.file = Some(input);
                StepResult {
                    output: probed.result.to_string(),
                    files: Vec::new(),
                }
            }
            RecipeStep::Text { file, content } => {
                let dir =
                    self.known.resolved.output_dir.as_ref().ok_or_else(|| {
                        AppError::Internal(anyhow::anyhow!("no output directory"))
                    })?;
                let (stored, charge) = pipeline::text::write(
                    state,
                    account,
                    dir,
                    &self.known.resolved.inputs,
                    &file,
                    &content,
                )
                .await?;
                metering::charge(state, &account.name, &charge).await?;
                self.add(0.0, 0, charge.output_bytes);
                report.file = Some(file.clone());
                self.keep(vec![stored]);
                StepResult {
                    output: String::new(),
                    files: vec![file],
                }
            }
        };
        self.steps.push(report);
        Ok(result)
    }

    fn add(&mut self, time: f64, input: u64, output: u64) {
        self.figures.0 += time;
        self.figures.1 += input;
        self.figures.2 += output;
    }

    /// Outputs so far; a step that writes a name again replaces the earlier file.
    fn keep(&mut self, stored: Vec<StoredOutput>) {
        for o in stored {
            self.outputs.retain(|k| k.file_name != o.file_name);
            self.outputs.push(o);
        }
    }

    /// The stored path of what a step calls `name`: one of the recipe's inputs, or a file an
    /// earlier step wrote. Nothing else (no URL, no other directory) is reachable.
    fn path(&self, name: &str) -> AppResult<String> {
        if let Some(p) = self.known.path_of(name) {
            return Ok(p.to_string());
        }
        match self.known.output_dir_id() {
            Some(dir) if self.outputs.iter().any(|o| o.file_name == name) => {
                Ok(format!("{dir}/{name}"))
            }
            _ => Err(AppError::RecipeUnknownInput(name.to_string())),
        }
    }

    /// A step's task over stored paths, in the recipe's output directory.
    fn bind(&self, mut task: Task) -> AppResult<Task> {
        for input in &mut task.inputs {
            input.file_path = self.path(&input.file_path)?;
        }
        task.output_dir_id = self.known.output_dir_id().map(str::to_string);
        task.cache = self.req.cache;
        Ok(task)
    }
}

/// What a recipe plans before anything runs: its inputs resolved and probed, and the steps of
/// its first round (later rounds depend on what these measure, so only these can be shown or
/// estimated ahead).
pub struct FirstRound {
    known: Known,
    steps: Vec<RecipeStep>,
}

impl FirstRound {
    pub async fn plan(state: &AppState, account: &Account, req: &Request) -> AppResult<FirstRound> {
        checked(state, req).await?;
        let known = facts::known(state, account, &req.inputs, req.output_dir_id.clone()).await?;
        let steps = match state
            .plugins
            .plan_recipe(&req.name, &req.params.to_string(), &known.facts, &[])
            .await?
        {
            RecipePlan::Steps(steps) => steps,
            RecipePlan::Done(_) => Vec::new(),
        };
        Ok(FirstRound { known, steps })
    }

    /// The bytes of the recipe's inputs.
    pub fn input_bytes(&self) -> u64 {
        self.known.resolved.stored_bytes()
    }

    /// Each ffmpeg and analysis step (numbered from 1) as the task it runs, over the stored
    /// inputs in the output directory, up to the first that reads a file an earlier step
    /// writes: that file does not exist yet.
    fn tasks(&self) -> Vec<(usize, &'static str, Task)> {
        let mut out = Vec::new();
        for (i, step) in self.steps.iter().enumerate() {
            let (RecipeStep::Ffmpeg(task) | RecipeStep::Analysis(task)) = step else {
                continue;
            };
            let mut task = task.clone();
            for input in &mut task.inputs {
                let Some(path) = self.known.path_of(&input.file_path) else {
                    return out;
                };
                input.file_path = path.to_string();
            }
            task.output_dir_id = self.known.output_dir_id().map(str::to_string);
            out.push((i + 1, kind(step), task));
        }
        out
    }

    /// Every step as it would run, each task built and checked as a run would be; nothing runs.
    pub async fn dry_run(
        &self,
        state: &AppState,
        account: &Account,
        req: &Request,
    ) -> AppResult<Vec<StepReport>> {
        let mut tasks = self.tasks().into_iter().peekable();
        let mut reports = Vec::new();
        for (i, step) in self.steps.iter().enumerate() {
            let mut report = StepReport::of(step);
            match step {
                RecipeStep::Ffmpeg(_) | RecipeStep::Analysis(_) => {
                    // A step past the first that reads a file not written yet: the dry run
                    // stops there.
                    let Some((_, kind, task)) = tasks.next_if(|(n, _, _)| *n == i + 1) else {
                        break;
                    };
                    let dry = pipeline::dry_run(state, account, task)
                        .await
                        .map_err(|inner| step_failed(req, i + 1, kind, inner))?;
                    report.command = Some(dry.command);
                    report.decisions = Some(dry.decisions);
                }
                RecipeStep::Probe { input, .. } => report.file = Some(input.clone()),
                RecipeStep::Text { file, .. } => report.file = Some(file.clone()),
            }
            reports.push(report);
        }
        Ok(reports)
    }

    /// What the round would cost: its ffmpeg and analysis steps, each estimated as a task is.
    /// Steps planned from what these measure are not included, so the figure is a floor for
    /// recipes of several rounds (loudness), and says so in its basis.
    pub async fn estimate(
        &self,
        state: &AppState,
        account: &Account,
        req: &Request,
    ) -> AppResult<crate::usage::Estimate> {
        use crate::usage::{Confidence, Estimate};
        let (mut time, mut input_gb, mut output_gb) = (0.0, 0.0, 0.0);
        let mut confidence = Confidence::High;
        let tasks = self.tasks();
        let counted = tasks.len();
        for (n, kind, task) in tasks {
            let (_, e) = pipeline::estimate(state, account, task)
                .await
                .map_err(|inner| step_failed(req, n, kind, inner))?;
            time += e.time_sec;
            input_gb += e.input_size_gb;
            output_gb += e.output_size_gb;
            confidence = match (confidence, e.confidence) {
                (Confidence::Low, _) | (_, Confidence::Low) => Confidence::Low,
                (Confidence::Medium, _) | (_, Confidence::Medium) => Confidence::Medium,
                _ => Confidence::High,
            };
        }
        let gb = 1024.0 * 1024.0 * 1024.0;
        let basis = format!(
            "the sum of the {counted} ffmpeg step(s) the recipe plans first, each estimated as a task; \
             steps planned from what these measure are not included"
        );
        Ok(Estimate::new(
            time,
            (input_gb * gb) as u64,
            (output_gb * gb) as u64,
            confidence,
            basis,
        ))
    }
}

/// A step's failure, naming the recipe and the step.
fn step_failed(req: &Request, step: usize, kind: &'static str, inner: AppError) -> AppError {
    AppError::RecipeStep {
        recipe: req.name.clone(),
        step,
        kind,
        inner: Box::new(inner),
    }
}
