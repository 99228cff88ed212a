//! The local object store: `objects/<ab>/<id>` under the configured path, uploads written to
//! `tmp/` and renamed into place only when complete, so a reader never sees half a file.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;

use super::presign::{BlobUrls, Method};
use super::{ObjectStore, Presigned};

pub struct LocalStore {
    root: PathBuf,
    urls: Arc<BlobUrls>,
}

impl LocalStore {
    pub fn open(root: &Path, urls: Arc<BlobUrls>) -> anyhow::Result<LocalStore> {
        for sub in ["objects", "tmp"] {
            std::fs::create_dir_all(root.join(sub))?;
        }
        Ok(LocalStore {
            root: root.to_path_buf(),
            urls,
        })
    }

    /// The store's root (`objects/`, `tmp/`), for backups (`backup.rs`).
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn object_path(&self, object: &str) -> PathBuf {
        let shard = object.get(..2).unwrap_or("__");
        self.root.join("objects").join(shard).join(object)
    }

    /// A fresh path for an upload in progress.
    pub fn temp_path(&self) -> PathBuf {
        self.root.join("tmp").join(crate::names::random_id(24))
    }

    /// Removes uploads left half-written by a crash (older than `age`, so live ones stay).
    pub async fn sweep_temp(&self, age: Duration) -> anyhow::Result<usize> {
        let mut removed = 0;
        let mut dir = tokio::fs::read_dir(self.root.join("tmp")).await?;
        let cutoff = SystemTime::now() - age;
        while let Some(entry) = dir.next_entry().await? {
            let modified = entry.metadata().await?.modified()?;
            if modified < cutoff && tokio::fs::remove_file(entry.path()).await.is_ok() {
                removed += 1;
            }
        }
        Ok(removed)
    }
}

#[async_trait]
impl ObjectStore for LocalStore {
    async fn presign_upload(
        &self,
        object: &str,
        max_bytes: u64,
        ttl_s: u64,
    ) -> anyhow::Result<Presigned> {
        Ok(Presigned {
            url: self.urls.url(Method::Put, object, ttl_s, Some(max_bytes)),
            headers: Default::default(),
        })
    }

    async fn presign_download(
        &self,
        object: &str,
        _file_name: &str,
        ttl_s: u64,
    ) -> anyhow::Result<Presigned> {
        // The name and type come from the file's record when the URL is served.
        Ok(Presigned {
            url: self.urls.url(Method::Get, object, ttl_s, None),
            headers: Default::default(),
        })
    }

    async fn size(&self, object: &str) -> anyhow::Result<Option<u64>> {
        match tokio::fs::metadata(self.object_path(object)).await {
            Ok(m) => Ok(Some(m.len())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    async fn put_file(&self, object: &str, src: &Path) -> anyhow::Result<u64> {
        let size = tokio::fs::metadata(src).await?.len();
        let dest = self.object_path(object);
        tokio::fs::create_dir_all(dest.parent().expect("object paths have a parent")).await?;
        if tokio::fs::rename(src, &dest).await.is_err() {
            // Another filesystem: copy to a temp name, then rename, so the object appears whole.
            let tmp = self.temp_path();
            if let Err(e) = tokio::fs::copy(src, &tmp).await {
                // A full disk must not stay full of half a copy.
                let _ = tokio::fs::remove_file(&tmp).await;
                return Err(e.into());
            }
            tokio::fs::rename(&tmp, &dest).await?;
        }
        Ok(size)
    }

    async fn stage(&self, object: &str, dest: &Path) -> anyhow::Result<()> {
        let src = self.object_path(object);
        // A hard link costs nothing; the sandbox mounts inputs read-only.
        if tokio::fs::hard_link(&src, dest).await.is_err() {
            tokio::fs::copy(&src, dest).await?;
        }
        Ok(())
    }

    async fn copy(&self, from: &str, to: &str) -> anyhow::Result<()> {
        let (src, dest) = (self.object_path(from), self.object_path(to));
        tokio::fs::create_dir_all(dest.parent().expect("object paths have a parent")).await?;
        if tokio::fs::hard_link(&src, &dest).await.is_err() {
            // No links here (or across disks): a copy that appears whole, as in `put_file`.
            let tmp = self.temp_path();
            if let Err(e) = tokio::fs::copy(&src, &tmp).await {
                let _ = tokio::fs::remove_file(&tmp).await;
                return Err(e.into());
            }
            tokio::fs::rename(&tmp, &dest).await?;
        }
        Ok(())
    }

    async fn delete(&self, object: &str) -> anyhow::Result<()> {
        match tokio::fs::remove_file(self.object_path(object)).await {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    async fn list(&self) -> anyhow::Result<Vec<(String, SystemTime)>> {
        let mut found = Vec::new();
        let mut shards = tokio::fs::read_dir(self.root.join("objects")).await?;
        while let Some(shard) = shards.next_entry().await? {
            let Ok(mut objects) = tokio::fs::read_dir(shard.path()).await else {
                continue;
            };
            while let Some(entry) = objects.next_entry().await? {
                let (Ok(name), Ok(meta)) =
                    (entry.file_name().into_string(), entry.metadata().await)
                else {
                    continue;
                };
                found.push((name, meta.modified()?));
            }
        }
        Ok(found)
    }
}
