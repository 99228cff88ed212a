//! The plugin runtime: one wasmtime engine, each configured component compiled once (and cached
//! on disk), checked and pre-instantiated once, then a fresh bounded `Store` per call. Plugins
//! get an empty WASI context (no files, no network, no environment) plus the `host` import; a
//! translator the operator granted it also gets `llm`.
//!
//! Every call is bounded in wall time, whatever the plugin is doing: the epoch makes running
//! code yield each tick, and the call's future is dropped at its deadline, so time blocked in a
//! host or WASI call (a sleep, a poll, the model endpoint) counts too. Dropping the future
//! abandons the instance; its store is dropped with it.

mod builder;
pub mod check;
mod formatter;
mod recipe;
pub mod reload;
mod ticker;
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
use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{
    Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store, StoreLimits,
    StoreLimitsBuilder,
};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::config;
use crate::net::Net;

/// Bytes of each pooled linear memory reset in place (and kept resident) between calls.
const KEEP_RESIDENT: usize = 2 * 1024 * 1024;

/// The worlds of `wit/` (`recipe` is new in 0.3.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum World {
    CommandBuilder,
    Translator,
    WebhookFormatter,
    Recipe,
}

impl World {
    pub const ALL: [World; 4] = [
        World::CommandBuilder,
        World::Translator,
        World::WebhookFormatter,
        World::Recipe,
    ];

    pub fn name(self) -> &'static str {
        match self {
            World::CommandBuilder => "command-builder",
            World::Translator => "translator",
            World::WebhookFormatter => "webhook-formatter",
            World::Recipe => "recipe",
        }
    }

    pub fn from_name(name: &str) -> Option<World> {
        World::ALL.into_iter().find(|w| w.name() == name)
    }

    /// File name of the default plugin that `make build` produces.
    fn default_file(self) -> &'static str {
        match self {
            World::CommandBuilder => "command_builder.wasm",
            World::Translator => "translator.wasm",
            World::WebhookFormatter => "webhook_formatter.wasm",
            World::Recipe => "recipes.wasm",
        }
    }

    /// The world's key in the config file: `plugins.<key>`.
    pub fn key(self) -> &'static str {
        match self {
            World::CommandBuilder => "command_builder",
            World::Translator => "translator",
            World::WebhookFormatter => "webhook_formatter",
            World::Recipe => "recipe",
        }
    }

    fn entry(self, cfg: &config::Plugins) -> Option<&config::PluginEntry> {
        match self {
            World::CommandBuilder => cfg.command_builder.as_ref(),
            World::Translator => cfg.translator.as_ref(),
            World::WebhookFormatter => cfg.webhook_formatter.as_ref(),
            World::Recipe => cfg.recipe.as_ref(),
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
    /// The epoch clock runs while this store exists.
    _ticking: ticker::Running,
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
        kind: Failure,
        reason: String,
    },
    #[error("no plugin is configured for the {0} world")]
    Missing(&'static str),
}

/// Why a plugin call failed, as the `kind` label of `mediaforge_plugin_failures_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    Timeout,
    Memory,
    Trap,
    /// The host refused what the plugin returned (its output checks).
    Output,
    /// A plugin whose refusal is a failure (a webhook formatter refusing an event: usually its
    /// configuration).
    Refused,
}

impl Failure {
    pub fn as_str(self) -> &'static str {
        match self {
            Failure::Timeout => "timeout",
            Failure::Memory => "memory",
            Failure::Trap => "trap",
            Failure::Output => "output",
            Failure::Refused => "refused",
        }
    }

    /// The same input fails the same way again: retrying cannot help.
    pub fn is_deterministic(self) -> bool {
        matches!(self, Failure::Output | Failure::Refused)
    }
}

/// A loaded component, ready to instantiate.
/// Where a loaded component goes: its world's slot, or the translator's fallback.
#[derive(Clone, Copy)]
struct Slot {
    world: World,
    fallback: bool,
}

struct Loaded<P> {
    pre: P,
    path: PathBuf,
    /// The component's SHA-256 and its config: what its output is a function of.
    identity: String,
    config_json: Arc<str>,
    llm: Option<Arc<LlmAccess>>,
    /// Wall time per call.
    budget: Duration,
}

