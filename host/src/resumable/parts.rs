//! A PATCH's bytes on a store with multipart uploads (S3): cut into parts in memory and sent as
//! they fill, so that nothing of the upload is kept on the instance that takes the PATCH.
//!
//! An S3 part must hold at least 5 MiB (`MIN_PART`) unless it is the upload's last, but a tus
//! PATCH may end anywhere. The bytes after a PATCH's last whole part (fewer than 5 MiB) are its
//! *tail*, kept in the bucket as a small object of its own (`tus-<tus_id>-<offset>-<random>`,
//! named in the upload's row), and read back into memory by the next PATCH, on whichever
//! instance takes it, before its own bytes. Chosen over the alternatives:
//! - a tail on the instance's disk would tie the next PATCH to that instance;
//! - a tail in the database would put up to 5 MiB in a row (and in every read of it);
//! - sending every PATCH's end as a part however small would break S3's 5 MiB minimum, which
//!   S3 enforces only at completion, when nothing can be done about it.
//!
//! A new tail gets a new name, so a PATCH that fails never overwrites the tail the row names; the
//! old tail goes once the new one is counted. Parts are numbered from 1 without gaps (S3 takes
//! gaps, but S3-compatible servers such as s3s-fs do not), and a PATCH numbers its parts after
//! the ones counted: the parts of a PATCH that failed (a checksum that did not match, a body
//! that broke off, bytes past the length) are never listed, and the next PATCH sends its own
//! under the same numbers, replacing them. This is safe because a PATCH holds the upload's lock
//! (`db/tus.rs`) while it sends parts, and its lease is renewed while it runs; a PATCH that
//! ends with a part still in flight lets the lock go only once that part has landed, so no stale
//! part can replace one a later PATCH counted.
//!
//! Memory: one part being filled and one being sent, each of `part_bytes` (8 MiB; more only
//! for uploads over 10,000 such parts, 78 GiB), per PATCH running.

use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use tokio::task::JoinHandle;

use crate::db::{TusPart, TusTail, TusUpload};
use crate::storage::{MAX_PARTS, MIN_PART, Multipart};

/// A part's size: 8 MiB, or more when the upload would need more than S3's 10,000 parts.
pub fn part_bytes(length: u64) -> u64 {
    const PART: u64 = 8 << 20;
    let needed = length.div_ceil(MAX_PARTS).next_multiple_of(1 << 20);
    PART.max(needed)
}

/// A tail's object name: new for every PATCH that leaves one.
fn tail_object(tus_id: &str, offset: u64) -> String {
    format!("tus-{tus_id}-{offset}-{}", crate::names::random_id(8))
}

/// The upload a tail object belongs to, when `object` is one.
pub fn tail_upload(object: &str) -> Option<&str> {
    let tus_id = object.strip_prefix("tus-")?.split('-').next()?;
    (tus_id.len() == 32 && tus_id.bytes().all(|b| b.is_ascii_alphanumeric())).then_some(tus_id)
}

type Sending = JoinHandle<anyhow::Result<TusPart>>;

/// One PATCH's parts.
pub struct Parts {
    store: Arc<dyn Multipart>,
    object: String,
    upload_id: String,
    part_bytes: usize,
    next: u32,
    buf: BytesMut,
    /// A part being sent while the next one fills.
    sending: Option<Sending>,
    /// Parts this PATCH sent.
    sent: Vec<TusPart>,
    /// The tail this PATCH left, once `finish` made it.
    pub new_tail: Option<TusTail>,
}

