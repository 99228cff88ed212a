//! The host's own view of what crosses the plugin boundary. Generated WIT types stay inside
//! `wit/v*.rs` (one adapter per contract version); everything else in the host uses these.
//! Their JSON forms are what `mediaforge plugin run` reads and prints
//! (`docs/plugins/samples/`).

use serde::{Deserialize, Serialize};

use crate::task::{ProbeConfig, Task};
use crate::usage::Usage;

/// An input staged in the job's scratch directory, and the name `@{name}` means.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StagedInput {
    pub name: String,
    pub path: String,
}

/// Options that apply to one file, and the file (an input or an output).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommandPart {
    pub args: Vec<String>,
    pub path: String,
}

/// One policy decision the command builder made, shown by the dry run.
#[derive(Debug, Clone, PartialEq, Serialize, salvo::oapi::ToSchema)]
pub struct PolicyDecision {
    pub subject: String,
    pub allowed: bool,
    pub reason: String,
}

/// The subject of the decision by which a command builder says a task's result is not a
/// function of its inputs (random sources, wall-clock metadata): `allowed: false` keeps the task
/// out of the result cache. A convention of WIT 0.1.0's `decisions` (docs/plugins.md); the
/// 0.2.0 adapter turns `ffmpeg-command.uncacheable` into such a decision, which the dry run shows.
pub const CACHE_SUBJECT: &str = "cache";

/// Whether the builder let the task's result be cached.
pub fn cacheable(decisions: &[PolicyDecision]) -> bool {
    !decisions
        .iter()
        .any(|d| d.subject == CACHE_SUBJECT && !d.allowed)
}

/// The subject of the decision by which a command builder says a task may be encoded in
/// keyframe segments (`allowed: true`; absent, it runs whole): one input, one output whose
/// video is re-encoded frame by frame (`pipeline/split/`). A convention of WIT 0.1.0's
/// `decisions`, like `cache` (docs/plugins.md).
pub const SPLIT_SUBJECT: &str = "split";

/// Whether the builder said the task may be split.
pub fn splittable(decisions: &[PolicyDecision]) -> bool {
    decisions
        .iter()
        .any(|d| d.subject == SPLIT_SUBJECT && d.allowed)
}

/// What the command builder made of a task: ffmpeg's argv in parts, before the host checks it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BuiltCommand {
    pub global_args: Vec<String>,
    pub inputs: Vec<CommandPart>,
    pub outputs: Vec<CommandPart>,
    pub decisions: Vec<PolicyDecision>,
}

/// What the command builder made of a probe configuration: ffprobe's options.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BuiltProbe {
    pub args: Vec<String>,
    pub decisions: Vec<PolicyDecision>,
}

/// A plugin's refusal: a message for the tenant, and what it concerns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refusal {
    pub message: String,
    pub subject: Option<String>,
}

/// What a translator learns about one stream of an input.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamFacts {
    pub index: u32,
    pub kind: String,
    pub codec: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub frame_rate: Option<f64>,
    pub channels: Option<u32>,
    pub sample_rate: Option<u32>,
    pub duration: Option<f64>,
}

/// What a translator learns about an input.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputFacts {
    pub name: String,
    pub size: u64,
    pub container: String,
    pub duration: Option<f64>,
    pub streams: Vec<StreamFacts>,
}

/// An output file as a webhook event reports it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EventFile {
    pub file_name: String,
    pub size_bytes: u64,
    pub download_url: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventOutcome {
    Completed {
        files: Vec<EventFile>,
        usage: Usage,
    },
    Failed {
        error: String,
        /// The job's `details`; WIT 0.1.0 has no place for them.
        #[serde(default)]
        details: Option<String>,
    },
}

/// A finished job, for the webhook formatter.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobEvent {
    pub event_id: String,
    pub job_id: String,
    /// The account that submitted the job (not in WIT 0.1.0).
    #[serde(default)]
    pub account_id: String,
    /// The delivery attempt, from 1 (not in WIT 0.1.0).
    #[serde(default = "first_attempt")]
    pub attempt: u32,
    pub outcome: EventOutcome,
    pub occurred_at: String,
    pub webhook_url: String,
}

fn first_attempt() -> u32 {
    1
}

/// The callback a formatter asks the host to send.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallbackRequest {
    pub content_type: String,
    pub body: String,
    pub headers: Vec<(String, String)>,
}

/// A chat completion a translator asks of the operator's model endpoint (`llm` import).
#[derive(Debug, Clone, PartialEq)]
pub struct CompletionRequest {
    /// (role, content) pairs.
    pub messages: Vec<(String, String)>,
    pub json_schema: Option<String>,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f32>,
}

/// One recipe a recipe plugin offers (`GET /recipes`); the schema and the example are JSON text
/// as the plugin wrote them (`recipes::list` parses them).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecipeInfo {
    pub name: String,
    pub description: String,
    pub params_schema: String,
    pub example: String,
    pub min_inputs: u32,
    pub max_inputs: u32,
}

/// One step of a recipe's plan (`wit/0.3.0/plugin.wit`, `recipes.step`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum RecipeStep {
    /// An ffmpeg task whose outputs are kept.
    Ffmpeg(Task),
    /// An ffmpeg task run for its log (`-f null` outputs).
    Analysis(Task),
    /// ffprobe over the input named.
    Probe { input: String, probe: ProbeConfig },
    /// A file the plugin wrote.
    Text { file: String, content: String },
}

/// What a step left, for the plugin's next `plan`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StepResult {
    pub output: String,
    pub files: Vec<String>,
}

/// The plugin's answer to `plan`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecipePlan {
    Steps(Vec<RecipeStep>),
    /// The recipe's data, JSON text.
    Done(String),
}

/// A recipe offered to a 0.3.0 translator (`translate.offered-recipe`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OfferedRecipe {
    pub name: String,
    pub description: String,
    /// JSON text, as the recipe plugin wrote it.
    pub params_schema: String,
}

/// What a translator answers to processing instructions: a task, or (0.3.0) a recipe to run
/// over every input.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Translation {
    Task(Task),
    Recipe {
        name: String,
        /// A JSON object as text, not yet checked against the recipe's schema.
        params: String,
    },
}
