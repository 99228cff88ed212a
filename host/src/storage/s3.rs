//! The S3 object store: uploads go through the host (`api/blob.rs`), which enforces the plan's
//! size as the local store does, unless `storage.s3.direct_uploads` presigns PUTs straight to
//! the bucket (sizes then checked at first use, `files::adopt`); downloads are presigned GETs
//! on the bucket. A job's inputs and outputs stream between the bucket and its scratch
//! directory without being held in memory. Resumable uploads (`resumable/parts.rs`) fill a
//! multipart upload part by part, from any instance (`Multipart`). Works with AWS and
//! S3-compatible servers.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use async_trait::async_trait;
use aws_sdk_s3::Client;
use aws_sdk_s3::config::{
    BehaviorVersion, Credentials, Region, RequestChecksumCalculation, ResponseChecksumValidation,
};
use aws_sdk_s3::error::SdkError;
use aws_sdk_s3::operation::get_object::GetObjectOutput;
use aws_sdk_s3::presigning::PresigningConfig;
use aws_sdk_s3::primitives::{ByteStream, Length};
use aws_sdk_s3::types::{CompletedMultipartUpload, CompletedPart};
use aws_smithy_http_client::tls::{self, TrustStore, rustls_provider::CryptoMode};
use tokio::io::AsyncWriteExt;

use super::attachment::{content_disposition, guess_type};
use super::presign::{BlobUrls, Method};
use super::{Multipart, ObjectStore, Presigned, Unavailable};
use crate::config;

/// Outputs up to this size go up in one PUT; larger ones as a multipart upload of these parts
/// (S3 allows at most 10,000 parts, so 10,000 x 64 MiB = 625 GiB per object).
const PART_BYTES: u64 = 64 * 1024 * 1024;

/// What CopyObject's `x-amz-copy-source` (`bucket/key`) must have percent-encoded.
const COPY_SOURCE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

pub struct S3Store {
    client: Client,
    bucket: String,
    /// Objects are stored under this prefix, so a bucket can be shared with other data.
    prefix: String,
    /// Where tenants PUT uploads: the host's blob route, or `None` for the bucket itself.
    host_uploads: Option<Arc<BlobUrls>>,
}

