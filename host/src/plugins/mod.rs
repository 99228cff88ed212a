//! The plugin runtime: one wasmtime engine, each configured component compiled once (and cached
//! on disk), pre-instantiated once, then a fresh bounded `Store` per call. Plugins get an empty
//! WASI context (no files, no network, no environment) plus the `host` import; a translator the
//! operator granted it also gets `llm`.

mod builder;
mod formatter;
mod translator;
pub mod types;
pub mod wit;

pub use translator::facts_from_probe;

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;
use wasmtime::component::{Component, InstancePre, Linker, ResourceTable};
use wasmtime::{
    Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store, StoreLimits,
    StoreLimitsBuilder,
};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::config;
use crate::net::Net;

/// Bytes of each pooled linear memory reset in place (and kept resident) between calls.
const KEEP_RESIDENT: usize = 2 * 1024 * 1024;

/// Epoch ticks are this long; call budgets are whole ticks.
const TICK: Duration = Duration::from_millis(5);

/// The three worlds of `wit/plugin.wit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum World {
    CommandBuilder,
    Translator,
    WebhookFormatter,
}

impl World {
    pub const ALL: [World; 3] = [
        World::CommandBuilder,
        World::Translator,
        World::WebhookFormatter,
    ];

    pub fn name(self) -> &'static str {
        match self {
            World::CommandBuilder => "command-builder",
            World::Translator => "translator",
            World::WebhookFormatter => "webhook-formatter",
        }
    }

    /// File name of the default plugin that `make build` produces.
    fn default_file(self) -> &'static str {
        match self {
            World::CommandBuilder => "command_builder.wasm",
            World::Translator => "translator.wasm",
            World::WebhookFormatter => "webhook_formatter.wasm",
        }
    }

    fn entry(self, cfg: &config::Plugins) -> Option<&config::PluginEntry> {
        match self {
            World::CommandBuilder => cfg.command_builder.as_ref(),
            World::Translator => cfg.translator.as_ref(),
            World::WebhookFormatter => cfg.webhook_formatter.as_ref(),
        }
    }
}

/// What a call's store holds.
pub struct State {
    wasi: WasiCtx,
    table: ResourceTable,
    limits: StoreLimits,
    plugin: &'static str,
    config_json: Arc<str>,
    llm: Option<Arc<LlmAccess>>,
}

pub struct LlmAccess {
    pub grant: config::LlmGrant,
    pub net: Net,
    pub api_key: Option<String>,
}

impl State {
    /// A plugin's log line, bounded, under the plugin's name.
    fn plugin_log(&self, level: tracing::Level, message: &str) {
        let message: String = message.chars().take(2000).collect();
        let plugin = self.plugin;
        match level {
            tracing::Level::DEBUG => tracing::debug!(plugin, "{message}"),
            tracing::Level::INFO => tracing::info!(plugin, "{message}"),
            tracing::Level::WARN => tracing::warn!(plugin, "{message}"),
            _ => tracing::error!(plugin, "{message}"),
        }
    }

    /// The `llm` import: the guest waits (its call is suspended); the runtime's thread does not.
    async fn llm_complete(&mut self, request: types::CompletionRequest) -> Result<String, String> {
        let Some(access) = self.llm.clone() else {
            return Err("the llm import is not granted to this plugin".into());
        };
        translator::complete(&access, request).await
    }
}

