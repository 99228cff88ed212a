//! Accounts, their API keys and the audit log (`mediaforge accounts|keys|audit`, the operator
//! API). An account comes from the config file (`source: config`, made again at every start, its
//! plan the file's) or from the operator API (`source: api`). A key is stored by its SHA-256
//! (the record id), with a public id, the first characters shown at creation, its scope, expiry
//! and last use; the config's keys are kept exactly as the file lists them, and the API's are
//! never touched by a start. The audit log is append-only.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Account, Db, DbResult};

/// Where an account or a key was made.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, salvo::oapi::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Config,
    Api,
}

/// What a key may do: `read` is directories, files, probes and job views; `full` is all.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, salvo::oapi::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum KeyScope {
    Read,
    Full,
}

#[derive(Debug, Clone, Serialize, Deserialize, salvo::oapi::ToSchema)]
pub struct AccountRow {
    pub name: String,
    pub plan: String,
    pub source: Source,
    /// Unix ms (0 for an account made before this was recorded).
    #[serde(default)]
    pub created_at: i64,
}

/// A key as listed: never its secret, nor its hash. Stored as `key_id` (a record's `id` is its
/// hash).
#[derive(Debug, Clone, Serialize, Deserialize, salvo::oapi::ToSchema)]
pub struct KeyRow {
    /// Public id, for revoking: `key_...`.
    #[serde(alias = "key_id")]
    pub id: String,
    pub account: String,
    /// The key's first characters, to tell keys apart.
    pub prefix: String,
    pub scope: KeyScope,
    pub source: Source,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub last_used_at: Option<i64>,
}

/// One audited action.
#[derive(Debug, Clone, Serialize, Deserialize, salvo::oapi::ToSchema)]
pub struct AuditEntry {
    /// Unix ms.
    pub at: i64,
    /// `operator`, or `<account>/<key id>`.
    pub actor: String,
    /// `account.create`, `account.update`, `key.create`, `key.revoke`, `directory.delete`,
    /// `file.delete`, `job.cancel`.
    pub action: String,
    /// What it was done to: an account, `<account>/<key id>`, a file path, a job id.
    pub subject: String,
    /// The client's address, as the server saw it.
    pub address: String,
}

/// What authenticating a key finds: the key's row (its account is read after).
#[derive(Debug, Clone, Deserialize)]
pub struct KeyFound {
    pub key_id: String,
    pub account: String,
    pub scope: KeyScope,
    pub expires_at: Option<i64>,
    pub last_used_at: Option<i64>,
}

impl Db {
    /// Makes the config file's account exist with its plan and exactly these key hashes among
    /// its config keys (`keys`: hash and the first characters shown); keys made through the
    /// operator API stay. Rows written before keys had a source count as the config's.
    pub async fn provision_account(
        &self,
        account: &Account,
        keys: &[(String, String)],
        now: i64,
    ) -> DbResult<()> {
        let hashes: Vec<&String> = keys.iter().map(|(h, _)| h).collect();
        let rows: Vec<_> = keys
            .iter()
            .map(|(hash, prefix)| {
                json!({
                    "key_hash": hash, "account": account.name, "key_id": format!("key_cfg_{}", &hash[..12]),
                    "prefix": prefix, "scope": KeyScope::Full, "source": Source::Config,
                })
            })
            .collect();
        self.exec(
            "UPSERT type::record('account', $name) MERGE { name: $name, plan: $plan, source: 'config' };
             UPDATE type::record('account', $name) SET created_at = $now WHERE created_at = NONE;
             DELETE api_key WHERE account = $name AND (source = 'config' OR source = NONE) AND key_hash NOTINSIDE $hashes;
             FOR $k IN $rows {
                 UPSERT type::record('api_key', $k.key_hash) MERGE $k;
                 UPDATE type::record('api_key', $k.key_hash) SET created_at = $now WHERE created_at = NONE;
             };",
            json!({ "name": account.name, "plan": account.plan, "hashes": hashes, "rows": rows, "now": now }),
        )
        .await
    }

    pub async fn account(&self, name: &str) -> DbResult<Option<Account>> {
        self.first(
            "SELECT name, plan FROM type::record('account', $n)",
            json!({ "n": name }),
        )
        .await
    }