impl S3Store {
    /// Builds the client and checks that the bucket answers, so a wrong endpoint, bucket or
    /// credential stops start-up with a clear message instead of failing the first upload.
    pub async fn connect(
        cfg: &config::S3,
        extra_ca_file: &str,
        host_uploads: Option<Arc<BlobUrls>>,
    ) -> anyhow::Result<S3Store> {
        let (key_id, secret, token) = credentials(cfg)?;
        let region = first_set(&[&cfg.region, &env("AWS_REGION"), &env("AWS_DEFAULT_REGION")])
            .unwrap_or_else(|| "us-east-1".into());
        let mut trust = TrustStore::default();
        if !extra_ca_file.is_empty() {
            let pem = std::fs::read(extra_ca_file)
                .with_context(|| format!("config key `net.extra_ca_file`: {extra_ca_file}"))?;
            trust = trust.with_pem_certificate(pem);
        }
        // The ring provider, as for the service's other TLS, so there is one crypto library.
        let http = aws_smithy_http_client::Builder::new()
            .tls_provider(tls::Provider::Rustls(CryptoMode::Ring))
            .tls_context(tls::TlsContext::builder().with_trust_store(trust).build()?)
            .build_https();
        let mut builder = aws_sdk_s3::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new(region))
            .credentials_provider(Credentials::new(key_id, secret, token, None, "mediaforge"))
            .force_path_style(cfg.force_path_style)
            // Checksums only where S3 requires them: a presigned PUT must not demand a checksum
            // header the tenant's client cannot compute, and S3-compatible servers vary.
            .request_checksum_calculation(RequestChecksumCalculation::WhenRequired)
            .response_checksum_validation(ResponseChecksumValidation::WhenRequired)
            .http_client(http);
        if let Some(endpoint) = first_set(&[&cfg.endpoint, &env("AWS_ENDPOINT_URL")]) {
            builder = builder.endpoint_url(endpoint);
        }
        let store = S3Store {
            client: Client::from_conf(builder.build()),
            bucket: cfg.bucket.clone(),
            prefix: cfg.prefix.trim_matches('/').to_string(),
            host_uploads,
        };
        store
            .client
            .head_bucket()
            .bucket(&store.bucket)
            .send()
            .await
            .map_err(|e| {
                anyhow::anyhow!(
                    "config key `storage.s3`: bucket {:?} is not reachable: {}",
                    store.bucket,
                    describe(&e)
                )
            })?;
        Ok(store)
    }

    fn key(&self, object: &str) -> String {
        if self.prefix.is_empty() {
            object.to_string()
        } else {
            format!("{}/{object}", self.prefix)
        }
    }

    /// A new multipart upload into the bucket key `key` (prefix included): its id.
    async fn create_upload(&self, key: &str) -> anyhow::Result<String> {
        let upload = self
            .client
            .create_multipart_upload()
            .bucket(&self.bucket)
            .key(key)
            .send()
            .await
            .map_err(|e| failed("S3 create multipart upload", &e))?;
        Ok(upload
            .upload_id()
            .context("S3 gave no upload id")?
            .to_string())
    }

    /// Completes the multipart upload `upload_id` into `key` from its parts, in order.
    async fn complete_upload(
        &self,
        key: &str,
        upload_id: &str,
        parts: Vec<CompletedPart>,
    ) -> anyhow::Result<()> {
        self.client
            .complete_multipart_upload()
            .bucket(&self.bucket)
            .key(key)
            .upload_id(upload_id)
            .multipart_upload(
                CompletedMultipartUpload::builder()
                    .set_parts(Some(parts))
                    .build(),
            )
            .send()
            .await
            .map_err(|e| failed("S3 complete multipart upload", &e))?;
        Ok(())
    }

    /// Drops the multipart upload `upload_id` into `key` and its parts; one already gone
    /// (completed or aborted: a retried removal) is not an error.
    async fn abort_upload(&self, key: &str, upload_id: &str) -> anyhow::Result<()> {
        match self
            .client
            .abort_multipart_upload()
            .bucket(&self.bucket)
            .key(key)
            .upload_id(upload_id)
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if status(&e) == Some(404) => Ok(()),
            Err(e) => Err(failed("S3 abort multipart upload", &e)),
        }
    }

    /// The object `object` (prefix added), its body not yet read.
    async fn get(&self, object: &str) -> anyhow::Result<GetObjectOutput> {
        self.client
            .get_object()
            .bucket(&self.bucket)
            .key(self.key(object))
            .send()
            .await
            .map_err(|e| failed("S3 get object", &e))
    }

    async fn put_multipart(&self, key: &str, src: &Path, size: u64) -> anyhow::Result<()> {
        let upload_id = self.create_upload(key).await?;
        let result = self.put_parts(key, &upload_id, src, size).await;
        if result.is_err() {
            // Parts of an abandoned upload are billed until aborted.
            let _ = self.abort_upload(key, &upload_id).await;
        }
        result
    }

    async fn put_parts(
        &self,
        key: &str,
        upload_id: &str,
        src: &Path,
        size: u64,
    ) -> anyhow::Result<()> {
        let mut parts = Vec::new();
        let mut offset = 0;
        let mut number = 1;
        while offset < size {
            let length = PART_BYTES.min(size - offset);
            // Each part is read from the file as it is sent: memory stays bounded.
            let body = ByteStream::read_from()
                .path(src)
                .offset(offset)
                .length(Length::Exact(length))
                .build()
                .await?;
            let part = self
                .client
                .upload_part()
                .bucket(&self.bucket)
                .key(key)
                .upload_id(upload_id)
                .part_number(number)
                .content_length(length as i64)
                .body(body)
                .send()
                .await
                .map_err(|e| failed(&format!("S3 upload part {number}"), &e))?;
            parts.push(
                CompletedPart::builder()
                    .part_number(number)
                    .set_e_tag(part.e_tag().map(str::to_string))
                    .build(),
            );
            offset += length;
            number += 1;
        }
        self.complete_upload(key, upload_id, parts).await
    }
}

#[async_trait]
impl ObjectStore for S3Store {
    async fn presign_upload(
        &self,
        object: &str,
        max_bytes: u64,
        ttl_s: u64,
    ) -> anyhow::Result<Presigned> {
        if let Some(urls) = &self.host_uploads {
            return Ok(Presigned {
                url: urls.url(Method::Put, object, ttl_s, Some(max_bytes)),
                headers: Default::default(),
            });
        }
        let request = self
            .client
            .put_object()
            .bucket(&self.bucket)
            .key(self.key(object))
            .presigned(presigning(ttl_s)?)
            .await?;
        Ok(Presigned {
            url: request.uri().to_string(),
            headers: request
                .headers()
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect(),
        })
    }

