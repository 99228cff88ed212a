//! The plugin contract versions the host speaks, one adapter file each. A component's version
//! is read from the interface it exports, so a version is a sibling file and a variant below;
//! no caller changes.

#[macro_use]
mod adapter;
pub mod v0_1_0;
pub mod v0_2_0;
pub mod v0_3_0;

use wasmtime::Engine;
use wasmtime::Store;
use wasmtime::component::{Component, InstancePre, Linker};

use super::types::{
    BuiltCommand, BuiltProbe, CallbackRequest, InputFacts, JobEvent, OfferedRecipe, Refusal,
    StagedInput, Translation,
};
use super::{State, World};
use crate::task::{ProbeConfig, Task};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V0_1_0,
    V0_2_0,
    V0_3_0,
}

impl Version {
    /// Newest first: what `plugin check` names when a component exports neither.
    pub const ALL: [Version; 3] = [Version::V0_3_0, Version::V0_2_0, Version::V0_1_0];

    pub fn name(self) -> &'static str {
        match self {
            Version::V0_1_0 => "0.1.0",
            Version::V0_2_0 => "0.2.0",
            Version::V0_3_0 => "0.3.0",
        }
    }

    /// The interface a component of this version exports to implement `world`, when the
    /// version has that world.
    pub fn export(self, world: World) -> Option<&'static str> {
        match self {
            Version::V0_1_0 => v0_1_0::export(world),
            Version::V0_2_0 => v0_2_0::export(world),
            Version::V0_3_0 => v0_3_0::export(world),
        }
    }

    /// What a component of `world` may export, newest first.
    pub fn exports(world: World) -> Vec<&'static str> {
        Version::ALL
            .iter()
            .filter_map(|v| v.export(world))
            .collect()
    }

    pub fn add_imports(self, linker: &mut Linker<State>, world: World) -> wasmtime::Result<()> {
        match self {
            Version::V0_1_0 => v0_1_0::add_imports(linker, world),
            Version::V0_2_0 => v0_2_0::add_imports(linker, world),
            Version::V0_3_0 => v0_3_0::add_imports(linker, world),
        }
    }

    /// The WIT text of this version, as the host was built against it.
    pub fn wit(self) -> &'static str {
        match self {
            Version::V0_1_0 => v0_1_0::WIT,
            Version::V0_2_0 => v0_2_0::WIT,
            Version::V0_3_0 => v0_3_0::WIT,
        }
    }
}

/// A component linked for one world, of whichever version.
pub enum Linked {
    Builder(Builder),
    Translator(Translator),
    Formatter(Formatter),
    Recipe(v0_3_0::Recipe),
}

impl Linked {
    /// Checks the export names (the generated `*Pre::new`); types are checked on instantiation.
    pub fn new(
        world: World,
        version: Version,
        pre: InstancePre<State>,
    ) -> wasmtime::Result<Linked> {
        Ok(match world {
            World::CommandBuilder => Linked::Builder(Builder::new(version, pre)?),
            World::Translator => Linked::Translator(Translator::new(version, pre)?),
            World::WebhookFormatter => Linked::Formatter(Formatter::new(version, pre)?),
            // `detect` finds a recipe export only in 0.3.0.
            World::Recipe => Linked::Recipe(v0_3_0::Recipe::new(pre)?),
        })
    }

    /// Instantiates the component once, which type-checks every export it is called through;
    /// `check_config` asks that same instance.
    pub async fn instantiate(
        &self,
        store: &mut Store<State>,
    ) -> wasmtime::Result<wasmtime::component::Instance> {
        match self {
            Linked::Builder(Builder::V0_1_0(b)) => b.instantiate(store).await,
            Linked::Builder(Builder::V0_2_0(b)) => b.instantiate(store).await,
            Linked::Translator(Translator::V0_1_0(t)) => t.instantiate(store).await,
            Linked::Translator(Translator::V0_2_0(t)) => t.instantiate(store).await,
            Linked::Translator(Translator::V0_3_0(t)) => t.instantiate(store).await,
            Linked::Formatter(Formatter::V0_1_0(f)) => f.instantiate(store).await,
            Linked::Formatter(Formatter::V0_2_0(f)) => f.instantiate(store).await,
            Linked::Recipe(r) => r.instantiate(store).await,
        }
    }