    pub async fn account_row(&self, name: &str) -> DbResult<Option<AccountRow>> {
        self.first(
            "SELECT name, plan, source ?? 'config' AS source, created_at ?? 0 AS created_at
             FROM type::record('account', $n)",
            json!({ "n": name }),
        )
        .await
    }

    pub async fn accounts(&self) -> DbResult<Vec<AccountRow>> {
        self.rows(
            "SELECT name, plan, source ?? 'config' AS source, created_at ?? 0 AS created_at
             FROM account ORDER BY name",
            json!({}),
        )
        .await
    }

    /// Makes an account through the operator API; `false` when the name is taken.
    pub async fn create_account(&self, row: &AccountRow) -> DbResult<bool> {
        match self
            .exec(
                "CREATE type::record('account', $r.name) CONTENT $r RETURN NONE",
                json!({ "r": row }),
            )
            .await
        {
            Ok(()) => Ok(true),
            Err(super::DbError::Conflict) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Changes an account's plan; `false` when there is no such account.
    pub async fn set_plan(&self, name: &str, plan: &str) -> DbResult<bool> {
        let changed: Vec<serde_json::Value> = self
            .rows(
                "UPDATE type::record('account', $n) SET plan = $p WHERE name = $n RETURN name",
                json!({ "n": name, "p": plan }),
            )
            .await?;
        Ok(!changed.is_empty())
    }

    /// The key of `hash`, when it exists.
    pub async fn key_found(&self, hash: &str) -> DbResult<Option<KeyFound>> {
        self.first(
            "SELECT key_id,
                    account, scope ?? 'full' AS scope, expires_at, last_used_at
             FROM type::record('api_key', $h)",
            json!({ "h": hash }),
        )
        .await
    }

    /// Records a key's use (callers do so at most once a minute per key).
    pub async fn key_used(&self, hash: &str, now: i64) -> DbResult<()> {
        self.exec(
            "UPDATE type::record('api_key', $h) SET last_used_at = $now RETURN NONE",
            json!({ "h": hash, "now": now }),
        )
        .await
    }

    pub async fn create_key(&self, hash: &str, key: &KeyRow) -> DbResult<()> {
        self.exec(
            "CREATE type::record('api_key', $h) CONTENT $k RETURN NONE",
            json!({ "h": hash, "k": { "key_hash": hash, "key_id": key.id, "account": key.account,
                "prefix": key.prefix, "scope": key.scope, "source": key.source,
                "created_at": key.created_at, "expires_at": key.expires_at } }),
        )
        .await
    }

    pub async fn keys(&self, account: &str) -> DbResult<Vec<KeyRow>> {
        self.rows(
            "SELECT key_id,
                    account, prefix ?? '' AS prefix, scope ?? 'full' AS scope,
                    source ?? 'config' AS source, created_at ?? 0 AS created_at,
                    expires_at, last_used_at
             FROM api_key WHERE account = $a ORDER BY created_at",
            json!({ "a": account }),
        )
        .await
    }

    /// Deletes the key with public id `id`; returns it, or `None` when there is none.
    pub async fn revoke_key(&self, id: &str) -> DbResult<Option<KeyRow>> {
        self.first(
            "LET $k = (SELECT key_id, account, prefix ?? '' AS prefix, scope ?? 'full' AS scope,
                    source ?? 'config' AS source, created_at ?? 0 AS created_at,
                    expires_at, last_used_at
                FROM api_key WHERE key_id = $id);
             DELETE api_key WHERE key_id = $id;
             RETURN $k;",
            json!({ "id": id }),
        )
        .await
    }

    pub async fn audit(&self, entry: &AuditEntry) -> DbResult<()> {
        self.exec("CREATE audit CONTENT $e RETURN NONE", json!({ "e": entry }))
            .await
    }

    /// The newest entries first, optionally those naming `account` as actor or subject.
    pub async fn audit_log(&self, account: Option<&str>, limit: u32) -> DbResult<Vec<AuditEntry>> {
        self.rows(
            "SELECT * OMIT id FROM audit
             WHERE $a = NONE OR actor = $a OR string::starts_with(actor, string::concat($a, '/'))
                OR subject = $a OR string::starts_with(subject, string::concat($a, '/'))
             ORDER BY at DESC LIMIT $l",
            json!({ "a": account, "l": limit }),
        )
        .await
    }
}