    async fn presign_download(
        &self,
        object: &str,
        file_name: &str,
        ttl_s: u64,
    ) -> anyhow::Result<Presigned> {
        // As the local store serves it: an attachment with the file's name and a type from it,
        // whatever Content-Type the tenant's PUT claimed (no HTML rendered from the bucket).
        let content_type =
            guess_type(file_name).unwrap_or_else(|| "application/octet-stream".into());
        let disposition = content_disposition(file_name);
        let request = self
            .client
            .get_object()
            .bucket(&self.bucket)
            .key(self.key(object))
            .response_content_type(content_type)
            .response_content_disposition(disposition)
            .presigned(presigning(ttl_s)?)
            .await?;
        Ok(Presigned {
            url: request.uri().to_string(),
            headers: Default::default(),
        })
    }

    async fn size(&self, object: &str) -> anyhow::Result<Option<u64>> {
        match self
            .client
            .head_object()
            .bucket(&self.bucket)
            .key(self.key(object))
            .send()
            .await
        {
            Ok(head) => Ok(Some(head.content_length().unwrap_or(0).max(0) as u64)),
            Err(e) if status(&e) == Some(404) => Ok(None),
            Err(e) => Err(failed("S3 head object", &e)),
        }
    }

    async fn put_file(&self, object: &str, src: &Path) -> anyhow::Result<u64> {
        let size = tokio::fs::metadata(src).await?.len();
        let key = self.key(object);
        if size > PART_BYTES {
            self.put_multipart(&key, src, size).await?;
        } else {
            self.client
                .put_object()
                .bucket(&self.bucket)
                .key(&key)
                .content_length(size as i64)
                .body(ByteStream::from_path(src).await?)
                .send()
                .await
                .map_err(|e| failed("S3 put object", &e))?;
        }
        Ok(size)
    }

    async fn stage(&self, object: &str, dest: &Path) -> anyhow::Result<()> {
        let mut body = self.get(object).await?.body.into_async_read();
        // Written a megabyte at a time: each write to a tokio file is a trip to the blocking
        // pool, and `copy`'s own 8 KB writes cost a 60 s 720p input's staging a tenth of a
        // second of CPU (`make bench-split`: the coordinator's own CPU 0.40-0.42 s before,
        // 0.29-0.33 s after).
        let mut file =
            tokio::io::BufWriter::with_capacity(1 << 20, tokio::fs::File::create(dest).await?);
        tokio::io::copy(&mut body, &mut file).await?;
        file.flush().await?;
        Ok(())
    }

    async fn copy(&self, from: &str, to: &str) -> anyhow::Result<()> {
        let source = format!("{}/{}", self.bucket, self.key(from));
        self.client
            .copy_object()
            .bucket(&self.bucket)
            .key(self.key(to))
            .copy_source(percent_encoding::utf8_percent_encode(&source, COPY_SOURCE).to_string())
            .send()
            .await
            .map_err(|e| anyhow::anyhow!("S3 copy object: {}", describe(&e)))?;
        Ok(())
    }

    async fn delete(&self, object: &str) -> anyhow::Result<()> {
        // S3 answers 204 for a key that is already gone, so retried deletes are harmless.
        self.client
            .delete_object()
            .bucket(&self.bucket)
            .key(self.key(object))
            .send()
            .await
            .map_err(|e| failed("S3 delete object", &e))?;
        Ok(())
    }

    async fn list(&self) -> anyhow::Result<Vec<(String, std::time::SystemTime)>> {
        let prefix = self.key("");
        let mut found = Vec::new();
        let mut pages = self
            .client
            .list_objects_v2()
            .bucket(&self.bucket)
            .prefix(&prefix)
            .into_paginator()
            .send();
        while let Some(page) = pages.next().await {
            let page = page.map_err(|e| failed("S3 list objects", &e))?;
            for object in page.contents() {
                let (Some(key), Some(modified)) = (object.key(), object.last_modified()) else {
                    continue;
                };
                let Some(name) = key.strip_prefix(&prefix) else {
                    continue;
                };
                let when = std::time::UNIX_EPOCH
                    + std::time::Duration::from_secs(modified.secs().max(0) as u64);
                found.push((name.to_string(), when));
            }
        }
        Ok(found)
    }

    fn multipart(self: Arc<Self>) -> Option<Arc<dyn Multipart>> {
        Some(self)
    }
}

