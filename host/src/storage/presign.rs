//! Presigned URLs of the local store: HMAC-SHA256 over a canonical string of method, object id,
//! expiry, key id and (for PUT) the size cap. Parsing is strict and verification constant-time,
//! so a URL cannot be widened (another object, a later expiry, a larger cap, another method).

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

type HmacSha256 = Hmac<Sha256>;

/// No presigned URL lives longer than this, whatever the caller asks.
pub const MAX_TTL_S: u64 = 7 * 24 * 3600;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Put,
    /// Read any ready file of one directory (`/s/...`, `api/share.rs`): the object signed is the
    /// directory's id.
    Share,
}

impl Method {
    fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Share => "SHARE",
        }
    }
}

/// What a verified URL grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub object: String,
    pub expires: u64,
    /// PUT only: the most bytes the upload may have.
    pub max_bytes: Option<u64>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Rejection {
    Malformed,
    BadSignature,
    Expired,
}

/// URLs of the host's own `/blob/{object}` route (`api/blob.rs`): every local-store URL, and
/// S3 upload URLs unless `storage.s3.direct_uploads` sends tenants straight to the bucket.
pub struct BlobUrls {
    public_url: String,
    signer: Signer,
}

impl BlobUrls {
    pub fn new(public_url: &str, signing_key: &[u8]) -> BlobUrls {
        BlobUrls {
            public_url: public_url.trim_end_matches('/').to_string(),
            signer: Signer::new(signing_key),
        }
    }

    pub fn signer(&self) -> &Signer {
        &self.signer
    }

    pub fn url(&self, method: Method, object: &str, ttl_s: u64, max: Option<u64>) -> String {
        let expires = crate::clock::unix_now() + ttl_s.min(MAX_TTL_S);
        let query = self.signer.sign(method, object, expires, max);
        format!("{}/blob/{object}?{query}", self.public_url)
    }
}

/// The path of a directory's playback URLs, `{public}/s/{token}/{dir_id}/`: every file of the
/// directory is the prefix plus its name, so the relative URIs inside a playlist or manifest
/// resolve to their siblings, and nothing outside the directory does. The token is the
/// signature's query in one path segment, `{exp}.{kid}.{sig}` (none of them holds a dot).
impl BlobUrls {
    pub fn share_prefix(&self, dir_id: &str, ttl_s: u64) -> String {
        let expires = crate::clock::unix_now() + ttl_s.min(MAX_TTL_S);
        let token = share_token(&self.signer.sign(Method::Share, dir_id, expires, None));
        format!("{}/s/{token}/{dir_id}/", self.public_url)
    }
}

/// `exp=E&kid=K&sig=S` as `E.K.S`.
fn share_token(query: &str) -> String {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('=').map(|(_, v)| v))
        .collect::<Vec<_>>()
        .join(".")
}

/// `E.K.S` as the query `Signer::verify` reads; malformed when it is not three parts.
pub fn share_query(token: &str) -> Result<String, Rejection> {
    match token.split('.').collect::<Vec<_>>()[..] {
        [exp, kid, sig] => Ok(format!("exp={exp}&kid={kid}&sig={sig}")),
        _ => Err(Rejection::Malformed),
    }
}

pub struct Signer {
    key: Vec<u8>,
    key_id: String,
}

impl Signer {
    pub fn new(key: &[u8]) -> Signer {
        let key_id = hex::encode(&Sha256::digest(key)[..4]);
        Signer {
            key: key.to_vec(),
            key_id,
        }
    }

    /// The query string (without `?`) of a URL for `object`, valid until `expires` (unix s).
    pub fn sign(
        &self,
        method: Method,
        object: &str,
        expires: u64,
        max_bytes: Option<u64>,
    ) -> String {
        let sig = self.mac(method, object, expires, max_bytes);
        match (method, max_bytes) {
            (Method::Put, Some(max)) => {
                format!("exp={expires}&max={max}&kid={}&sig={sig}", self.key_id)
            }
            _ => format!("exp={expires}&kid={}&sig={sig}", self.key_id),
        }
    }

    pub fn verify(
        &self,
        method: Method,
        object: &str,
        query: &str,
        now: u64,
    ) -> Result<Grant, Rejection> {
        let q = parse_query(query, method == Method::Put)?;
        if q.kid != self.key_id {
            return Err(Rejection::BadSignature);
        }
        let expected = self.mac(method, object, q.exp, q.max);
        if !bool::from(expected.as_bytes().ct_eq(q.sig.as_bytes())) {
            return Err(Rejection::BadSignature);
        }
        // Checked after the signature, so an expired URL is only reported for a genuine one.
        if q.exp <= now || q.exp > now + MAX_TTL_S {
            return Err(Rejection::Expired);
        }
        Ok(Grant {
            object: object.to_string(),
            expires: q.exp,
            max_bytes: q.max,
        })
    }

