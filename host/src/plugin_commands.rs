//! `mediaforge plugin check` and `mediaforge plugin run`: a component checked, or called once,
//! without a server, exactly as the server would (the same engine, limits, linking and output
//! checks), so an author can try a plugin before deploying it.

use std::path::Path;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::config::Config;
use crate::jobs::webhooks::checked_headers;
use crate::media::argv;
use crate::net::Net;
use crate::plugins::check::{Unfit, check_file};
use crate::plugins::types::{
    InputFacts, JobEvent, OfferedRecipe, StagedInput, StepResult, Translation,
};
use crate::plugins::{PluginError, PluginHost, World};
use crate::task::{ProbeConfig, Task};

/// `plugin check`: one line a world (only those it claims, unless `only` names one), and
/// whether the component is usable: it fits `only`, or fits every world it exports and at
/// least one. `Err`: one line, the file is unreadable or not a component.
pub async fn check(
    file: &Path,
    only: Option<World>,
    cfg: &Config,
) -> Result<(Vec<String>, bool), String> {
    let results = check_file(file, &cfg.plugins, only).await?;
    let mut lines = Vec::new();
    let mut fits = 0;
    let mut usable = true;
    for (world, result) in results {
        match result {
            Ok(fit) => {
                fits += 1;
                lines.push(format!(
                    "{}: implements the {} world (WIT {}{})",
                    file.display(),
                    world.name(),
                    fit.version.name(),
                    if fit.config_checked {
                        "; its check-config accepts the config"
                    } else {
                        ""
                    }
                ));
            }
            Err(Unfit::Absent(why)) if only.is_none() => {
                lines.push(format!(
                    "{}: not a {} plugin: {why}",
                    file.display(),
                    world.name()
                ));
            }
            Err(unfit) => {
                usable = false;
                lines.push(unfit.line(file, world));
            }
        }
    }
    Ok((lines, usable && fits > 0))
}

/// The largest refused result `plugin run` prints, in bytes of JSON.
const SHOWN: usize = 64 * 1024;

/// What `plugin run` reads: the function to call and its arguments (`docs/plugins/samples/`).
#[derive(Debug, Deserialize)]
#[serde(tag = "function", rename_all = "kebab-case")]
pub enum Call {
    BuildTask {
        task: Task,
        inputs: Vec<StagedInput>,
        output_dir: String,
    },
    BuildProbe {
        probe: ProbeConfig,
        input_path: String,
    },
    TranslateTask {
        instructions: String,
        inputs: Vec<InputFacts>,
        /// What a 0.3.0 translator may answer with instead of a task.
        #[serde(default)]
        recipes: Vec<OfferedRecipe>,
    },
    TranslateProbe {
        instructions: String,
        input: InputFacts,
    },
    FormatEvent {
        event: JobEvent,
    },
    Recipes {},
    Plan {
        recipe: String,
        #[serde(default)]
        params: Value,
        inputs: Vec<InputFacts>,
        #[serde(default)]
        results: Vec<StepResult>,
    },
}

impl Call {
    fn world(&self) -> World {
        match self {
            Call::BuildTask { .. } | Call::BuildProbe { .. } => World::CommandBuilder,
            Call::TranslateTask { .. } | Call::TranslateProbe { .. } => World::Translator,
            Call::FormatEvent { .. } => World::WebhookFormatter,
            Call::Recipes {} | Call::Plan { .. } => World::Recipe,
        }
    }
}