/// Resumable uploads' parts (`resumable/parts.rs`), each sent from memory (one bounded buffer).
#[async_trait]
impl Multipart for S3Store {
    async fn start(&self, object: &str) -> anyhow::Result<String> {
        self.create_upload(&self.key(object)).await
    }

    async fn put_part(
        &self,
        object: &str,
        upload_id: &str,
        number: u32,
        body: bytes::Bytes,
    ) -> anyhow::Result<String> {
        let part = self
            .client
            .upload_part()
            .bucket(&self.bucket)
            .key(self.key(object))
            .upload_id(upload_id)
            .part_number(number as i32)
            .content_length(body.len() as i64)
            .body(ByteStream::from(body))
            .send()
            .await
            .map_err(|e| failed(&format!("S3 upload part {number}"), &e))?;
        Ok(part.e_tag().unwrap_or_default().to_string())
    }

    async fn complete(
        &self,
        object: &str,
        upload_id: &str,
        parts: &[(u32, String)],
    ) -> anyhow::Result<()> {
        let parts = parts
            .iter()
            .map(|(number, etag)| {
                CompletedPart::builder()
                    .part_number(*number as i32)
                    .e_tag(etag)
                    .build()
            })
            .collect();
        self.complete_upload(&self.key(object), upload_id, parts)
            .await
    }

    async fn abort(&self, object: &str, upload_id: &str) -> anyhow::Result<()> {
        self.abort_upload(&self.key(object), upload_id).await
    }

    async fn put_bytes(&self, object: &str, body: bytes::Bytes) -> anyhow::Result<()> {
        self.client
            .put_object()
            .bucket(&self.bucket)
            .key(self.key(object))
            .content_length(body.len() as i64)
            .body(ByteStream::from(body))
            .send()
            .await
            .map_err(|e| failed("S3 put object", &e))?;
        Ok(())
    }

    async fn get_bytes(&self, object: &str) -> anyhow::Result<bytes::Bytes> {
        Ok(self.get(object).await?.body.collect().await?.into_bytes())
    }
}

fn presigning(ttl_s: u64) -> anyhow::Result<PresigningConfig> {
    // SigV4 presigned URLs live at most 7 days.
    let ttl = Duration::from_secs(ttl_s.clamp(1, 7 * 24 * 3600));
    Ok(PresigningConfig::expires_in(ttl)?)
}

/// Keys from the configuration, else the standard AWS environment variables.
fn credentials(cfg: &config::S3) -> anyhow::Result<(String, String, Option<String>)> {
    if !cfg.access_key_id.is_empty() {
        return Ok((
            cfg.access_key_id.clone(),
            cfg.secret_access_key.clone(),
            None,
        ));
    }
    match (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
        (id, secret) if !id.is_empty() && !secret.is_empty() => {
            let token = Some(env("AWS_SESSION_TOKEN")).filter(|t| !t.is_empty());
            Ok((id, secret, token))
        }
        _ => anyhow::bail!(
            "config key `storage.s3.access_key_id`: no S3 credentials (set it and \
             secret_access_key, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"
        ),
    }
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_default()
}

fn first_set(values: &[&String]) -> Option<String> {
    values.iter().find(|v| !v.is_empty()).map(|v| v.to_string())
}

fn status<E>(e: &SdkError<E, aws_sdk_s3::config::http::HttpResponse>) -> Option<u16> {
    e.raw_response().map(|r| r.status().as_u16())
}

/// An S3 call's failure for the caller: `Unavailable` (so a 503, `error.rs`) when the store did
/// not answer or answered with a server error, which retrying later may cure.
fn failed<E>(what: &str, e: &SdkError<E, aws_sdk_s3::config::http::HttpResponse>) -> anyhow::Error
where
    E: std::error::Error + 'static,
{
    let message = format!("{what}: {}", describe(e));
    let down = match e {
        SdkError::DispatchFailure(_) | SdkError::TimeoutError(_) | SdkError::ResponseError(_) => {
            true
        }
        _ => status(e).is_some_and(|s| s >= 500),
    };
    if down {
        anyhow::Error::new(Unavailable(message))
    } else {
        anyhow::anyhow!(message)
    }
}

/// The S3 error code and message, or the transport failure, for logs and start-up errors.
fn describe<E, R>(e: &SdkError<E, R>) -> String
where
    E: std::error::Error + 'static,
    R: std::fmt::Debug,
{
    aws_sdk_s3::error::DisplayErrorContext(e).to_string()
}