    fn mac(&self, method: Method, object: &str, expires: u64, max_bytes: Option<u64>) -> String {
        let mut mac = HmacSha256::new_from_slice(&self.key).expect("HMAC takes keys of any size");
        let max = max_bytes.map(|m| m.to_string()).unwrap_or_default();
        let canonical = format!(
            "v1\n{}\n{object}\n{expires}\n{}\n{max}",
            method.as_str(),
            self.key_id
        );
        mac.update(canonical.as_bytes());
        base64::Engine::encode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            mac.finalize().into_bytes(),
        )
    }
}

struct Query<'a> {
    exp: u64,
    max: Option<u64>,
    kid: &'a str,
    sig: &'a str,
}

/// Exactly the expected parameters, each once, digits where digits belong.
fn parse_query(query: &str, put: bool) -> Result<Query<'_>, Rejection> {
    let (mut exp, mut max, mut kid, mut sig) = (None, None, None, None);
    for pair in query.split('&') {
        let (k, v) = pair.split_once('=').ok_or(Rejection::Malformed)?;
        let slot = match k {
            "exp" => &mut exp,
            "max" => &mut max,
            "kid" => &mut kid,
            "sig" => &mut sig,
            _ => return Err(Rejection::Malformed),
        };
        if slot.replace(v).is_some() {
            return Err(Rejection::Malformed);
        }
    }
    let number = |v: &str| -> Result<u64, Rejection> {
        if v.is_empty() || v.len() > 19 || !v.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Rejection::Malformed);
        }
        v.parse().map_err(|_| Rejection::Malformed)
    };
    let exp = number(exp.ok_or(Rejection::Malformed)?)?;
    let max = match (put, max) {
        (true, Some(m)) => Some(number(m)?),
        (false, None) => None,
        _ => return Err(Rejection::Malformed),
    };
    let kid = kid.ok_or(Rejection::Malformed)?;
    let sig = sig.ok_or(Rejection::Malformed)?;
    Ok(Query { exp, max, kid, sig })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_800_000_000;

    #[test]
    fn share_tokens_are_bound_to_their_directory() {
        let s = Signer::new(b"secret");
        let token = share_token(&s.sign(Method::Share, "dirA", NOW + 60, None));
        let query = share_query(&token).unwrap();
        assert!(s.verify(Method::Share, "dirA", &query, NOW).is_ok());
        assert_eq!(
            s.verify(Method::Share, "dirB", &query, NOW),
            Err(Rejection::BadSignature)
        );
        // Not a download URL of an object named like the directory, nor the other way round.
        assert_eq!(
            s.verify(Method::Get, "dirA", &query, NOW),
            Err(Rejection::BadSignature)
        );
        assert_eq!(
            s.verify(Method::Share, "dirA", &query, NOW + 61),
            Err(Rejection::Expired)
        );
        assert_eq!(share_query("1.2"), Err(Rejection::Malformed));
    }

    #[test]
    fn round_trip_and_tampering() {
        let s = Signer::new(b"secret");
        let put = s.sign(Method::Put, "obj1", NOW + 60, Some(1000));
        let grant = s.verify(Method::Put, "obj1", &put, NOW).unwrap();
        assert_eq!(grant.max_bytes, Some(1000));

        // Each row: a change to a valid URL that must not verify.
        let cases: Vec<(Method, &str, String, Rejection)> = vec![
            (Method::Put, "obj2", put.clone(), Rejection::BadSignature),
            (Method::Get, "obj1", put.clone(), Rejection::Malformed),
            (
                Method::Put,
                "obj1",
                put.replace("max=1000", "max=9999"),
                Rejection::BadSignature,
            ),
            (
                Method::Put,
                "obj1",
                put.replace(&format!("exp={}", NOW + 60), &format!("exp={}", NOW + 600)),
                Rejection::BadSignature,
            ),
            (
                Method::Put,
                "obj1",
                format!("{put}&exp=1"),
                Rejection::Malformed,
            ),
            (
                Method::Put,
                "obj1",
                format!("{put}&x=1"),
                Rejection::Malformed,
            ),
            (
                Method::Put,
                "obj1",
                put.replace("max=1000", "max=+1000"),
                Rejection::Malformed,
            ),
        ];
        for (method, object, query, want) in cases {
            assert_eq!(
                s.verify(method, object, &query, NOW).unwrap_err(),
                want,
                "{query}"
            );
        }
        assert_eq!(
            s.verify(Method::Put, "obj1", &put, NOW + 61).unwrap_err(),
            Rejection::Expired
        );
        let other = Signer::new(b"other");
        assert_eq!(
            other.verify(Method::Put, "obj1", &put, NOW).unwrap_err(),
            Rejection::BadSignature
        );
    }

    #[test]
    fn get_urls_cannot_put() {
        let s = Signer::new(b"k");
        let get = s.sign(Method::Get, "o", NOW + 60, None);
        assert!(s.verify(Method::Get, "o", &get, NOW).is_ok());
        assert!(s.verify(Method::Put, "o", &get, NOW).is_err());
    }
}
