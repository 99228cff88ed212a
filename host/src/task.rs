//! The request shapes tenants send (a task, a probe configuration), as the API parses them.
//! Unknown fields are ignored, as clients of the service we reimplement send extra ones.

use salvo::oapi::ToSchema;
use serde::{Deserialize, Deserializer, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct Task {
    pub inputs: Vec<TaskInput>,
    pub outputs: Vec<TaskOutput>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_complex: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_dir_id: Option<String>,
    /// `false`: never answered from the result cache, nor added to it. Requests give it as a
    /// top-level `"cache"` beside `task` (`with_flags`); kept here so a queued job keeps it.
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub cache: bool,
    /// `false`: never encoded in segments (`pipeline/split/`), even when it could be. A
    /// top-level `"split"` beside `task`, like `cache`.
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub split: bool,
    /// Where the outputs are copied once registered: a bucket of the tenant's
    /// (`pipeline/export.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub export: Option<Export>,
}

/// A task's `export`: its outputs copied to `s3://<credential>/<prefix><file name>`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Export {
    /// One of the account's credentials (`GET /credentials`).
    pub credential: String,
    /// Put before each output's name, e.g. `renders/2026/` (default: none).
    #[serde(default)]
    pub prefix: String,
}

fn yes() -> bool {
    true
}

fn is_yes(b: &bool) -> bool {
    *b
}

impl Task {
    /// No inputs or outputs, the flags at their defaults: what a queued recipe job keeps as
    /// its task (the recipe is the job's `recipe`), and what a request's flags are read into.
    pub fn flags_only() -> Task {
        Task {
            inputs: Vec::new(),
            outputs: Vec::new(),
            filter_complex: None,
            output_dir_id: None,
            cache: true,
            split: true,
            export: None,
        }
    }

    /// The task with a request's top-level `"cache"` and `"split"` applied (booleans; anything
    /// else is 400).
    pub fn with_flags(mut self, body: &serde_json::Value) -> Result<Task, crate::error::AppError> {
        for (name, flag) in [("cache", &mut self.cache), ("split", &mut self.split)] {
            match body.get(name) {
                None | Some(serde_json::Value::Null) => {}
                Some(serde_json::Value::Bool(b)) => *flag &= *b,
                Some(_) => return Err(crate::error::AppError::FlagType(name)),
            }
        }
        Ok(self)
    }
}

/// A request to run a recipe (`docs/recipes.md`), as a queued job keeps it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct RecipeCall {
    pub name: String,
    /// `<dir_id>/<file_name>` or https URLs, as a task's inputs (stored paths once queued).
    pub inputs: Vec<String>,
    /// An object: the recipe's parameters.
    #[salvo(schema(value_type = Object))]
    pub params: serde_json::Value,
    pub output_dir_id: Option<String>,
    /// `false`: no step is answered from the result cache, nor added to it.
    pub cache: bool,
    /// Where every file the recipe wrote is copied once it is done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub export: Option<Export>,
}

/// What instructions became: a task, or a call of a recipe over every input. Serialized as the
/// responses' `generated_command`: the task, or `{"recipe": {name, inputs, params, ...}}`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
#[serde(untagged)]
pub enum Generated {
    /// First: a task has no `recipe` field, so a stored task reads back as the task.
    Recipe {
        recipe: RecipeCall,
    },
    Task(Task),
}

impl Generated {
    /// A request's top-level `"cache"` (and, for a task, `"split"`) applied.
    pub fn with_flags(self, body: &serde_json::Value) -> Result<Generated, crate::error::AppError> {
        Ok(match self {
            Generated::Task(task) => Generated::Task(task.with_flags(body)?),
            Generated::Recipe { mut recipe } => {
                let flags = Task::flags_only().with_flags(body)?;
                recipe.cache &= flags.cache;
                Generated::Recipe { recipe }
            }
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct TaskInput {
    pub file_path: String,
    #[serde(default)]
    pub options: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct TaskOutput {
    pub file: String,
    #[serde(default)]
    pub options: Vec<String>,
    #[serde(default)]
    pub maps: Vec<String>,
}

/// `probe` of POST /ffprobe/analyze. `None` = section not asked for; `Some([])` = all fields.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct ProbeConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chapters: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub programs: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select_streams: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_intervals: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count_frames: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_frame: Option<String>,
    #[serde(
        default,
        deserialize_with = "string_or_number",
        skip_serializing_if = "Option::is_none"
    )]
    pub analyzeduration: Option<String>,
    #[serde(
        default,
        deserialize_with = "string_or_number",
        skip_serializing_if = "Option::is_none"
    )]
    pub probesize: Option<String>,
}

/// `10`, `"10"` and `"10s"` are all accepted where the spec says "string or number".
fn string_or_number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        S(String),
        N(serde_json::Number),
    }
    Ok(Option::<Raw>::deserialize(d)?.map(|r| match r {
        Raw::S(s) => s,
        Raw::N(n) => n.to_string(),
    }))
}

/// Where an input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source<'a> {
    Stored {
        dir_id: &'a str,
        file_name: &'a str,
    },
    Url(&'a str),
    /// `s3://<credential>/<key>`: an object in a bucket of the tenant's (`credentials.rs`).
    Bucket {
        credential: &'a str,
        key: &'a str,
    },
}

impl TaskInput {
    pub fn source(&self) -> Option<Source<'_>> {
        source_of(&self.file_path)
    }
}

/// `<dir_id>/<file_name>`, an absolute http(s) URL or `s3://<credential>/<key>`; `None` for
/// anything else.
pub fn source_of(file_path: &str) -> Option<Source<'_>> {
    let lower = file_path.get(..8).unwrap_or("").to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") {
        return Some(Source::Url(file_path));
    }
    if lower.starts_with("s3://") {
        let (credential, key) = file_path[5..].split_once('/')?;
        return Some(Source::Bucket { credential, key });
    }
    crate::names::split_file_path(file_path)
        .map(|(dir_id, file_name)| Source::Stored { dir_id, file_name })
}
