//! The adapter of `mediaforge:plugin@0.3.0` (`wit/0.3.0/plugin.wit`), whose one new world is
//! `recipe`. Its `types` are 0.1.0's unchanged (the generated records are shared, `with`, and so
//! are their conversions); its `host` is the same two functions under the new version's name, and
//! its `facts` the translator's records under a types-only interface of their own (bindgen's
//! `with` takes only imported interfaces; their conversion is the shared `facts_to_wit!`).

use wasmtime::Store;
use wasmtime::component::{HasSelf, InstancePre, Linker};

use super::v0_1_0::{from_wit_probe, from_wit_refusal, from_wit_task};
use crate::plugins::types::{InputFacts, RecipeInfo, RecipePlan, RecipeStep, Refusal, StepResult};
use crate::plugins::{State, World};

mod bindings {
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

use super::v0_1_0::bindings::builder::mediaforge::plugin::types;
use bindings::exports::mediaforge::plugin::recipes as wit_recipes;
use bindings::mediaforge::plugin::facts as wit_facts;
use bindings::mediaforge::plugin::host as wit_host;

/// The contract this adapter speaks, for telling an author how their component differs.
pub const WIT: &str = include_str!("../../../../wit/0.3.0/plugin.wit");

const CONFIGURE: &str = "mediaforge:plugin/configure@0.3.0";

/// The interface a component exports to implement `world` in this version: only `recipe` is
/// new here.
pub fn export(world: World) -> Option<&'static str> {
    (world == World::Recipe).then_some("mediaforge:plugin/recipes@0.3.0")
}

pub fn add_imports(linker: &mut Linker<State>, _world: World) -> wasmtime::Result<()> {
    wit_host::add_to_linker::<State, HasSelf<State>>(linker, |s| s)?;
    wit_facts::add_to_linker::<State, HasSelf<State>>(linker, |s| s)
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

async fn check_config(
    pre: &InstancePre<State>,
    instance: &wasmtime::component::Instance,
    store: &mut Store<State>,
) -> wasmtime::Result<Option<Result<(), String>>> {
    super::check_config_export(pre, instance, store, CONFIGURE).await
}

component!(
    Recipe,
    bindings::RecipePre<State>,
    bindings::Recipe,
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
