//! Tenants' own buckets: a `credentials` resource per account (`POST/GET /credentials`,
//! `DELETE /credentials/{name}`) naming an S3-compatible bucket and the keys to it. The secret
//! is sealed before it is stored (`seal.rs`), opened only to sign a request (`bucket.rs`), and
//! never answered, logged or kept in the clear. The endpoint obeys the outbound rules of URL
//! inputs (`net.rs`), checked when the credential is made and again on every connection.

use serde::Deserialize;

use crate::accounts::{self, Actor};
use crate::app::AppState;
use crate::bucket::Bucket;
use crate::clock;
use crate::db::{Account, CredentialRow};
use crate::error::{AppError, AppResult};

/// A credential as a tenant sends it.
#[derive(Deserialize, salvo::oapi::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewCredential {
    /// 1-64 of letters, digits, `_`, `-`: what `s3://<name>/<key>` and `export` name.
    pub name: String,
    /// `https://host[:port]` of the S3-compatible service (requests are path-style).
    pub endpoint: String,
    /// The bucket's region (default `us-east-1`).
    #[serde(default)]
    pub region: Option<String>,
    pub bucket: String,
    pub access_key_id: String,
    /// Kept sealed; never answered.
    pub secret_access_key: String,
}

impl std::fmt::Debug for NewCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewCredential")
            .field("name", &self.name)
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

fn sealer(state: &AppState) -> AppResult<&crate::seal::Sealer> {
    state.sealer.as_ref().ok_or(AppError::BucketsDisabled)
}

/// What a sealed secret is bound to (`seal.rs`): its account and its name.
fn owner(account: &str, name: &str) -> String {
    format!("credential:{account}/{name}")
}

fn bad(why: impl Into<String>) -> AppError {
    AppError::BadRequest(why.into())
}

fn check(new: &NewCredential) -> AppResult<()> {
    let name_ok = (1..=64).contains(&new.name.len())
        && new
            .name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'));
    if !name_ok {
        return Err(bad(
            "Invalid credential name: 1-64 letters, digits, '_' or '-'",
        ));
    }
    // S3's bucket naming rules (3-63 of lower-case letters, digits, '.', '-').
    let bucket_ok = (3..=63).contains(&new.bucket.len())
        && new
            .bucket
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'-'))
        && !new.bucket.starts_with(['.', '-'])
        && !new.bucket.ends_with(['.', '-']);
    if !bucket_ok {
        return Err(bad(
            "Invalid bucket: 3-63 lower-case letters, digits, '.' or '-'",
        ));
    }
    let region = new.region.as_deref().unwrap_or("us-east-1");
    if !(1..=64).contains(&region.len())
        || !region
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return Err(bad("Invalid region: letters, digits and '-'"));
    }
    let printable =
        |s: &str| (1..=256).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_graphic());
    if !printable(&new.access_key_id) {
        return Err(bad("Invalid access_key_id: 1-256 printable characters"));
    }
    if !printable(&new.secret_access_key) {
        return Err(bad("Invalid secret_access_key: 1-256 printable characters"));
    }
    Ok(())
}

/// The endpoint as the outbound client takes it: a URL with no path, query or credentials,
/// whose name resolves to allowed addresses. When a credential is made, an endpoint that does
/// not resolve is the tenant's mistake (400); when it is used, the bucket is unreachable (502).
async fn endpoint(state: &AppState, raw: &str, making: bool) -> AppResult<url::Url> {
    let url = state.net.check(raw).await.map_err(|e| match e {
        crate::net::NetError::Refused(m) => bad(format!("Invalid endpoint: {m}")),
        other if making => bad(format!("Invalid endpoint: {other}")),
        other => AppError::BucketFailed(format!("Could not reach the bucket's endpoint: {other}")),
    })?;
    if !matches!(url.path(), "" | "/") || url.query().is_some() || url.fragment().is_some() {
        return Err(bad(
            "Invalid endpoint: give only scheme, host and port (requests are path-style)",
        ));
    }
    Ok(url)
}

pub async fn create(
    state: &AppState,
    account: &Account,
    actor: &Actor,
    new: NewCredential,
) -> AppResult<CredentialRow> {
    let sealer = sealer(state)?;
    check(&new)?;
    let endpoint = endpoint(state, &new.endpoint, true).await?;
    let row = CredentialRow {
        name: new.name.clone(),
        endpoint: endpoint.as_str().trim_end_matches('/').to_string(),
        region: new.region.unwrap_or_else(|| "us-east-1".into()),
        bucket: new.bucket,
        access_key_id: new.access_key_id,
        created_at: clock::now_ms(),
    };
    let sealed = sealer.seal(&owner(&account.name, &row.name), &new.secret_access_key);
    if !state
        .db
        .create_credential(&account.name, &row, &sealed)
        .await?
    {
        return Err(AppError::CredentialExists(row.name));
    }
    accounts::audit(state, actor, "credential.create", &row.name).await;
    Ok(row)
}

pub async fn list(state: &AppState, account: &Account) -> AppResult<Vec<CredentialRow>> {
    Ok(state.db.credentials_of(&account.name).await?)
}

pub async fn delete(
    state: &AppState,
    account: &Account,
    actor: &Actor,
    name: &str,
) -> AppResult<()> {
    if !state.db.delete_credential(&account.name, name).await? {
        return Err(AppError::CredentialNotFound(name.to_string()));
    }
    accounts::audit(state, actor, "credential.delete", name).await;
    Ok(())
}

/// The account's bucket named `name`, opened to sign requests. Another account's credential of
/// the same name is never found.
pub async fn open(state: &AppState, account: &Account, name: &str) -> AppResult<Bucket> {
    let sealer = sealer(state)?;
    let Some(stored) = state.db.sealed_credential(&account.name, name).await? else {
        return Err(AppError::CredentialNotFound(name.to_string()));
    };
    let secret = sealer
        .open(&owner(&account.name, name), &stored.sealed_secret)
        .map_err(|e| AppError::Internal(anyhow::anyhow!("credential {name}: {e}")))?;
    let endpoint = endpoint(state, &stored.row.endpoint, false).await?;
    Ok(Bucket::new(
        name,
        endpoint,
        &stored.row.region,
        &stored.row.bucket,
        &stored.row.access_key_id,
        secret,
    ))
}

/// `s3://<credential>/<key>` refused unless the key names one object plainly
/// (`bucket::check_key`).
pub fn check_object(credential: &str, key: &str) -> AppResult<()> {
    crate::bucket::check_key(key).map_err(|why| AppError::BadObject {
        path: format!("s3://{credential}/{key}"),
        why,
    })
}

/// A bucket request's failure as the tenant reads it, naming the object (`verb`: read, write).
pub fn failed(bucket: &Bucket, key: &str, verb: &str, e: crate::net::NetError) -> AppError {
    use crate::net::NetError;
    let object = bucket.shown(key);
    let why = match e {
        NetError::Refused(m) => {
            return AppError::UrlRefused(format!("Bucket endpoint of '{}' refused: {m}", bucket.credential));
        }
        NetError::Status(403) => {
            "the bucket answered HTTP 403 (check the credential's keys and the bucket's permissions)"
                .to_string()
        }
        NetError::Status(404) => "the bucket answered HTTP 404 (no such bucket or object)".into(),
        NetError::Status(code) => format!("the bucket answered HTTP {code}"),
        other => other.to_string(),
    };
    AppError::BucketFailed(format!("Could not {verb} {object}: {why}"))
}
