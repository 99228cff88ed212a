//! Bytes of files, behind one trait: the local disk now, S3 in scale-out. Objects are named by
//! ids the service makes up, never by tenant names; the records that give them names live in
//! the database (`db`).

pub mod local;
pub mod presign;

use std::collections::BTreeMap;
use std::path::Path;

use async_trait::async_trait;

/// A request the tenant makes straight to the store.
#[derive(Debug, Clone)]
pub struct Presigned {
    pub url: String,
    /// Headers the request must carry (S3 signs some of them).
    pub headers: BTreeMap<String, String>,
}

#[async_trait]
pub trait ObjectStore: Send + Sync {
    /// Whether an upload through a presigned URL enforces `max_bytes` itself (S3 cannot; the
    /// object's size is then checked at first use).
    fn enforces_upload_size(&self) -> bool;
    fn presign_upload(&self, object: &str, max_bytes: u64, ttl_s: u64)
    -> anyhow::Result<Presigned>;
    fn presign_download(&self, object: &str, ttl_s: u64) -> anyhow::Result<Presigned>;
    /// The object's size, or `None` when it does not exist.
    async fn size(&self, object: &str) -> anyhow::Result<Option<u64>>;
    /// Stores a local file (a job's output) as `object`; the source may be moved away.
    async fn put_file(&self, object: &str, src: &Path) -> anyhow::Result<u64>;
    /// Makes `object` readable at `dest` (inside a job's scratch directory).
    async fn stage(&self, object: &str, dest: &Path) -> anyhow::Result<()>;
    /// Removes the object; removing a missing object is not an error (deletes are retried).
    async fn delete(&self, object: &str) -> anyhow::Result<()>;
}