/// `plugin run`: the plugin at `file` loaded for `world` with the limits and plugin config of
/// `cfg`, called once with `input`. `Ok`: the JSON to print (`ok` says whether the call gave a
/// result the host accepts). `Err`: one line, nothing was called.
pub async fn run(world: World, file: &Path, input: &str, cfg: &Config) -> Result<Value, String> {
    let call: Call = serde_json::from_str(input).map_err(|e| format!("input: {e}"))?;
    if call.world() != world {
        return Err(format!(
            "input: that function belongs to the {} world, not the {} world",
            call.world().name(),
            world.name()
        ));
    }
    let net = Net::new(&cfg.net).map_err(|e| format!("{e:#}"))?;
    let host = PluginHost::load_one(&cfg.plugins, world, file, &net)
        .await
        .map_err(|e| format!("{e:#}"))?;
    let answer = match call {
        Call::BuildTask {
            task,
            inputs,
            output_dir,
        } => host
            .build_task(&task, &inputs, &output_dir)
            .await
            .map(|cmd| {
                let out = Path::new(&output_dir);
                let checked = argv::ffmpeg_argv(&cmd, &inputs, out.parent().unwrap_or(out), out);
                (json!(cmd), checked.map(|argv| json!(argv)).map_err(|r| r.0))
            }),
        Call::BuildProbe { probe, input_path } => {
            host.build_probe(&probe, &input_path).await.map(|cmd| {
                let input = Path::new(&input_path);
                let checked =
                    argv::ffprobe_argv(&cmd, &input_path, input.parent().unwrap_or(input));
                (json!(cmd), checked.map(|argv| json!(argv)).map_err(|r| r.0))
            })
        }
        Call::TranslateTask {
            instructions,
            inputs,
            recipes,
        } => host
            .translate_task(&instructions, &inputs, &recipes)
            .await
            .map(|answer| match answer {
                Translation::Task(task) => {
                    let unknown = task
                        .inputs
                        .iter()
                        .find(|i| !inputs.iter().any(|f| f.name == i.file_path))
                        .map(|i| {
                            crate::error::AppError::UnknownInput(i.file_path.clone()).to_string()
                        });
                    (json!(task), unknown.map_or(Ok(Value::Null), Err))
                }
                Translation::Recipe { name, params } => {
                    let offered = recipes.iter().any(|r| r.name == name);
                    let checked = match serde_json::from_str::<Value>(&params) {
                        Ok(Value::Object(_)) if offered => Ok(Value::Null),
                        Ok(Value::Object(_)) => Err(format!("recipe '{name}' was not offered")),
                        _ => Err(format!(
                            "the params of recipe '{name}' are not a JSON object"
                        )),
                    };
                    (json!({"recipe": {"name": name, "params": params}}), checked)
                }
            }),
        Call::TranslateProbe {
            instructions,
            input,
        } => host
            .translate_probe(&instructions, &input)
            .await
            .map(|probe| (json!(probe), Ok(Value::Null))),
        Call::FormatEvent { event } => host.format_event(&event).await.map(|request| {
            let checked = checked_headers(&request).map(|_| Value::Null);
            (json!(request), checked)
        }),
        Call::Recipes {} => host.recipes().await.map(|list| {
            let unparsed = list.iter().find_map(|r| {
                let bad = |text: &str| serde_json::from_str::<Value>(text).is_err();
                (bad(&r.params_schema) || bad(&r.example)).then(|| {
                    format!(
                        "recipe '{}' has a schema or example that is not JSON",
                        r.name
                    )
                })
            });
            (json!(list), unparsed.map_or(Ok(Value::Null), Err))
        }),
        Call::Plan {
            recipe,
            params,
            inputs,
            results,
        } => {
            let params = if params.is_null() { json!({}) } else { params };
            host.plan_recipe(&recipe, &params.to_string(), &inputs, &results)
                .await
                .map(|plan| (json!(plan), Ok(Value::Null)))
        }
    };
    Ok(match answer {
        Ok((result, Ok(Value::Null))) => json!({ "ok": true, "result": result }),
        Ok((result, Ok(argv))) => json!({ "ok": true, "result": result, "argv": argv }),
        Ok((result, Err(why))) => json!({
            "ok": false,
            // What was refused, unless it is too big to read (a body over the limit).
            "result": if result.to_string().len() <= SHOWN { result } else { json!("(not shown: too big)") },
            "failed": { "kind": "output", "reason": format!("the host refuses what it returned: {why}") },
        }),
        Err(PluginError::Refused { message, subject }) => json!({
            "ok": false,
            "refused": { "message": message, "subject": subject },
        }),
        Err(PluginError::Failed { kind, reason, .. }) => json!({
            "ok": false,
            "failed": { "kind": kind.as_str(), "reason": reason },
        }),
        Err(e @ PluginError::Missing(_)) => return Err(e.to_string()),
    })
}
