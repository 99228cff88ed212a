//! Inputs as plugins are told about them: a request's inputs resolved and imported as any
//! task's (ownership, plan, quota; URLs fetched into storage), each probed for the facts a
//! translator or a recipe reads (`plugins::types::InputFacts`), under the name the plugin uses
//! to refer to it. The natural-language endpoints and the recipes both start here.

use crate::app::AppState;
use crate::db::Account;
use crate::error::AppResult;
use crate::media::inspect;
use crate::pipeline::{self, InputFile, Resolved};
use crate::plugins::facts_from_probe;
use crate::plugins::types::InputFacts;
use crate::task::{Task, TaskInput, TaskOutput};

/// A request's inputs, ready for a plugin.
pub struct Known {
    /// The inputs as resolved (with the output directory, made when none was named).
    pub resolved: Resolved,
    /// What the plugin is told, one per input.
    pub facts: Vec<InputFacts>,
    /// The plugin's name for each input, and the stored path it stands for.
    pub paths: Vec<(String, String)>,
}

impl Known {
    /// The stored path of the input a plugin calls `name`.
    pub fn path_of(&self, name: &str) -> Option<&str> {
        self.paths
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.as_str())
    }

    /// The output directory's id (resolve made one when the request named none).
    pub fn output_dir_id(&self) -> Option<&str> {
        self.resolved.output_dir.as_ref().map(|d| d.dir_id.as_str())
    }
}

/// Resolves and imports `inputs` (`<dir_id>/<file_name>` or URLs) as a task's, with
/// `output_dir_id`, and probes each.
pub async fn known(
    state: &AppState,
    account: &Account,
    inputs: &[String],
    output_dir_id: Option<String>,
) -> AppResult<Known> {
    let resolved = prepare(state, account, inputs, output_dir_id).await?;
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
    Ok(Known {
        resolved,
        facts,
        paths,
    })
}

/// `known` without the probes: the inputs resolved and imported (a queued recipe job keeps
/// their stored paths, `stored_paths`).
pub async fn prepare(
    state: &AppState,
    account: &Account,
    inputs: &[String],
    output_dir_id: Option<String>,
) -> AppResult<Resolved> {
    // Inputs are checked and imported as for any task; the outputs are not known yet.
    let inputs_only = Task {
        inputs: inputs
            .iter()
            .map(|p| TaskInput {
                file_path: p.clone(),
                options: Vec::new(),
            })
            .collect(),
        outputs: vec![TaskOutput {
            file: "pending".into(),
            options: vec![],
            maps: vec![],
        }],
        filter_complex: None,
        output_dir_id,
        cache: true,
        split: true,
        export: None,
    };
    pipeline::prepare(state, account, inputs_only).await
}

/// The stored path of each input, in order (URL inputs once imported).
pub fn stored_paths(resolved: &Resolved) -> Vec<String> {
    resolved
        .inputs
        .iter()
        .filter_map(|i| match &i.file {
            InputFile::Stored(f) => Some(format!("{}/{}", f.dir_id, f.file_name)),
            InputFile::Url(_) | InputFile::Bucket { .. } => None,
        })
        .collect()
}
