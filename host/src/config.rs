//! The operator's configuration: `config/mediaforge.toml`, overridden key by key by environment
//! variables `MEDIAFORGE__SECTION__KEY`. Every knob has a default, so an empty file is valid.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub server: Server,
    pub database: Database,
    pub storage: Storage,
    pub plans: BTreeMap<String, Plan>,
    pub accounts: Vec<AccountConfig>,
    pub limits: Limits,
    pub net: Net,
    pub sandbox: Sandbox,
    pub jobs: Jobs,
    pub webhooks: Webhooks,
    pub plugins: Plugins,
    pub compat: Compat,
    pub cache: Cache,
    pub split: Split,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Server {
    pub listen: String,
    /// Base of the presigned URLs the local store hands out; empty: `http://` + the bound address.
    pub public_url: String,
    /// Largest JSON body accepted by the API (uploads go through presigned URLs, not here).
    pub max_json_body_kb: u64,
    /// Where the server keeps scratch space, compiled plugins and the local database.
    pub data_dir: PathBuf,
    /// A request body must keep up `body_min_bytes_per_s` on average after this grace (408).
    pub body_timeout_s: u64,
    pub body_min_bytes_per_s: u64,
    /// A second listener (e.g. `127.0.0.1:9464`) serving `/metrics` and the detail of
    /// `/readyz` to whoever reaches it; empty: none.
    pub operator_listen: String,
    /// On the main port, `/metrics` and the detail of `/readyz` need
    /// `Authorization: Bearer <token>`; empty: they are not served there.
    pub operator_token: String,
}