pub struct PluginHost {
    engine: Engine,
    /// Swapped whole by [`PluginHost::reload`]; a call keeps the set it started with.
    worlds: std::sync::RwLock<Arc<Worlds>>,
    /// What `load` was given, for reloads.
    source: Option<Source>,
    permits: Arc<Semaphore>,
    memory_bytes: usize,
    ticker: ticker::Ticker,
}

/// The loaded plugin of each world.
#[derive(Default)]
pub struct Worlds {
    builder: Option<Loaded<wit::Builder>>,
    translator: Option<Loaded<wit::Translator>>,
    /// Asked when the translator refuses (`plugins.translator.fallback`).
    translator_fallback: Option<Loaded<wit::Translator>>,
    formatter: Option<Loaded<wit::Formatter>>,
    /// The recipe plugin, then `plugins.extra_recipes` in order.
    recipes: Vec<Loaded<wit::v0_3_0::Recipe>>,
    /// Which plugin offers each recipe, read once per loaded set (`recipe::catalog`).
    catalog: tokio::sync::OnceCell<Arc<recipe::Catalog>>,
}

impl Worlds {
    fn has(&self, world: World) -> bool {
        match world {
            World::CommandBuilder => self.builder.is_some(),
            World::Translator => self.translator.is_some(),
            World::WebhookFormatter => self.formatter.is_some(),
            World::Recipe => !self.recipes.is_empty(),
        }
    }
}

struct Source {
    cfg: config::Plugins,
    cache_dir: PathBuf,
    net: Net,
}

impl PluginHost {
    /// Loads the configured plugins (or the defaults) for every world. A configured plugin
    /// that is missing or does not fit its world (`check::link`) stops start-up.
    pub async fn load(
        cfg: &config::Plugins,
        cache_dir: &Path,
        net: &Net,
    ) -> anyhow::Result<PluginHost> {
        let mut host = PluginHost::empty(cfg)?;
        host.source = Some(Source {
            cfg: cfg.clone(),
            cache_dir: cache_dir.to_path_buf(),
            net: net.clone(),
        });
        let worlds = host.load_worlds(cfg, cache_dir, net, None).await?;
        host.worlds = std::sync::RwLock::new(Arc::new(worlds));
        Ok(host)
    }