impl Parts {
    /// Starts after the upload's counted parts, with its tail's bytes first.
    pub async fn open(store: Arc<dyn Multipart>, upload: &TusUpload) -> anyhow::Result<Parts> {
        let upload_id = upload
            .multipart
            .clone()
            .ok_or_else(|| anyhow::anyhow!("upload {} has no multipart upload", upload.tus_id))?;
        let part_bytes = part_bytes(upload.length) as usize;
        let mut buf = BytesMut::with_capacity(part_bytes);
        if let Some(tail) = &upload.tail {
            let bytes = store.get_bytes(&tail.object).await?;
            anyhow::ensure!(
                bytes.len() as u64 == tail.size,
                "the tail {} holds {} bytes, not {}",
                tail.object,
                bytes.len(),
                tail.size
            );
            buf.extend_from_slice(&bytes);
        }
        Ok(Parts {
            store,
            object: upload.object_id.clone(),
            upload_id,
            part_bytes,
            next: upload.parts.len() as u32 + 1,
            buf,
            sending: None,
            sent: Vec::new(),
            new_tail: None,
        })
    }

    pub async fn write(&mut self, mut chunk: &[u8]) -> anyhow::Result<()> {
        while !chunk.is_empty() {
            let room = self.part_bytes - self.buf.len();
            let take = room.min(chunk.len());
            self.buf.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
            if self.buf.len() == self.part_bytes {
                let part = self.buf.split().freeze();
                self.buf.reserve(self.part_bytes);
                self.send(part).await?;
            }
        }
        Ok(())
    }

    /// Sends `body` as the next part once the one before it has landed.
    async fn send(&mut self, body: Bytes) -> anyhow::Result<()> {
        self.landed().await?;
        let (store, object, upload_id) = (
            self.store.clone(),
            self.object.clone(),
            self.upload_id.clone(),
        );
        let number = self.next;
        self.next += 1;
        self.sending = Some(tokio::spawn(async move {
            let size = body.len() as u64;
            let etag = store.put_part(&object, &upload_id, number, body).await?;
            Ok(TusPart { number, etag, size })
        }));
        Ok(())
    }

    async fn landed(&mut self) -> anyhow::Result<()> {
        if let Some(sending) = self.sending.take() {
            self.sent.push(sending.await??);
        }
        Ok(())
    }

    /// Sends what is left: as the upload's last part when `last`, else as a part when it is big
    /// enough, else as a new tail object (`tus_id` and `to` name it). The parts this PATCH sent.
    pub async fn finish(
        &mut self,
        last: bool,
        tus_id: &str,
        to: u64,
    ) -> anyhow::Result<&[TusPart]> {
        let rest = self.buf.split().freeze();
        if !rest.is_empty() && (last || rest.len() as u64 >= MIN_PART) {
            self.send(rest).await?;
        } else if !rest.is_empty() {
            let object = tail_object(tus_id, to);
            let size = rest.len() as u64;
            self.store.put_bytes(&object, rest).await?;
            self.new_tail = Some(TusTail { object, size });
        }
        self.landed().await?;
        Ok(&self.sent)
    }

    /// What must end before the upload's lock goes, when the PATCH stops early: the part in
    /// flight (awaited, never aborted: a request cut off may still land).
    pub fn in_flight(&mut self) -> Option<Sending> {
        self.sending.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_8_mib_until_s3s_part_count_needs_more() {
        assert_eq!(part_bytes(0), 8 << 20);
        assert_eq!(part_bytes(300 << 20), 8 << 20);
        assert_eq!(part_bytes(MAX_PARTS * (8 << 20)), 8 << 20);
        let huge = 200u64 << 30;
        let part = part_bytes(huge);
        assert!(part > 8 << 20 && part.is_multiple_of(1 << 20) && huge.div_ceil(part) <= MAX_PARTS);
    }

    #[test]
    fn a_tail_names_its_upload() {
        let tus_id = crate::names::random_id(32);
        let tail = tail_object(&tus_id, 3_000_000);
        assert_eq!(tail_upload(&tail), Some(tus_id.as_str()));
        assert_eq!(tail_upload(&crate::names::random_id(32)), None);
        assert_eq!(tail_upload("tus-short-1-x"), None);
        assert_eq!(tail_upload("cache-abc"), None);
    }
}
