//! The adapter of `mediaforge:plugin@0.3.0` (`wit/0.3.0/plugin.wit`), whose new worlds are
//! `recipe` and a `translator` that may answer with a recipe. Its `types` are 0.1.0's unchanged (the generated records are shared, `with`, and so
//! are their conversions); its `host` is the same two functions under the new version's name, and
//! its `facts` the translator's records under a types-only interface of their own (bindgen's
//! `with` takes only imported interfaces; their conversion is the shared `facts_to_wit!`).

use wasmtime::Store;
use wasmtime::component::{HasSelf, InstancePre, Linker};

use super::v0_1_0::{from_wit_probe, from_wit_refusal, from_wit_task};
use crate::plugins::types::{
    CompletionRequest, InputFacts, OfferedRecipe, RecipeInfo, RecipePlan, RecipeStep, Refusal,
    StepResult, Translation,
};
use crate::plugins::{State, World};
use crate::task::ProbeConfig;

mod bindings {
    pub mod recipe {
        wasmtime::component::bindgen!({
            path: "../wit/0.3.0",
            inline: "
                package mediaforge:host-v0-3-0;
                world recipe {
                    import mediaforge:plugin/host@0.3.0;
                    export mediaforge:plugin/recipes@0.3.0;
                }
            ",
            world: "mediaforge:host-v0-3-0/recipe",
            imports: { default: async },
            exports: { default: async },
            with: {
                "mediaforge:plugin/types@0.3.0": crate::plugins::wit::v0_1_0::bindings::builder::mediaforge::plugin::types,
            },
        });
    }

    pub mod translator {
        wasmtime::component::bindgen!({
            path: "../wit/0.3.0",
            inline: "
                package mediaforge:host-v0-3-0;
                world translator {
                    import mediaforge:plugin/host@0.3.0;
                    import mediaforge:plugin/llm@0.3.0;
                    export mediaforge:plugin/translate@0.3.0;
                }
            ",
            world: "mediaforge:host-v0-3-0/translator",
            imports: { default: async },
            exports: { default: async },
            with: {
                "mediaforge:plugin/types@0.3.0": crate::plugins::wit::v0_1_0::bindings::builder::mediaforge::plugin::types,
                "mediaforge:plugin/host@0.3.0": super::recipe::mediaforge::plugin::host,
                "mediaforge:plugin/facts@0.3.0": super::recipe::mediaforge::plugin::facts,
            },
        });
    }
}

use super::v0_1_0::bindings::builder::mediaforge::plugin::types;
use bindings::recipe::exports::mediaforge::plugin::recipes as wit_recipes;
use bindings::recipe::mediaforge::plugin::facts as wit_facts;
use bindings::recipe::mediaforge::plugin::host as wit_host;
use bindings::translator::exports::mediaforge::plugin::translate as wit_translate;
use bindings::translator::mediaforge::plugin::llm as wit_llm;

/// The contract this adapter speaks, for telling an author how their component differs.
pub const WIT: &str = include_str!("../../../../wit/0.3.0/plugin.wit");

const CONFIGURE: &str = "mediaforge:plugin/configure@0.3.0";

/// The interface a component exports to implement `world` in this version: `recipe` and the
/// translator are new here.
pub fn export(world: World) -> Option<&'static str> {
    match world {
        World::Recipe => Some("mediaforge:plugin/recipes@0.3.0"),
        World::Translator => Some("mediaforge:plugin/translate@0.3.0"),
        World::CommandBuilder | World::WebhookFormatter => None,
    }
}

pub fn add_imports(linker: &mut Linker<State>, world: World) -> wasmtime::Result<()> {
    wit_host::add_to_linker::<State, HasSelf<State>>(linker, |s| s)?;
    wit_facts::add_to_linker::<State, HasSelf<State>>(linker, |s| s)?;
    if world == World::Translator {
        wit_llm::add_to_linker::<State, HasSelf<State>>(linker, |s| s)?;
    }
    Ok(())
}

impl wit_host::Host for State {
    async fn config(&mut self) -> String {
        self.config_json.to_string()
    }

    async fn log(&mut self, level: types::LogLevel, message: String) {
        self.plugin_log(super::level(level), &message);
    }
}