impl WasiView for State {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    /// The plugin refused, with a message for the tenant.
    #[error("{message}")]
    Refused {
        message: String,
        subject: Option<String>,
    },
    /// The plugin trapped, ran out of time or memory, or returned something unacceptable.
    #[error("plugin {plugin} failed: {reason}")]
    Failed {
        plugin: &'static str,
        reason: String,
    },
    #[error("no plugin is configured for the {0} world")]
    Missing(&'static str),
}

/// A loaded component, ready to instantiate.
struct Loaded<P> {
    pre: P,
    path: PathBuf,
    /// The component's SHA-256 and its config: what its output is a function of.
    identity: String,
    config_json: Arc<str>,
    llm: Option<Arc<LlmAccess>>,
    budget_ticks: u64,
}

pub struct PluginHost {
    engine: Engine,
    builder: Option<Loaded<wit::Builder>>,
    translator: Option<Loaded<wit::Translator>>,
    formatter: Option<Loaded<wit::Formatter>>,
    permits: Arc<Semaphore>,
    memory_bytes: usize,
}

impl PluginHost {
    /// Loads the configured plugins (or the defaults) for every world. A configured plugin
    /// that is missing or does not implement its world stops start-up.
    pub fn load(cfg: &config::Plugins, cache_dir: &Path, net: &Net) -> anyhow::Result<PluginHost> {
        let engine = new_engine(cfg)?;
        spawn_ticker(&engine);
        let mut host = PluginHost {
            engine,
            builder: None,
            translator: None,
            formatter: None,
            permits: Arc::new(Semaphore::new(cfg.max_instances as usize)),
            memory_bytes: (cfg.memory_mb * 1024 * 1024) as usize,
        };
        for world in World::ALL {
            let (path, entry) = match world.entry(cfg) {
                Some(entry) => (entry.path.clone(), Some(entry)),
                None => (cfg.default_dir.join(world.default_file()), None),
            };
            if entry.is_none() && !path.exists() {
                tracing::warn!(
                    "no {} plugin: {} not found (run `make build`)",
                    world.name(),
                    path.display()
                );
                continue;
            }
            let (component, digest) = compile_cached(&host.engine, &path, cache_dir)?;
            let config_json: Arc<str> = match entry.and_then(|e| e.config.as_ref()) {
                Some(table) => serde_json::to_string(table)?.into(),
                None => "{}".into(),
            };
            let llm = match entry.and_then(|e| e.llm.as_ref()) {
                Some(grant) if world == World::Translator => Some(Arc::new(LlmAccess {
                    grant: grant.clone(),
                    net: net.clone(),
                    api_key: (!grant.api_key_env.is_empty())
                        .then(|| std::env::var(&grant.api_key_env).ok())
                        .flatten(),
                })),
                Some(_) => anyhow::bail!(
                    "config key `plugins.{}.llm`: only translator plugins may be granted llm",
                    world.name().replace('-', "_")
                ),
                None => None,
            };
            let mut ticks = cfg.timeout_ms.div_ceil(TICK.as_millis() as u64).max(1);
            if let Some(llm) = &llm {
                // Waiting for the model counts against the call; allow a few round trips.
                ticks += 3 * llm.grant.timeout_s * 1000 / TICK.as_millis() as u64;
            }
            let version = wit::detect(&host.engine, &component, world)
                .map_err(|e| not_world(&path, world, e))?;
            let linker = linker_for(&host.engine, world, version)?;
            let pre = linker
                .instantiate_pre(&component)
                .map_err(|e| not_world(&path, world, e))?;
            macro_rules! loaded {
                ($pre:expr) => {
                    Some(Loaded {
                        pre: $pre.map_err(|e| not_world(&path, world, e))?,
                        path: path.clone(),
                        identity: format!("{digest}:{config_json}"),
                        config_json,
                        llm,
                        budget_ticks: ticks,
                    })
                };
            }
            match world {
                World::CommandBuilder => {
                    host.builder = loaded!(wit::Builder::new(version, pre));
                }
                World::Translator => {
                    host.translator = loaded!(wit::Translator::new(version, pre));
                }
                World::WebhookFormatter => {
                    host.formatter = loaded!(wit::Formatter::new(version, pre));
                }
            }
            tracing::info!(
                "plugin {} ({}) loaded from {}",
                world.name(),
                version.name(),
                path.display()
            );
        }
        Ok(host)
    }

    /// The command builder's component hash and config, for result cache keys (`cache/`).
    pub fn builder_identity(&self) -> Option<&str> {
        self.builder.as_ref().map(|l| l.identity.as_str())
    }

    /// Which worlds have a plugin, and from where (for readiness reports).
    pub fn loaded(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(l) = &self.builder {
            out.push((World::CommandBuilder.name(), l.path.display().to_string()));
        }
        if let Some(l) = &self.translator {
            out.push((World::Translator.name(), l.path.display().to_string()));
        }
        if let Some(l) = &self.formatter {
            out.push((World::WebhookFormatter.name(), l.path.display().to_string()));
        }
        out
    }

