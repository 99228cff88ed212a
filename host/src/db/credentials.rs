//! Tenants' bucket credentials (`credentials.rs`): one record per (account, name), the secret
//! stored only sealed (`seal.rs`). A row read for listing never carries the sealed secret.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Db, DbResult};

/// A credential as listed and shown: everything but the secret.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, salvo::oapi::ToSchema)]
pub struct CredentialRow {
    pub name: String,
    /// `https://host[:port]` of the S3-compatible service (path-style requests).
    pub endpoint: String,
    pub region: String,
    pub bucket: String,
    pub access_key_id: String,
    /// Unix ms.
    pub created_at: i64,
}

/// A stored credential: its row and its sealed secret.
#[derive(Clone, Deserialize)]
pub struct SealedCredential {
    #[serde(flatten)]
    pub row: CredentialRow,
    pub account: String,
    pub sealed_secret: String,
}

fn record(account: &str, name: &str) -> String {
    // Account and credential names hold no '/' (`names.rs`, `credentials.rs`).
    format!("{account}/{name}")
}

const FIELDS: &str = "name, endpoint, region, bucket, access_key_id, created_at";

impl Db {
    /// Stores a new credential; `false` when the account has one of that name.
    pub async fn create_credential(
        &self,
        account: &str,
        row: &CredentialRow,
        sealed_secret: &str,
    ) -> DbResult<bool> {
        let mut content = serde_json::to_value(row).expect("a row serializes");
        content["account"] = json!(account);
        content["sealed_secret"] = json!(sealed_secret);
        match self
            .exec(
                "CREATE type::record('credential', $id) CONTENT $c RETURN NONE",
                json!({ "id": record(account, &row.name), "c": content }),
            )
            .await
        {
            Ok(()) => Ok(true),
            Err(super::DbError::Conflict) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The account's credentials, by name, without secrets.
    pub async fn credentials_of(&self, account: &str) -> DbResult<Vec<CredentialRow>> {
        self.rows(
            &format!("SELECT {FIELDS} FROM credential WHERE account = $a ORDER BY name"),
            json!({ "a": account }),
        )
        .await
    }

    /// One of the account's credentials with its sealed secret; `None` when it has none of
    /// that name (another account's of the same name is never found).
    pub async fn sealed_credential(
        &self,
        account: &str,
        name: &str,
    ) -> DbResult<Option<SealedCredential>> {
        self.first(
            &format!(
                "SELECT {FIELDS}, account, sealed_secret FROM type::record('credential', $id)
                 WHERE account = $a"
            ),
            json!({ "id": record(account, name), "a": account }),
        )
        .await
    }

    /// Removes a credential; `false` when there was none.
    pub async fn delete_credential(&self, account: &str, name: &str) -> DbResult<bool> {
        let gone: Vec<serde_json::Value> = self
            .rows(
                "DELETE type::record('credential', $id) WHERE account = $a RETURN BEFORE",
                json!({ "id": record(account, name), "a": account }),
            )
            .await?;
        Ok(!gone.is_empty())
    }
}