    /// The component's verdict on the config in `store` (`configure.check-config`), or `None`
    /// when it cannot say (0.1.0 has no such export; in 0.2.0 it is optional).
    pub async fn check_config(
        &self,
        store: &mut Store<State>,
        instance: &wasmtime::component::Instance,
    ) -> wasmtime::Result<Option<Result<(), String>>> {
        match self {
            Linked::Builder(Builder::V0_1_0(b)) => b.check_config(store, instance).await,
            Linked::Builder(Builder::V0_2_0(b)) => b.check_config(store, instance).await,
            Linked::Translator(Translator::V0_1_0(t)) => t.check_config(store, instance).await,
            Linked::Translator(Translator::V0_2_0(t)) => t.check_config(store, instance).await,
            Linked::Translator(Translator::V0_3_0(t)) => t.check_config(store, instance).await,
            Linked::Formatter(Formatter::V0_1_0(f)) => f.check_config(store, instance).await,
            Linked::Formatter(Formatter::V0_2_0(f)) => f.check_config(store, instance).await,
            Linked::Recipe(r) => r.check_config(store, instance).await,
        }
    }
}

/// A plugin's log level (0.2.0 shares 0.1.0's `types`).
fn level(level: v0_1_0::bindings::builder::mediaforge::plugin::types::LogLevel) -> tracing::Level {
    use v0_1_0::bindings::builder::mediaforge::plugin::types::LogLevel;
    match level {
        LogLevel::Debug => tracing::Level::DEBUG,
        LogLevel::Info => tracing::Level::INFO,
        LogLevel::Warn => tracing::Level::WARN,
        LogLevel::Error => tracing::Level::ERROR,
    }
}

/// The version of `world` a component implements, from the interface it exports.
pub fn detect(engine: &Engine, component: &Component, world: World) -> Result<Version, String> {
    let ty = component.component_type();
    let exports: Vec<&str> = ty.exports(engine).map(|(name, _)| name).collect();
    Version::ALL
        .into_iter()
        .find(|v| v.export(world).is_some_and(|e| exports.contains(&e)))
        .ok_or_else(|| {
            let wanted = Version::exports(world);
            format!(
                "it exports {} but not {}",
                if exports.is_empty() {
                    "nothing".to_string()
                } else {
                    exports.join(", ")
                },
                wanted.join(" or ")
            )
        })
}

/// Calls the `check-config` of the `configure` export named `configure` on `instance` (the one
/// that type-checked it): `None` when the component has none.
pub async fn check_config_export(
    pre: &InstancePre<State>,
    instance: &wasmtime::component::Instance,
    store: &mut Store<State>,
    configure: &str,
) -> wasmtime::Result<Option<Result<(), String>>> {
    let component = pre.component();
    let Some(func) = component
        .get_export_index(None, configure)
        .and_then(|i| component.get_export_index(Some(&i), "check-config"))
    else {
        return Ok(None);
    };
    let check = instance.get_typed_func::<(), (Result<(), String>,)>(&mut *store, &func)?;
    let (answer,) = check.call_async(&mut *store, ()).await?;
    Ok(Some(answer))
}

/// A world a version does not have (`detect` never picks it).
fn absent(version: Version) -> wasmtime::Error {
    wasmtime::Error::msg(format!("WIT {} does not have this world", version.name()))
}

/// A command-builder component, of whichever version.
pub enum Builder {
    V0_1_0(v0_1_0::Builder),
    V0_2_0(v0_2_0::Builder),
}