    /// The file each world's component is read from: the configured one, else the default.
    fn paths(cfg: &config::Plugins) -> impl Iterator<Item = (World, PathBuf)> + '_ {
        World::ALL.into_iter().map(|world| {
            let path = match world.entry(cfg) {
                Some(entry) => entry.path.clone(),
                None => cfg.default_dir.join(world.default_file()),
            };
            (world, path)
        })
    }

    /// Every world's component, read again. On a reload (`loaded`: the set in use), a default
    /// component whose file is missing fails the reload instead of leaving its world empty:
    /// a file gone for a moment (a rebuild replacing it) must not take the world away.
    async fn load_worlds(
        &self,
        cfg: &config::Plugins,
        cache_dir: &Path,
        net: &Net,
        loaded: Option<&Worlds>,
    ) -> anyhow::Result<Worlds> {
        let mut worlds = Worlds::default();
        for (world, path) in Self::paths(cfg) {
            if world.entry(cfg).is_none() && !path.exists() {
                if loaded.is_some_and(|w| w.has(world)) {
                    anyhow::bail!(
                        "the {} plugin's file {} is missing",
                        world.name(),
                        path.display()
                    );
                }
                tracing::warn!(
                    "no {} plugin: {} not found (run `make build`)",
                    world.name(),
                    path.display()
                );
                continue;
            }
            let entry = world.entry(cfg);
            let to = Slot {
                world,
                fallback: false,
            };
            self.load_world(&mut worlds, cfg, to, entry, &path, Some(cache_dir), net)
                .await?;
            match entry.and_then(|e| e.fallback.as_ref()) {
                Some(fallback) if world == World::Translator => {
                    let fallback = fallback.entry();
                    let path = fallback.path.clone();
                    let to = Slot {
                        world,
                        fallback: true,
                    };
                    self.load_world(
                        &mut worlds,
                        cfg,
                        to,
                        Some(&fallback),
                        &path,
                        Some(cache_dir),
                        net,
                    )
                    .await?;
                }
                Some(_) => anyhow::bail!(
                    "config key `plugins.{}.fallback`: only the translator has a fallback",
                    world.key()
                ),
                None => {}
            }
        }
        for extra in &cfg.extra_recipes {
            let entry = extra.entry();
            // Loaded after the recipe plugin, so they come after it in `Worlds::recipes`.
            let to = Slot {
                world: World::Recipe,
                fallback: false,
            };
            self.load_world(
                &mut worlds,
                cfg,
                to,
                Some(&entry),
                &entry.path,
                Some(cache_dir),
                net,
            )
            .await?;
        }
        Ok(worlds)
    }

    /// Loads every world's component again (the files, with the config of start-up) and swaps
    /// them in at once; calls under way finish on the ones they started with. If any fails its
    /// checks, nothing changes and the reason is logged.
    pub async fn reload(&self) -> bool {
        let Some(src) = &self.source else {
            return false;
        };
        let loaded = self.worlds();
        match self
            .load_worlds(&src.cfg, &src.cache_dir, &src.net, Some(&loaded))
            .await
        {
            Ok(worlds) => {
                *self.worlds.write().expect("plugin set lock") = Arc::new(worlds);
                tracing::info!("plugins reloaded");
                true
            }
            Err(e) => {
                tracing::warn!("plugins not reloaded, the loaded ones stay: {e:#}");
                false
            }
        }
    }

    /// Every component file a reload reads, loaded now or not, with its modification time
    /// and size (for `watch`): a file that comes back after a failed reload is noticed too.
    pub fn stamps(&self) -> Vec<(PathBuf, Option<(std::time::SystemTime, u64)>)> {
        let worlds = self.worlds();
        let mut paths: Vec<PathBuf> = match &self.source {
            Some(src) => Self::paths(&src.cfg).map(|(_, p)| p).collect(),
            None => Vec::new(),
        };
        paths.extend(worlds.translator_fallback.as_ref().map(|l| l.path.clone()));
        if let Some(src) = &self.source {
            paths.extend(src.cfg.extra_recipes.iter().map(|e| e.entry().path));
        }
        paths
            .into_iter()
            .map(|p| {
                let stamp = std::fs::metadata(&p)
                    .ok()
                    .and_then(|m| Some((m.modified().ok()?, m.len())));
                (p, stamp)
            })
            .collect()
    }

    /// The command builder's component hash and config, for result cache keys (`cache/`).
    pub fn builder_identity(&self) -> Option<String> {
        self.worlds().builder.as_ref().map(|l| l.identity.clone())
    }

    fn worlds(&self) -> Arc<Worlds> {
        self.worlds.read().expect("plugin set lock").clone()
    }

    /// A host with one world's plugin (`mediaforge plugin run`), compiled without the cache.
    pub async fn load_one(
        cfg: &config::Plugins,
        world: World,
        path: &Path,
        net: &Net,
    ) -> anyhow::Result<PluginHost> {
        let mut host = PluginHost::empty(cfg)?;
        let mut worlds = Worlds::default();
        let to = Slot {
            world,
            fallback: false,
        };
        host.load_world(&mut worlds, cfg, to, world.entry(cfg), path, None, net)
            .await?;
        host.worlds = std::sync::RwLock::new(Arc::new(worlds));
        Ok(host)
    }

    fn empty(cfg: &config::Plugins) -> anyhow::Result<PluginHost> {
        let engine = new_engine(cfg)?;
        let ticker = ticker::Ticker::spawn(&engine);
        Ok(PluginHost {
            engine,
            ticker,
            worlds: Default::default(),
            source: None,
            permits: Arc::new(Semaphore::new(cfg.max_instances as usize)),
            memory_bytes: (cfg.memory_mb * 1024 * 1024) as usize,
        })
    }

    /// Loads a plugin from `path` with `entry`'s config and grants into its slot of `worlds`.
    #[allow(clippy::too_many_arguments)]
    async fn load_world(
        &self,
        worlds: &mut Worlds,
        cfg: &config::Plugins,
        to: Slot,
        entry: Option<&config::PluginEntry>,
        path: &Path,
        cache_dir: Option<&Path>,
        net: &Net,
    ) -> anyhow::Result<()> {
        let world = to.world;
        let (component, digest) = compile_cached(&self.engine, path, cache_dir)?;
        let config_json = config_json(entry)?;
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
                world.key()
            ),
            None => None,
        };
        let mut budget = Duration::from_millis(cfg.timeout_ms.max(1));
        if let Some(llm) = &llm {
            // Waiting for the model counts against the call; allow a few round trips.
            budget += 3 * Duration::from_secs(llm.grant.timeout_s);
        }
        let (fit, linked) = check::link(self, &component, world, budget, config_json.clone())
            .await
            .map_err(|e| anyhow::anyhow!("{}", e.line(path, world)))?;
        macro_rules! loaded {
            ($pre:expr) => {
                Some(Loaded {
                    pre: $pre,
                    path: path.to_path_buf(),
                    identity: format!("{digest}:{config_json}"),
                    config_json,
                    llm,
                    budget,
                })
            };
        }
        match linked {
            wit::Linked::Builder(b) => worlds.builder = loaded!(b),
            wit::Linked::Translator(t) if to.fallback => worlds.translator_fallback = loaded!(t),
            wit::Linked::Translator(t) => worlds.translator = loaded!(t),
            wit::Linked::Formatter(f) => worlds.formatter = loaded!(f),
            // The recipe plugin is loaded before the extra ones, so it comes first.
            wit::Linked::Recipe(r) => worlds.recipes.extend(loaded!(r)),
        }
        tracing::info!(
            "plugin {} ({}) loaded from {}",
            world.name(),
            fit.version.name(),
            path.display()
        );
        Ok(())
    }

    /// Which worlds have a plugin, and from where (for readiness reports).
    pub fn loaded(&self) -> Vec<(&'static str, String)> {
        World::ALL
            .into_iter()
            .filter_map(|w| Some((w.name(), self.path_of(w)?.display().to_string())))
            .collect()
    }

    fn path_of(&self, world: World) -> Option<PathBuf> {
        let worlds = self.worlds();
        match world {
            World::CommandBuilder => worlds.builder.as_ref().map(|l| l.path.clone()),
            World::Translator => worlds.translator.as_ref().map(|l| l.path.clone()),
            World::WebhookFormatter => worlds.formatter.as_ref().map(|l| l.path.clone()),
            World::Recipe => worlds.recipes.first().map(|l| l.path.clone()),
        }
    }

    /// A plugin failure, for the operator: a warning naming the plugin and the reason, and
    /// `mediaforge_plugin_failures_total{plugin,kind}`. Tenants get less (the callers decide).
    pub fn report(&self, world: World, kind: Failure, reason: &str) {
        let path = self
            .path_of(world)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        tracing::warn!(
            plugin = world.name(),
            path,
            kind = kind.as_str(),
            "plugin call failed: {reason}"
        );
        crate::metrics::plugin_failure(world.name(), kind.as_str());
    }

    /// A fresh store for one call of `world`, bounded in memory.
    fn store(
        &self,
        world: World,
        config_json: Arc<str>,
        llm: Option<Arc<LlmAccess>>,
    ) -> Store<State> {
        let state = State {
            wasi: WasiCtx::builder().build(),
            table: ResourceTable::new(),
            limits: StoreLimitsBuilder::new()
                .memory_size(self.memory_bytes)
                .instances(16)
                .trap_on_grow_failure(true)
                .build(),
            plugin: world.name(),
            config_json,
            llm,
            _ticking: self.ticker.running(),
        };
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limits);
        // Running code yields at every tick, so the call's deadline (`within`) is checked even
        // while a plugin spins, and a call never holds a runtime thread.
        store.set_epoch_deadline(1);
        store.epoch_deadline_async_yield_and_update(1);
        store
    }

    /// Runs `f` (instantiate and call, through the version's adapter) in a fresh bounded
    /// store, on this task, for at most `loaded.budget` of wall time.
    async fn call<P, R>(
        &self,
        select: fn(&Worlds) -> Option<&Loaded<P>>,
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
        let worlds = self.worlds();
        let loaded = select(&worlds).ok_or(PluginError::Missing(world.name()))?;
        self.call_loaded(loaded, world, f).await
    }

    /// `call` on one loaded plugin (of a world with several, `recipe`).
    async fn call_loaded<P, R>(
        &self,
        loaded: &Loaded<P>,
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
        let _permit = self
            .permits
            .acquire()
            .await
            .expect("semaphore never closes");
        let plugin = world.name();
        let started = std::time::Instant::now();
        let _timer = scopeguard(move || {
            crate::metrics::observe(crate::metrics::PLUGIN_SECONDS, plugin, started.elapsed())
        });
        let mut store = self.store(world, loaded.config_json.clone(), loaded.llm.clone());
        let failed = |kind: Failure, reason: String| {
            self.report(world, kind, &reason);
            PluginError::Failed {
                plugin,
                kind,
                reason,
            }
        };
        match within(loaded.budget, f(&loaded.pre, &mut store)).await {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(refusal)) => Err(PluginError::Refused {
                message: refusal.message.chars().take(1000).collect(),
                subject: refusal.subject,
            }),
            Err(e) => {
                let (kind, reason) = describe_trap(&e);
                Err(failed(kind, reason))
            }
        }
    }
}

