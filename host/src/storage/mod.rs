//! Bytes of files, behind one trait: the local disk, or S3 in scale-out. Objects are named by
//! ids the service makes up, never by tenant names; the records that give them names live in
//! the database (`db`).

pub mod attachment;
pub mod local;
pub mod presign;
pub mod s3;
pub mod spool;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;

/// The store did not answer (or failed on its side): the request may succeed later. Carried in
/// an `anyhow::Error`, it becomes a 503 (`error.rs`).
#[derive(Debug, thiserror::Error)]
#[error("object store unavailable: {0}")]
pub struct Unavailable(pub String);

/// A request the tenant makes straight to the store.
#[derive(Debug, Clone)]
pub struct Presigned {
    pub url: String,
    /// Headers the request must carry (S3 signs some of them).
    pub headers: BTreeMap<String, String>,
}

#[async_trait]
pub trait ObjectStore: Send + Sync {
    /// A URL the tenant PUTs the bytes to. The host's blob route refuses more than `max_bytes`;
    /// a bucket cannot (`storage.s3.direct_uploads`), so sizes are checked again when an upload
    /// is adopted (`files::adopt`).
    async fn presign_upload(
        &self,
        object: &str,
        max_bytes: u64,
        ttl_s: u64,
    ) -> anyhow::Result<Presigned>;
    /// A URL that downloads the object as an attachment named `file_name`.
    async fn presign_download(
        &self,
        object: &str,
        file_name: &str,
        ttl_s: u64,
    ) -> anyhow::Result<Presigned>;
    /// The object's size, or `None` when it does not exist.
    async fn size(&self, object: &str) -> anyhow::Result<Option<u64>>;
    /// Stores a local file (a job's output) as `object`; the source may be moved away.
    async fn put_file(&self, object: &str, src: &Path) -> anyhow::Result<u64>;
    /// Makes `object` readable at `dest` (inside a job's scratch directory).
    async fn stage(&self, object: &str, dest: &Path) -> anyhow::Result<()>;
    /// Makes `to` a second object with the bytes of `from`, without passing them through this
    /// process where the store allows (a hard link; S3's server-side CopyObject). Objects never
    /// change once written, so the two may share storage.
    async fn copy(&self, from: &str, to: &str) -> anyhow::Result<()>;
    /// Removes the object; removing a missing object is not an error (deletes are retried).
    async fn delete(&self, object: &str) -> anyhow::Result<()>;
    /// Every stored object with when it was written, for the orphan sweep (`sweeper.rs`).
    async fn list(&self) -> anyhow::Result<Vec<(String, std::time::SystemTime)>>;
    /// The store's multipart uploads, when it has them (S3): resumable uploads then go to one
    /// (`resumable/parts.rs`) instead of a file on the instance's disk.
    fn multipart(self: Arc<Self>) -> Option<Arc<dyn Multipart>> {
        None
    }
}

/// An object put together from parts sent one at a time, possibly by different instances (S3's
/// multipart upload). Parts are numbered from 1 without gaps; every part but the last holds at
/// least `MIN_PART` bytes; a part sent again under its number replaces the earlier one.
#[async_trait]
pub trait Multipart: Send + Sync {
    /// Starts an upload that will become `object`: its id.
    async fn start(&self, object: &str) -> anyhow::Result<String>;
    /// Sends part `number`: its ETag.
    async fn put_part(
        &self,
        object: &str,
        upload_id: &str,
        number: u32,
        body: Bytes,
    ) -> anyhow::Result<String>;
    /// Joins the parts (number and ETag, in order) into the object.
    async fn complete(
        &self,
        object: &str,
        upload_id: &str,
        parts: &[(u32, String)],
    ) -> anyhow::Result<()>;
    /// Drops the upload and its parts; an upload already gone is not an error.
    async fn abort(&self, object: &str, upload_id: &str) -> anyhow::Result<()>;
    /// Stores a small object held in memory (a resumable upload's tail, under `MIN_PART`).
    async fn put_bytes(&self, object: &str, body: Bytes) -> anyhow::Result<()>;
    /// Reads a small object whole into memory.
    async fn get_bytes(&self, object: &str) -> anyhow::Result<Bytes>;
}

/// The smallest part S3 takes, but for an upload's last.
pub const MIN_PART: u64 = 5 * 1024 * 1024;
/// The most parts one S3 upload may have.
pub const MAX_PARTS: u64 = 10_000;