impl Builder {
    pub fn new(version: Version, pre: InstancePre<State>) -> wasmtime::Result<Builder> {
        match version {
            Version::V0_1_0 => v0_1_0::Builder::new(pre).map(Builder::V0_1_0),
            Version::V0_2_0 => v0_2_0::Builder::new(pre).map(Builder::V0_2_0),
            Version::V0_3_0 => Err(absent(version)),
        }
    }

    pub async fn build_task(
        &self,
        store: &mut Store<State>,
        task: &Task,
        inputs: &[StagedInput],
        output_dir: &str,
    ) -> wasmtime::Result<Result<BuiltCommand, Refusal>> {
        match self {
            Builder::V0_1_0(b) => b.build_task(store, task, inputs, output_dir).await,
            Builder::V0_2_0(b) => b.build_task(store, task, inputs, output_dir).await,
        }
    }

    pub async fn build_probe(
        &self,
        store: &mut Store<State>,
        probe: &ProbeConfig,
        input_path: &str,
    ) -> wasmtime::Result<Result<BuiltProbe, Refusal>> {
        match self {
            Builder::V0_1_0(b) => b.build_probe(store, probe, input_path).await,
            Builder::V0_2_0(b) => b.build_probe(store, probe, input_path).await,
        }
    }
}

/// A translator component, of whichever version.
pub enum Translator {
    V0_1_0(v0_1_0::Translator),
    V0_2_0(v0_2_0::Translator),
    V0_3_0(v0_3_0::Translator),
}

impl Translator {
    pub fn new(version: Version, pre: InstancePre<State>) -> wasmtime::Result<Translator> {
        match version {
            Version::V0_1_0 => v0_1_0::Translator::new(pre).map(Translator::V0_1_0),
            Version::V0_2_0 => v0_2_0::Translator::new(pre).map(Translator::V0_2_0),
            Version::V0_3_0 => v0_3_0::Translator::new(pre).map(Translator::V0_3_0),
        }
    }

    /// A task, or a recipe of `offered` (only 0.3.0 is told of recipes; older versions
    /// answer with a task).
    pub async fn translate_task(
        &self,
        store: &mut Store<State>,
        instructions: &str,
        inputs: &[InputFacts],
        offered: &[OfferedRecipe],
    ) -> wasmtime::Result<Result<Translation, Refusal>> {
        let task = match self {
            Translator::V0_1_0(t) => t.translate_task(store, instructions, inputs).await,
            Translator::V0_2_0(t) => t.translate_task(store, instructions, inputs).await,
            Translator::V0_3_0(t) => {
                return t.translate_task(store, instructions, inputs, offered).await;
            }
        };
        Ok(task?.map(Translation::Task))
    }

    pub async fn translate_probe(
        &self,
        store: &mut Store<State>,
        instructions: &str,
        input: &InputFacts,
    ) -> wasmtime::Result<Result<ProbeConfig, Refusal>> {
        match self {
            Translator::V0_1_0(t) => t.translate_probe(store, instructions, input).await,
            Translator::V0_2_0(t) => t.translate_probe(store, instructions, input).await,
            Translator::V0_3_0(t) => t.translate_probe(store, instructions, input).await,
        }
    }
}

/// A webhook-formatter component, of whichever version.
pub enum Formatter {
    V0_1_0(v0_1_0::Formatter),
    V0_2_0(v0_2_0::Formatter),
}

impl Formatter {
    pub fn new(version: Version, pre: InstancePre<State>) -> wasmtime::Result<Formatter> {
        match version {
            Version::V0_1_0 => v0_1_0::Formatter::new(pre).map(Formatter::V0_1_0),
            Version::V0_2_0 => v0_2_0::Formatter::new(pre).map(Formatter::V0_2_0),
            Version::V0_3_0 => Err(absent(version)),
        }
    }

    pub async fn format_event(
        &self,
        store: &mut Store<State>,
        event: &JobEvent,
    ) -> wasmtime::Result<Result<CallbackRequest, Refusal>> {
        match self {
            Formatter::V0_1_0(f) => f.format_event(store, event).await,
            Formatter::V0_2_0(f) => f.format_event(store, event).await,
        }
    }
}