impl Default for Server {
    fn default() -> Self {
        Server {
            listen: "127.0.0.1:8080".into(),
            public_url: "http://127.0.0.1:8080".into(),
            max_json_body_kb: 1024,
            data_dir: "data".into(),
            body_timeout_s: 30,
            body_min_bytes_per_s: 8192,
            operator_listen: String::new(),
            operator_token: String::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Database {
    /// `surrealkv://path`, `mem://` or `ws://host:port`.
    pub url: String,
    pub namespace: String,
    pub database: String,
    /// Root credentials for a database server; empty for the embedded engines.
    pub username: String,
    pub password: String,
    /// How long start-up waits for a database server that is not reachable yet.
    pub connect_timeout_s: u64,
    /// How long one query waits for an answer before the request fails with 503.
    pub query_timeout_s: u64,
}

impl Default for Database {
    fn default() -> Self {
        Database {
            url: "surrealkv://data/db".into(),
            namespace: "mediaforge".into(),
            database: "main".into(),
            username: String::new(),
            password: String::new(),
            connect_timeout_s: 30,
            query_timeout_s: 10,
        }
    }
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Local,
    S3,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Storage {
    pub backend: Backend,
    /// Root of the local object store.
    pub path: PathBuf,
    /// Key of presigned URLs; empty: generated once and kept in the database.
    pub signing_key: String,
    /// Key that seals tenants' bucket secrets (`seal.rs`): 32 bytes of base64. Empty: tenants
    /// cannot add bucket credentials (`POST /credentials` answers 503).
    pub credentials_key: String,
    pub upload_url_ttl_s: u64,
    pub download_url_ttl_s: u64,
    /// Validity of a directory's playback URLs (`playback_url` of a playlist output): long
    /// enough to watch what it plays.
    pub playback_url_ttl_s: u64,
    /// How long a resumable (tus) upload may wait for its next PATCH before it is removed.
    pub resumable_ttl_s: u64,
    /// How often expired directories and half-finished uploads and deletes are swept.
    pub sweep_interval_s: u64,
    /// Objects no file record refers to (left by a crash or a race with expiry) are removed
    /// once they are this old.
    pub orphan_grace_s: u64,
    pub s3: Option<S3>,
}

impl Default for Storage {
    fn default() -> Self {
        Storage {
            backend: Backend::Local,
            path: "data/files".into(),
            signing_key: String::new(),
            credentials_key: String::new(),
            upload_url_ttl_s: 3600,
            download_url_ttl_s: 300,
            playback_url_ttl_s: 21_600,
            resumable_ttl_s: 86_400,
            sweep_interval_s: 60,
            orphan_grace_s: 3600,
            s3: None,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct S3 {
    pub bucket: String,
    /// Keys start with this (a folder in the bucket); empty: the bucket's root.
    pub prefix: String,
    /// Empty: AWS_REGION, AWS_DEFAULT_REGION, else us-east-1.
    pub region: String,
    /// An S3-compatible server's URL; empty: AWS_ENDPOINT_URL, else AWS itself.
    pub endpoint: String,
    /// Empty: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN).
    pub access_key_id: String,
    pub secret_access_key: String,
    pub force_path_style: bool,
    /// Upload URLs straight to the bucket (the host never carries the bytes, but cannot stop
    /// an upload over the plan's size: it is refused at first use). Default: through the host.
    pub direct_uploads: bool,
}

/// Plan sizes are MiB, possibly fractional.
pub fn mb_to_bytes(mb: f64) -> u64 {
    (mb * 1_048_576.0) as u64
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub max_file_size_mb: f64,
    pub monthly_quota_gb: f64,
    /// Async jobs of one account processing at once, across instances; more wait their turn.
    #[serde(default)]
    pub max_running_jobs: Option<u32>,
    /// Sync tasks, probes and plain-language calls of one account at once (per instance).
    #[serde(default)]
    pub max_concurrent_tasks: Option<u32>,
    /// Authenticated requests of one account per minute (per instance, token bucket).
    #[serde(default)]
    pub requests_per_minute: Option<u32>,
    /// Bytes an account may keep in its live directories; absent: `DEFAULT_STORAGE_FILES`
    /// files of the plan's largest size (a task's outputs can be far larger than its inputs,
    /// so no plan stores without a bound).
    #[serde(default)]
    pub max_storage_gb: Option<f64>,
}

/// A plan without `max_storage_gb` keeps this many of its largest files.
pub const DEFAULT_STORAGE_FILES: u64 = 50;

impl Plan {
    pub fn max_file_size_bytes(&self) -> u64 {
        mb_to_bytes(self.max_file_size_mb)
    }

    pub fn max_storage_bytes(&self) -> u64 {
        match self.max_storage_gb {
            Some(gb) => (gb * 1_073_741_824.0) as u64,
            None => self
                .max_file_size_bytes()
                .saturating_mul(DEFAULT_STORAGE_FILES),
        }
    }

    pub fn monthly_quota_bytes(&self) -> u64 {
        (self.monthly_quota_gb * 1_073_741_824.0) as u64
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountConfig {
    pub name: String,
    pub plan: String,
    pub api_key: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    pub process_timeout_s: u64,
    pub probe_timeout_s: u64,
    pub probe_max_bytes: u64,
    /// Whole fetch of one URL input into storage (a probe's fetch counts in `probe_timeout_s`).
    pub import_timeout_s: u64,
    /// ffmpeg/ffprobe processes running at once on this instance.
    pub max_concurrent_processes: usize,
    /// Total bytes one task may write (also the per-file RLIMIT_FSIZE).
    pub max_output_bytes: u64,
    pub max_output_files: usize,
    pub max_inputs: usize,
    pub max_outputs: usize,
    /// Memory ceiling of every ffmpeg/ffprobe run (RLIMIT_AS: address space); 0: none.
    pub process_memory_mb: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            process_timeout_s: 600,
            probe_timeout_s: 60,
            probe_max_bytes: 52_428_800,
            import_timeout_s: 900,
            max_concurrent_processes: 4,
            max_output_bytes: 10 * 1024 * 1024 * 1024,
            max_output_files: 2000,
            max_inputs: 16,
            max_outputs: 16,
            process_memory_mb: 2048,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Net {
    pub allow_private_addresses: bool,
    pub allow_http: bool,
    /// PEM bundle trusted in addition to the system roots.
    pub extra_ca_file: String,
    pub connect_timeout_s: u64,
    pub read_timeout_s: u64,
    pub max_redirects: usize,
    /// A fetched body (URL inputs, probes) must keep up `min_bytes_per_s` on average after
    /// `slow_grace_s`: a peer dripping bytes cannot hold a fetch for the whole import timeout.
    pub min_bytes_per_s: u64,
    pub slow_grace_s: u64,
}

impl Default for Net {
    fn default() -> Self {
        Net {
            allow_private_addresses: false,
            allow_http: false,
            extra_ca_file: String::new(),
            connect_timeout_s: 10,
            read_timeout_s: 30,
            max_redirects: 5,
            min_bytes_per_s: 8192,
            slow_grace_s: 30,
        }
    }
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SandboxMode {
    /// bubblewrap when it works here, else Landlock plus a network namespace, else refuse.
    Auto,
    Bwrap,
    Landlock,
    /// No sandbox at all: only with `allow_unsandboxed = true`, and loudly logged.
    None,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Sandbox {
    pub mode: SandboxMode,
    pub allow_unsandboxed: bool,
    pub bwrap_path: String,
    pub ffmpeg_path: String,
    pub ffprobe_path: String,
}

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox {
            mode: SandboxMode::Auto,
            allow_unsandboxed: false,
            bwrap_path: "bwrap".into(),
            ffmpeg_path: "ffmpeg".into(),
            ffprobe_path: "ffprobe".into(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Jobs {
    pub workers: usize,
    /// `fair`: accounts take turns (fewest running first), then priority, then age.
    /// `fifo`: the oldest pending job of any account, then priority.
    pub scheduling: Scheduling,
    /// A claimed job is given back when its worker has not renewed the lease for this long.
    pub lease_s: u64,
    /// How often idle workers look for work when no notification arrives.
    pub poll_interval_ms: u64,
    /// Wake workers through SurrealDB live queries when another instance queues a job or a
    /// split segment. SurrealDB supports `LIVE SELECT` on single-node deployments only
    /// (docs/scale-out.md): on a multi-node cluster set `false`, and workers find work by
    /// polling every `poll_interval_ms`. Authentication uses one too, to keep a key's look-up
    /// until a key or an account changes (`auth.rs`); without it, for half a second.
    pub live_queries: bool,
    /// Event streams (`GET /job/{id}/events`) and MCP `job_status` waits one account may hold
    /// open at once on an instance: each re-reads its job, so they are not free.
    pub max_watchers_per_account: u32,
}

impl Default for Jobs {
    fn default() -> Self {
        Jobs {
            workers: 2,
            scheduling: Scheduling::Fair,
            lease_s: 30,
            poll_interval_ms: 1000,
            live_queries: true,
            max_watchers_per_account: 16,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheduling {
    Fair,
    Fifo,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Webhooks {
    pub signing_secret: String,
    pub max_attempts: u32,
    pub initial_backoff_s: u64,
    pub max_backoff_s: u64,
    pub timeout_s: u64,
    /// Deliveries in flight at once on this instance.
    pub max_concurrent: u32,
}

impl Default for Webhooks {
    fn default() -> Self {
        Webhooks {
            signing_secret: String::new(),
            max_attempts: 5,
            initial_backoff_s: 5,
            max_backoff_s: 3600,
            timeout_s: 20,
            max_concurrent: 16,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Plugins {
    /// Where the default plugins are looked for when a world has no entry.
    pub default_dir: PathBuf,
    /// Compiled components, keyed by the wasm's hash and the engine's (safe to share).
    pub cache_dir: PathBuf,
    /// Memory one plugin instance may use.
    pub memory_mb: u64,
    /// Wall-clock budget of one plugin call.
    pub timeout_ms: u64,
    /// Plugin instances alive at once (the pooling allocator is sized for this).
    pub max_instances: u32,
    /// Reload the components when their files change (SIGHUP always reloads).
    pub watch: bool,
    pub command_builder: Option<PluginEntry>,
    pub translator: Option<PluginEntry>,
    pub webhook_formatter: Option<PluginEntry>,
    /// The recipe plugin (`docs/recipes.md`); the default offers the built-in recipes.
    pub recipe: Option<PluginEntry>,
    /// More recipe plugins beside `recipe` (paths, or tables with `path` and `config`): their
    /// recipes are offered too, and one named as an earlier plugin's replaces it.
    pub extra_recipes: Vec<Fallback>,
}

impl Default for Plugins {
    fn default() -> Self {
        Plugins {
            default_dir: "plugins/dist".into(),
            cache_dir: "data/plugin-cache".into(),
            memory_mb: 64,
            timeout_ms: 2000,
            max_instances: 64,
            watch: false,
            command_builder: None,
            translator: None,
            webhook_formatter: None,
            recipe: None,
            extra_recipes: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginEntry {
    pub path: PathBuf,
    /// Passed to the plugin as JSON through the `host.config` import.
    #[serde(default)]
    pub config: Option<toml::Table>,
    /// The `llm` import, granted to this plugin only.
    #[serde(default)]
    pub llm: Option<LlmGrant>,
    /// Translator only: a second translator asked when this one refuses.
    #[serde(default)]
    pub fallback: Option<Fallback>,
}

/// A plugin named by `fallback = "<path>"` (or an `extra_recipes` item), or a table with the keys
/// of a plugin entry (`path`, `config`, `llm`).
#[derive(Debug, Clone)]
pub struct Fallback(Box<PluginEntry>);

impl Fallback {
    pub fn entry(&self) -> PluginEntry {
        (*self.0).clone()
    }
}

impl<'de> Deserialize<'de> for Fallback {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let entry = match toml::Value::deserialize(d)? {
            toml::Value::String(path) => PluginEntry {
                path: path.into(),
                config: None,
                llm: None,
                fallback: None,
            },
            toml::Value::Table(table) => {
                let entry: PluginEntry = table.try_into().map_err(D::Error::custom)?;
                if entry.fallback.is_some() {
                    return Err(D::Error::custom("a fallback has no fallback of its own"));
                }
                entry
            }
            _ => return Err(D::Error::custom("expected a path or a table")),
        };
        Ok(Fallback(Box::new(entry)))
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmGrant {
    /// Base URL of an OpenAI-compatible API, e.g. `https://api.example.com/v1`.
    pub endpoint: String,
    pub model: String,
    /// Name of the environment variable holding the API key (never the key itself).
    #[serde(default)]
    pub api_key_env: String,
    #[serde(default = "default_llm_timeout")]
    pub timeout_s: u64,
}

fn default_llm_timeout() -> u64 {
    60
}

/// The result cache (`cache/`): an identical task is answered with the outputs of its first run.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Cache {
    pub enabled: bool,
    /// `account`: a task is answered only from its own account's runs. `global`: from anyone's,
    /// which lets a tenant learn (by a fast answer) that another processed the same inputs.
    pub scope: CacheScope,
    /// Bytes the cache keeps; beyond them, the entries used longest ago go first.
    pub max_gb: f64,
    /// An entry is dropped this long after it was made.
    pub ttl_s: u64,
}

impl Default for Cache {
    fn default() -> Self {
        Cache {
            enabled: true,
            scope: CacheScope::Account,
            max_gb: 10.0,
            ttl_s: 604_800,
        }
    }
}

impl Cache {
    pub fn max_bytes(&self) -> u64 {
        (self.max_gb * 1_073_741_824.0) as u64
    }
}

/// Keyframe-split encoding (`pipeline/split/`): one long encode cut into segments that every
/// worker of every instance takes, then stitched and checked.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Split {
    pub enabled: bool,
    /// Inputs shorter than this run whole: the cut and the stitch cost more than they save.
    pub min_duration_s: f64,
    /// The longest a segment may be (a dead worker loses at most that); segments are planned
    /// so the workers that take them finish together (`pipeline/split/schedule.rs`).
    pub segment_s: f64,
}

impl Default for Split {
    fn default() -> Self {
        Split {
            enabled: false,
            min_duration_s: 120.0,
            segment_s: 30.0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    Account,
    Global,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Compat {
    /// Serve the deprecated POST /ffmpeg/run instead of answering 410 Gone.
    pub legacy_run: bool,
}

pub const ENV_PREFIX: &str = "MEDIAFORGE__";

impl Config {
    /// Reads `path` (a missing default file is allowed), applies environment overrides, checks.
    pub fn load(path: &Path, path_given: bool) -> anyhow::Result<Config> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !path_given => String::new(),
            Err(e) => anyhow::bail!("cannot read config file {}: {e}", path.display()),
        };
        let mut table: toml::Table = text
            .parse()
            .map_err(|e| anyhow::anyhow!("config file {}: {e}", path.display()))?;
        apply_env_overrides(&mut table, std::env::vars())?;
        Self::from_table(table)
    }

    pub fn from_table(table: toml::Table) -> anyhow::Result<Config> {
        let config: Config = serde_path_to_error::deserialize(toml::Value::Table(table))
            .map_err(|e| anyhow::anyhow!("config key `{}`: {}", e.path(), e.inner()))?;
        config.check()?;
        Ok(config)
    }

    fn check(&self) -> anyhow::Result<()> {
        for (i, account) in self.accounts.iter().enumerate() {
            if !self.plans.contains_key(&account.plan) {
                anyhow::bail!(
                    "config key `accounts[{i}].plan`: no plan named '{}' (define [plans.{}])",
                    account.plan,
                    account.plan
                );
            }
            if account.api_key.len() < 8 {
                anyhow::bail!("config key `accounts[{i}].api_key`: must be at least 8 characters");
            }
        }
        for (name, plan) in &self.plans {
            if !(plan.max_file_size_mb > 0.0 && plan.max_file_size_mb.is_finite()) {
                anyhow::bail!(
                    "config key `plans.{name}.max_file_size_mb`: must be a positive number"
                );
            }
            if !(plan.monthly_quota_gb >= 0.0 && plan.monthly_quota_gb.is_finite()) {
                anyhow::bail!("config key `plans.{name}.monthly_quota_gb`: must be zero or more");
            }
        }
        if self.jobs.workers > 64 {
            anyhow::bail!("config key `jobs.workers`: at most 64");
        }
        if !(self.cache.max_gb >= 0.0) {
            anyhow::bail!("config key `cache.max_gb`: must be zero or more");
        }
        if !(self.split.segment_s >= 1.0 && self.split.segment_s.is_finite()) {
            anyhow::bail!("config key `split.segment_s`: must be at least 1");
        }
        if !(self.split.min_duration_s >= 0.0 && self.split.min_duration_s.is_finite()) {
            anyhow::bail!("config key `split.min_duration_s`: must be zero or more");
        }
        if self.storage.backend == Backend::S3 && self.storage.s3.is_none() {
            anyhow::bail!("config key `storage.s3`: required when storage.backend = \"s3\"");
        }
        if let Some(s3) = &self.storage.s3
            && s3.bucket.is_empty()
        {
            anyhow::bail!("config key `storage.s3.bucket`: required");
        }
        if !self.server.public_url.is_empty() {
            url::Url::parse(&self.server.public_url)
                .map_err(|e| anyhow::anyhow!("config key `server.public_url`: {e}"))?;
        }
        Ok(())
    }
}

/// `MEDIAFORGE__JOBS__WORKERS=4` sets `jobs.workers`. Values are read as TOML when they parse
/// (numbers, booleans, arrays) and as strings otherwise.
pub fn apply_env_overrides(
    table: &mut toml::Table,
    vars: impl IntoIterator<Item = (String, String)>,
) -> anyhow::Result<()> {
    for (name, raw) in vars {
        let Some(rest) = name.strip_prefix(ENV_PREFIX) else {
            continue;
        };
        let keys: Vec<String> = rest.split("__").map(|k| k.to_ascii_lowercase()).collect();
        if keys.iter().any(|k| k.is_empty()) {
            anyhow::bail!("environment variable {name}: empty key segment");
        }
        let value = parse_env_value(&raw);
        let (last, parents) = keys.split_last().expect("split yields at least one key");
        let mut cursor = &mut *table;
        for key in parents {
            let entry = cursor
                .entry(key.clone())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            cursor = match entry {
                toml::Value::Table(t) => t,
                _ => anyhow::bail!("environment variable {name}: `{key}` is not a section"),
            };
        }
        cursor.insert(last.clone(), value);
    }
    Ok(())
}

fn parse_env_value(raw: &str) -> toml::Value {
    let doc = format!("v = {raw}");
    match doc.parse::<toml::Table>() {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| toml::Value::String(raw.into())),
        Err(_) => toml::Value::String(raw.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_overrides_nest_and_type_values() {
        let mut table: toml::Table = "[jobs]\nworkers = 2\n".parse().unwrap();
        apply_env_overrides(
            &mut table,
            [
                ("MEDIAFORGE__JOBS__WORKERS".to_string(), "7".to_string()),
                (
                    "MEDIAFORGE__NET__ALLOW_HTTP".to_string(),
                    "true".to_string(),
                ),
                (
                    "MEDIAFORGE__DATABASE__URL".to_string(),
                    "mem://".to_string(),
                ),
                ("OTHER".to_string(), "x".to_string()),
            ],
        )
        .unwrap();
        let config = Config::from_table(table).unwrap();
        assert_eq!(config.jobs.workers, 7);
        assert!(config.net.allow_http);
        assert_eq!(config.database.url, "mem://");
    }

    #[test]
    fn errors_name_the_key() {
        let table: toml::Table = "[jobs]\nworkers = \"many\"\n".parse().unwrap();
        let err = Config::from_table(table).unwrap_err().to_string();
        assert!(err.contains("jobs.workers"), "{err}");
        let table: toml::Table = "[server]\nlisten_on = 1\n".parse().unwrap();
        let err = Config::from_table(table).unwrap_err().to_string();
        assert!(err.contains("listen_on"), "{err}");
        let table: toml::Table = "[[accounts]]\nname='a'\nplan='gold'\napi_key='12345678'\n"
            .parse()
            .unwrap();
        let err = Config::from_table(table).unwrap_err().to_string();
        assert!(err.contains("accounts[0].plan"), "{err}");
        let table: toml::Table = "[split]\nsegment_s = 0\n".parse().unwrap();
        let err = Config::from_table(table).unwrap_err().to_string();
        assert!(err.contains("split.segment_s"), "{err}");
    }

    #[test]
    fn the_documented_file_states_the_split_defaults() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../config/mediaforge.toml");
        let table: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
        let documented = Config::from_table(table).unwrap().split;
        let default = Split::default();
        assert_eq!(documented.enabled, default.enabled);
        assert_eq!(documented.min_duration_s, default.min_duration_s);
        assert_eq!(documented.segment_s, default.segment_s);
    }
}