    /// Runs `f` (instantiate and call, through the version's adapter) in a fresh bounded
    /// store. The call runs on this task: at every epoch tick the plugin yields to the runtime,
    /// and when its budget of ticks is spent it is interrupted, so a plugin holds no thread and
    /// cannot starve other requests.
    async fn call<P, R>(
        &self,
        loaded: Option<&Loaded<P>>,
        world: World,
        f: impl for<'a> FnOnce(
            &'a P,
            &'a mut Store<State>,
        ) -> BoxFuture<'a, wasmtime::Result<Result<R, types::Refusal>>>
        + Send,
    ) -> Result<R, PluginError>
    where
        P: Send + Sync,
        R: Send,
    {
        let loaded = loaded.ok_or(PluginError::Missing(world.name()))?;
        let _permit = self
            .permits
            .acquire()
            .await
            .expect("semaphore never closes");
        let state = State {
            wasi: WasiCtx::builder().build(),
            table: ResourceTable::new(),
            limits: StoreLimitsBuilder::new()
                .memory_size(self.memory_bytes)
                .instances(16)
                .trap_on_grow_failure(true)
                .build(),
            plugin: world.name(),
            config_json: loaded.config_json.clone(),
            llm: loaded.llm.clone(),
        };
        let plugin = world.name();
        let started = std::time::Instant::now();
        let _timer = scopeguard(move || {
            crate::metrics::observe(crate::metrics::PLUGIN_SECONDS, plugin, started.elapsed())
        });
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limits);
        let mut ticks_left = loaded.budget_ticks;
        store.set_epoch_deadline(1);
        store.epoch_deadline_callback(move |_| {
            if ticks_left == 0 {
                return Err(wasmtime::Trap::Interrupt.into());
            }
            ticks_left -= 1;
            Ok(wasmtime::UpdateDeadline::Yield(1))
        });
        match f(&loaded.pre, &mut store).await {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(refusal)) => Err(PluginError::Refused {
                message: refusal.message.chars().take(1000).collect(),
                subject: refusal.subject,
            }),
            Err(e) => Err(PluginError::Failed {
                plugin,
                reason: describe_trap(&e),
            }),
        }
    }
}

type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// Runs `f` when dropped (on every way out of a call).
fn scopeguard(f: impl FnOnce()) -> impl Drop {
    struct Guard<F: FnOnce()>(Option<F>);
    impl<F: FnOnce()> Drop for Guard<F> {
        fn drop(&mut self) {
            if let Some(f) = self.0.take() {
                f();
            }
        }
    }
    Guard(Some(f))
}

fn not_world(path: &Path, world: World, e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!(
        "plugin {} does not implement the {} world (it must export {}): {e}",
        path.display(),
        world.name(),
        wit::Version::ALL
            .iter()
            .map(|v| v.export(world))
            .collect::<Vec<_>>()
            .join(" or ")
    )
}

/// A short, stable reason for a failed call.
fn describe_trap(e: &wasmtime::Error) -> String {
    match e.downcast_ref::<wasmtime::Trap>() {
        Some(wasmtime::Trap::Interrupt) => "it ran out of time".into(),
        Some(trap) => {
            let text = format!("{e:#}");
            if text.contains("memory") && text.contains("grow")
                || matches!(trap, wasmtime::Trap::AllocationTooLarge)
            {
                "it ran out of memory".into()
            } else {
                format!("it trapped ({trap})")
            }
        }
        None => {
            let text = format!("{e:#}");
            if text.contains("forcing trap when growing memory")
                || text.contains("memory") && text.contains("limit")
            {
                "it ran out of memory".into()
            } else {
                text.chars().take(300).collect()
            }
        }
    }
}

fn new_engine(cfg: &config::Plugins) -> anyhow::Result<Engine> {
    let memory = cfg.memory_mb * 1024 * 1024;
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(cfg.max_instances)
        .total_core_instances(cfg.max_instances * 4)
        .total_memories(cfg.max_instances * 2)
        .total_tables(cfg.max_instances * 4)
        .total_stacks(cfg.max_instances)
        .max_memory_size(memory as usize)
        // A call's memory is reset with memset and kept resident instead of madvise: no page
        // faults on the next instance and no TLB shootdowns across cores (measured: most of
        // the per-call cost that was not the thread hop).
        .linear_memory_keep_resident(KEEP_RESIDENT)
        .table_keep_resident(64 * 1024)
        .pagemap_scan(wasmtime::Enabled::Auto)
        .decommit_batch_size(16);
    let mut config = wasmtime::Config::new();
    config
        .epoch_interruption(true)
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool))
        // Keep the virtual reservation of the pool modest: bounds checks are cheap for us.
        .memory_reservation(memory)
        .memory_guard_size(64 * 1024)
        .memory_reservation_for_growth(0);
    Engine::new(&config).map_err(wasm_err)
}

