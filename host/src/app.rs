//! The state every layer shares, and how it starts (database, store, plugins, sandbox,
//! accounts). Serving it (the HTTP layer, the workers, the sweeper) is `api/serve.rs`, so nothing
//! below the HTTP layer imports a file that imports it.

use std::path::PathBuf;
use std::sync::Arc;

use crate::auth::{Authenticator, hash_key, prefix_of};
use crate::config::{Backend, Config, Plan};
use crate::db::{Account, Db};
use crate::error::{AppError, AppResult};
use crate::media::sandbox::Sandbox;
use crate::net::Net;
use crate::plugins::PluginHost;
use crate::storage::ObjectStore;
use crate::storage::local::LocalStore;
use crate::storage::presign::BlobUrls;
use crate::storage::s3::S3Store;

pub struct AppState {
    pub cfg: Config,
    pub db: Db,
    pub auth: Authenticator,
    pub store: Arc<dyn ObjectStore>,
    /// The local store when it is the backend (it serves the presigned URLs itself).
    pub local: Option<Arc<LocalStore>>,
    /// Signs and checks the URLs of the host's `/blob/{object}` route (either backend).
    pub blob_urls: Arc<BlobUrls>,
    pub net: Net,
    pub plugins: Arc<PluginHost>,
    pub sandbox: Sandbox,
    pub scratch_dir: PathBuf,
    /// Per-account request rates, tasks at once, and fair shares of the process slots
    /// (`limits.max_concurrent_processes` ffmpeg/ffprobe runs at once on this instance).
    pub tenants: crate::tenants::Tenants,
    pub wakers: crate::jobs::Wakers,
    /// Cancelled when the server is asked to stop: workers take no new job.
    pub stopping: tokio_util::sync::CancellationToken,
    /// Jobs this instance is running now.
    pub running_jobs: std::sync::atomic::AtomicUsize,
    /// The result cache's key material and this instance's runs in flight.
    pub cache: crate::cache::Cache,
    /// Seals tenants' bucket secrets; `None` without `storage.credentials_key`.
    pub sealer: Option<crate::seal::Sealer>,
    /// This process among the instances sharing the database (random at each start).
    pub instance: String,
    /// Local resumable uploads' writers kept between PATCHes (`resumable/writers.rs`).
    pub tus_writers: crate::resumable::Writers,
}

impl AppState {
    pub async fn start(
        mut cfg: Config,
        bound: std::net::SocketAddr,
    ) -> anyhow::Result<Arc<AppState>> {
        if cfg.server.public_url.is_empty() {
            cfg.server.public_url = format!("http://{bound}");
        }
        let data_dir = cfg.server.data_dir.clone();
        std::fs::create_dir_all(&data_dir)?;
        let db = Db::connect(&cfg.database).await?;
        for account in &cfg.accounts {
            db.provision_account(
                &Account {
                    name: account.name.clone(),
                    plan: account.plan.clone(),
                },
                &[(hash_key(&account.api_key), prefix_of(&account.api_key))],
                crate::clock::now_ms(),
            )
            .await?;
        }
        let signing_key = if cfg.storage.signing_key.is_empty() {
            // Generated once and shared through the database, so URLs survive restarts and
            // verify on every instance.
            db.setting_or_init("signing_key", &crate::names::random_id(48))
                .await?
        } else {
            cfg.storage.signing_key.clone()
        };
        let blob_urls = Arc::new(BlobUrls::new(
            &cfg.server.public_url,
            signing_key.as_bytes(),
        ));
        let (store, local): (Arc<dyn ObjectStore>, Option<Arc<LocalStore>>) =
            match cfg.storage.backend {
                Backend::Local => {
                    let local = Arc::new(LocalStore::open(&cfg.storage.path, blob_urls.clone())?);
                    (local.clone(), Some(local))
                }
                Backend::S3 => {
                    let s3 = cfg
                        .storage
                        .s3
                        .as_ref()
                        .expect("checked by Config::validate");
                    let uploads = (!s3.direct_uploads).then(|| blob_urls.clone());
                    let store = S3Store::connect(s3, &cfg.net.extra_ca_file, uploads).await?;
                    tracing::info!(bucket = s3.bucket, "object store: S3");
                    (Arc::new(store), None)
                }
            };
        let net = Net::new(&cfg.net)?;
        let sealer = match cfg.storage.credentials_key.as_str() {
            "" => None,
            key => Some(crate::seal::Sealer::new(key)?),
        };
        let plugins = Arc::new(PluginHost::load(&cfg.plugins, &cfg.plugins.cache_dir, &net).await?);
        let mut sandbox = Sandbox::detect(&cfg.sandbox).await?;
        sandbox.memory_bytes = cfg.limits.process_memory_mb * 1_048_576;
        tracing::info!("sandbox layer: {:?}", sandbox.layer);
        let scratch_dir = data_dir.join("scratch");
        // Scratch space of runs a crash interrupted.
        let _ = std::fs::remove_dir_all(&scratch_dir);
        std::fs::create_dir_all(&scratch_dir)?;
        let scratch_dir = scratch_dir.canonicalize()?;
        let cfg_limits_processes = cfg.limits.max_concurrent_processes.max(1);
        let cache = crate::cache::Cache::new(
            &crate::media::sandbox::program_version(&cfg.sandbox.ffmpeg_path).await,
        );
        Ok(Arc::new(AppState {
            auth: Authenticator::new(db.clone()),
            cfg,
            db,
            store,
            local,
            blob_urls,
            net,
            plugins,
            sandbox,
            scratch_dir,
            tenants: crate::tenants::Tenants::new(cfg_limits_processes),
            wakers: Default::default(),
            stopping: Default::default(),
            running_jobs: Default::default(),
            cache,
            sealer,
            instance: crate::names::random_id(16),
            tus_writers: Default::default(),
        }))
    }

    /// The account's plan from the configuration.
    pub fn plan_of(&self, account: &Account) -> AppResult<(String, &Plan)> {
        self.cfg
            .plans
            .get(&account.plan)
            .map(|p| (account.plan.clone(), p))
            .ok_or_else(|| {
                AppError::Internal(anyhow::anyhow!(
                    "account {} has unknown plan {}",
                    account.name,
                    account.plan
                ))
            })
    }

    /// Plan name and size cap (MB) of the account owning a directory, for messages.
    pub async fn plan_of_dir(&self, dir_id: &str) -> (String, f64) {
        let dir = self.db.directory(dir_id, i64::MIN).await.ok().flatten();
        let account = match dir {
            Some(d) => self.db.account(&d.account).await.ok().flatten(),
            None => None,
        };
        match account.and_then(|a| {
            self.cfg
                .plans
                .get(&a.plan)
                .map(|p| (a.plan.clone(), p.max_file_size_mb))
        }) {
            Some(found) => found,
            None => ("unknown".into(), 0.0),
        }
    }
}
