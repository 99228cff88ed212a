//! Generated bindings of the three worlds. The shared `types` and `host` interfaces are
//! generated once (with the command-builder world) and reused by the others, so one `Host`
//! implementation serves every plugin. Calls are async: a running plugin yields to the runtime
//! at every epoch tick, so no thread is held and none is handed off to.

use wasmtime::component::{HasSelf, Linker};

use super::{State, World};

pub mod builder {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "command-builder",
        imports: { default: async },
        exports: { default: async },
    });
}

pub mod translator {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "translator",
        imports: { default: async },
        exports: { default: async },
        with: {
            "mediaforge:plugin/types": super::builder::mediaforge::plugin::types,
            "mediaforge:plugin/host": super::builder::mediaforge::plugin::host,
        },
    });
}

pub mod formatter {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "webhook-formatter",
        imports: { default: async },
        exports: { default: async },
        with: {
            "mediaforge:plugin/types": super::builder::mediaforge::plugin::types,
            "mediaforge:plugin/host": super::builder::mediaforge::plugin::host,
        },
    });
}

pub use builder::mediaforge::plugin::types;

pub fn add_host_imports(linker: &mut Linker<State>, world: World) -> wasmtime::Result<()> {
    builder::mediaforge::plugin::host::add_to_linker::<State, HasSelf<State>>(linker, |s| s)?;
    if world == World::Translator {
        translator::mediaforge::plugin::llm::add_to_linker::<State, HasSelf<State>>(linker, |s| s)?;
    }
    Ok(())
}

impl builder::mediaforge::plugin::host::Host for State {
    async fn config(&mut self) -> String {
        self.config_json.to_string()
    }

    async fn log(&mut self, level: types::LogLevel, message: String) {
        let message: String = message.chars().take(2000).collect();
        let plugin = self.plugin;
        match level {
            types::LogLevel::Debug => tracing::debug!(plugin, "{message}"),
            types::LogLevel::Info => tracing::info!(plugin, "{message}"),
            types::LogLevel::Warn => tracing::warn!(plugin, "{message}"),
            types::LogLevel::Error => tracing::error!(plugin, "{message}"),
        }
    }
}

impl builder::mediaforge::plugin::types::Host for State {}

impl translator::mediaforge::plugin::llm::Host for State {
    async fn complete(
        &mut self,
        request: translator::mediaforge::plugin::llm::CompletionRequest,
    ) -> Result<String, String> {
        let Some(access) = self.llm.clone() else {
            return Err("the llm import is not granted to this plugin".into());
        };
        // The guest waits (its call is suspended); the runtime's thread does not.
        super::translator::complete(&access, request).await
    }
}