/// wasmtime has its own error type; carry its full chain into ours.
fn wasm_err(e: wasmtime::Error) -> anyhow::Error {
    anyhow::anyhow!("{e:#}")
}

/// Keeps the engine's epoch moving; it stops by itself when the engine is dropped.
fn spawn_ticker(engine: &Engine) {
    let weak = engine.weak();
    std::thread::Builder::new()
        .name("plugin-epoch".into())
        .spawn(move || {
            while let Some(engine) = weak.upgrade() {
                engine.increment_epoch();
                drop(engine);
                std::thread::sleep(TICK);
            }
        })
        .expect("spawning the epoch thread");
}

fn linker_for(
    engine: &Engine,
    world: World,
    version: wit::Version,
) -> anyhow::Result<Linker<State>> {
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
    version.add_imports(&mut linker, world)?;
    Ok(linker)
}

/// Compiles a component, or loads the artefact compiled earlier for the same bytes and engine.
/// The compiled component and the SHA-256 (hex) of its bytes.
fn compile_cached(
    engine: &Engine,
    path: &Path,
    cache_dir: &Path,
) -> anyhow::Result<(Component, String)> {
    let bytes =
        std::fs::read(path).with_context(|| format!("cannot read plugin {}", path.display()))?;
    let digest = hex::encode(Sha256::digest(&bytes));
    compile_with_cache(engine, &bytes, &digest, path, cache_dir).map(|c| (c, digest))
}

fn compile_with_cache(
    engine: &Engine,
    bytes: &[u8],
    digest: &str,
    path: &Path,
    cache_dir: &Path,
) -> anyhow::Result<Component> {
    let mut engine_hash = std::collections::hash_map::DefaultHasher::new();
    engine
        .precompile_compatibility_hash()
        .hash(&mut engine_hash);
    let key = format!("{digest}-{:016x}", engine_hash.finish());
    let cached = cache_dir.join(format!("{key}.cwasm"));
    if cached.exists() {
        // SAFETY: the file is one this process family wrote from bytes with this exact hash,
        // for an engine with this exact compatibility hash; nothing else writes the cache dir.
        match unsafe { Component::deserialize_file(engine, &cached) } {
            Ok(component) => return Ok(component),
            Err(e) => tracing::warn!("ignoring plugin cache {}: {e}", cached.display()),
        }
    }
    let compiled = engine
        .precompile_component(bytes)
        .map_err(wasm_err)
        .with_context(|| {
            format!(
                "plugin {} is not a valid WebAssembly component",
                path.display()
            )
        })?;
    std::fs::create_dir_all(cache_dir)?;
    let tmp = cache_dir.join(format!("{key}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, &compiled)?;
    std::fs::rename(&tmp, &cached)?;
    // SAFETY: as above; we wrote it just now.
    unsafe { Component::deserialize_file(engine, &cached) }.map_err(wasm_err)
}

/// For `mediaforge plugin check`: which worlds a component implements, or what it lacks.
pub fn check_component(path: &Path) -> anyhow::Result<Vec<(World, Result<(), String>)>> {
    let cfg = config::Plugins::default();
    let engine = new_engine(&cfg)?;
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let component = Component::from_binary(&engine, &bytes)
        .map_err(wasm_err)
        .with_context(|| format!("{} is not a valid WebAssembly component", path.display()))?;
    let mut out = Vec::new();
    for world in World::ALL {
        let result = (|| -> anyhow::Result<()> {
            let version = wit::detect(&engine, &component, world).map_err(anyhow::Error::msg)?;
            let linker = linker_for(&engine, world, version)?;
            let pre: InstancePre<State> = linker.instantiate_pre(&component)?;
            match world {
                World::CommandBuilder => drop(wit::Builder::new(version, pre)?),
                World::Translator => drop(wit::Translator::new(version, pre)?),
                World::WebhookFormatter => drop(wit::Formatter::new(version, pre)?),
            }
            Ok(())
        })();
        out.push((world, result.map_err(|e| format!("{e:#}"))));
    }
    Ok(out)
}