impl wit_facts::Host for State {}

llm_host!();

async fn check_config(
    pre: &InstancePre<State>,
    instance: &wasmtime::component::Instance,
    store: &mut Store<State>,
) -> wasmtime::Result<Option<Result<(), String>>> {
    super::check_config_export(pre, instance, store, CONFIGURE).await
}

component!(
    Recipe,
    bindings::recipe::RecipePre<State>,
    bindings::recipe::Recipe,
    "A recipe component of this version."
);

impl Recipe {
    pub async fn recipes(&self, store: &mut Store<State>) -> wasmtime::Result<Vec<RecipeInfo>> {
        let plugin = self.0.instantiate_async(&mut *store).await?;
        let list = plugin
            .mediaforge_plugin_recipes()
            .call_recipes(store)
            .await?;
        Ok(list
            .into_iter()
            .map(|r| RecipeInfo {
                name: r.name,
                description: r.description,
                params_schema: r.params_schema,
                example: r.example,
                min_inputs: r.min_inputs,
                max_inputs: r.max_inputs,
            })
            .collect())
    }

    pub async fn plan(
        &self,
        store: &mut Store<State>,
        recipe: &str,
        params: &str,
        inputs: &[InputFacts],
        results: &[StepResult],
    ) -> wasmtime::Result<Result<RecipePlan, Refusal>> {
        let inputs: Vec<_> = inputs.iter().map(to_wit_facts).collect();
        let results: Vec<_> = results
            .iter()
            .map(|r| wit_recipes::StepResult {
                output: r.output.clone(),
                files: r.files.clone(),
            })
            .collect();
        let plugin = self.0.instantiate_async(&mut *store).await?;
        let plan = plugin
            .mediaforge_plugin_recipes()
            .call_plan(store, recipe, params, &inputs, &results)
            .await?;
        Ok(plan.map(from_wit_plan).map_err(from_wit_refusal))
    }
}

component!(
    Translator,
    bindings::translator::TranslatorPre<State>,
    bindings::translator::Translator,
    "A translator component of this version: its answer may be a recipe."
);

impl Translator {
    pub async fn translate_task(
        &self,
        store: &mut Store<State>,
        instructions: &str,
        inputs: &[InputFacts],
        offered: &[OfferedRecipe],
    ) -> wasmtime::Result<Result<Translation, Refusal>> {
        let inputs: Vec<_> = inputs.iter().map(to_wit_facts).collect();
        let offered: Vec<_> = offered
            .iter()
            .map(|r| wit_translate::OfferedRecipe {
                name: r.name.clone(),
                description: r.description.clone(),
                params_schema: r.params_schema.clone(),
            })
            .collect();
        let plugin = self.0.instantiate_async(&mut *store).await?;
        let answer = plugin
            .mediaforge_plugin_translate()
            .call_translate_task(store, instructions, &inputs, &offered)
            .await?;
        Ok(answer
            .map(|a| match a {
                wit_translate::Answer::Task(t) => Translation::Task(from_wit_task(t)),
                wit_translate::Answer::Recipe(r) => Translation::Recipe {
                    name: r.name,
                    params: r.params,
                },
            })
            .map_err(from_wit_refusal))
    }

    translate_probe!();
}

fn from_wit_plan(plan: wit_recipes::Next) -> RecipePlan {
    match plan {
        wit_recipes::Next::Done(data) => RecipePlan::Done(data),
        wit_recipes::Next::Steps(steps) => RecipePlan::Steps(
            steps
                .into_iter()
                .map(|s| match s {
                    wit_recipes::Step::Ffmpeg(t) => RecipeStep::Ffmpeg(from_wit_task(t)),
                    wit_recipes::Step::Analysis(t) => RecipeStep::Analysis(from_wit_task(t)),
                    wit_recipes::Step::Probe(p) => RecipeStep::Probe {
                        input: p.input,
                        probe: from_wit_probe(p.probe),
                    },
                    wit_recipes::Step::Text(t) => RecipeStep::Text {
                        file: t.file,
                        content: t.content,
                    },
                })
                .collect(),
        ),
    }
}

facts_to_wit!(wit_facts);