/// `call` bounded in wall time: past `budget` its future is dropped (cancelling the plugin
/// wherever it is) and the call fails as a plugin interrupted by the epoch does.
async fn within<T>(
    budget: Duration,
    call: impl std::future::Future<Output = wasmtime::Result<T>>,
) -> wasmtime::Result<T> {
    tokio::time::timeout(budget, call)
        .await
        .unwrap_or_else(|_| Err(wasmtime::Trap::Interrupt.into()))
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

/// What kind of failure a call's error is, and a short, stable reason.
fn describe_trap(e: &wasmtime::Error) -> (Failure, String) {
    let out_of_memory = (Failure::Memory, "it ran out of memory".to_string());
    match e.downcast_ref::<wasmtime::Trap>() {
        Some(wasmtime::Trap::Interrupt) => (Failure::Timeout, "it ran out of time".into()),
        Some(trap) => {
            let text = format!("{e:#}");
            if text.contains("memory") && text.contains("grow")
                || matches!(trap, wasmtime::Trap::AllocationTooLarge)
            {
                out_of_memory
            } else {
                (Failure::Trap, format!("it trapped ({trap})"))
            }
        }
        None => {
            let text = format!("{e:#}");
            if text.contains("forcing trap when growing memory")
                || text.contains("memory") && text.contains("limit")
            {
                out_of_memory
            } else {
                (Failure::Trap, text.chars().take(300).collect())
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

/// A plugin's `config` table as the JSON object `host.config` returns (`{}` when absent).
fn config_json(entry: Option<&config::PluginEntry>) -> anyhow::Result<Arc<str>> {
    Ok(match entry.and_then(|e| e.config.as_ref()) {
        Some(table) => serde_json::to_string(table)?.into(),
        None => "{}".into(),
    })
}

/// wasmtime has its own error type; carry its full chain into ours.
fn wasm_err(e: wasmtime::Error) -> anyhow::Error {
    anyhow::anyhow!("{e:#}")
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

/// Compiles a component, or loads the artefact compiled earlier for the same bytes and engine
/// (without a cache directory: compiles in memory).
/// The compiled component and the SHA-256 (hex) of its bytes.
fn compile_cached(
    engine: &Engine,
    path: &Path,
    cache_dir: Option<&Path>,
) -> anyhow::Result<(Component, String)> {
    let bytes =
        std::fs::read(path).with_context(|| format!("cannot read plugin {}", path.display()))?;
    check::looks_like_component(&bytes)
        .map_err(|why| anyhow::anyhow!("plugin {} {why}", path.display()))?;
    let digest = hex::encode(Sha256::digest(&bytes));
    compile(engine, &bytes, &digest, path, cache_dir).map(|c| (c, digest))
}

fn compile(
    engine: &Engine,
    bytes: &[u8],
    digest: &str,
    path: &Path,
    cache_dir: Option<&Path>,
) -> anyhow::Result<Component> {
    let Some(cache_dir) = cache_dir else {
        return Component::new(engine, bytes).map_err(|e| {
            anyhow::anyhow!(
                "plugin {} is not a valid WebAssembly component: {}",
                path.display(),
                check::first_line(&e)
            )
        });
    };
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
    let compiled = engine.precompile_component(bytes).map_err(|e| {
        anyhow::anyhow!(
            "plugin {} is not a valid WebAssembly component: {}",
            path.display(),
            check::first_line(&e)
        )
    })?;
    std::fs::create_dir_all(cache_dir)?;
    let tmp = cache_dir.join(format!("{key}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, &compiled)?;
    std::fs::rename(&tmp, &cached)?;
    // SAFETY: as above; we wrote it just now.
    unsafe { Component::deserialize_file(engine, &cached) }.map_err(wasm_err)
}
