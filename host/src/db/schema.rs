//! The schema, defined in one place and applied at every start (each statement is idempotent).
//! Tables are schemaless so that adding a field needs no migration; the indexes are what the
//! queries in `db` filter and sort on.

pub const SCHEMA: &str = r#"
DEFINE TABLE IF NOT EXISTS setting SCHEMALESS;
DEFINE TABLE IF NOT EXISTS account SCHEMALESS;
DEFINE TABLE IF NOT EXISTS api_key SCHEMALESS;
DEFINE INDEX IF NOT EXISTS api_key_account ON api_key FIELDS account;
DEFINE INDEX IF NOT EXISTS api_key_id ON api_key FIELDS key_id;
DEFINE TABLE IF NOT EXISTS audit SCHEMALESS;
DEFINE INDEX IF NOT EXISTS audit_at ON audit FIELDS at;
-- Tenants' bucket credentials, secrets sealed (`db/credentials.rs`).
DEFINE TABLE IF NOT EXISTS credential SCHEMALESS;
DEFINE INDEX IF NOT EXISTS credential_account ON credential FIELDS account;

DEFINE TABLE IF NOT EXISTS directory SCHEMALESS;
DEFINE INDEX IF NOT EXISTS directory_account ON directory FIELDS account;
DEFINE INDEX IF NOT EXISTS directory_expiry ON directory FIELDS expires_at;

DEFINE TABLE IF NOT EXISTS file SCHEMALESS;
DEFINE INDEX IF NOT EXISTS file_name_unique ON file FIELDS dir_id, file_name UNIQUE;
DEFINE INDEX IF NOT EXISTS file_state ON file FIELDS state;

DEFINE TABLE IF NOT EXISTS usage SCHEMALESS;
DEFINE INDEX IF NOT EXISTS usage_account_month ON usage FIELDS account, month UNIQUE;

DEFINE TABLE IF NOT EXISTS quota_hold SCHEMALESS;
DEFINE INDEX IF NOT EXISTS quota_hold_account_month ON quota_hold FIELDS account, month;
DEFINE TABLE IF NOT EXISTS throughput SCHEMALESS;
DEFINE TABLE IF NOT EXISTS turn SCHEMALESS;
DEFINE INDEX IF NOT EXISTS turn_account ON turn FIELDS account;

DEFINE TABLE IF NOT EXISTS tus SCHEMALESS;
DEFINE INDEX IF NOT EXISTS tus_expiry ON tus FIELDS expires_at;

DEFINE TABLE IF NOT EXISTS job SCHEMALESS;
DEFINE INDEX IF NOT EXISTS job_account_created ON job FIELDS account, created_at;
DEFINE INDEX IF NOT EXISTS job_status ON job FIELDS status;
DEFINE INDEX IF NOT EXISTS job_status_account ON job FIELDS status, account;
DEFINE INDEX IF NOT EXISTS job_webhook ON job FIELDS webhook.state;
DEFINE INDEX IF NOT EXISTS job_idem ON job FIELDS idem;
-- Segments of split encodes (`db/parts.rs`), claimed like jobs but never listed.
DEFINE TABLE IF NOT EXISTS part SCHEMALESS;
DEFINE INDEX IF NOT EXISTS part_status ON part FIELDS status;
DEFINE INDEX IF NOT EXISTS part_split ON part FIELDS split_id;
-- Each instance's workers that take segments, while it renews the row (`db/parts.rs`).
DEFINE TABLE IF NOT EXISTS taker SCHEMALESS;
-- The result cache: one record per cache key (`db/cache.rs`).
DEFINE TABLE IF NOT EXISTS cache_entry SCHEMALESS;
DEFINE INDEX IF NOT EXISTS cache_entry_used ON cache_entry FIELDS last_used;
DEFINE INDEX IF NOT EXISTS cache_entry_created ON cache_entry FIELDS created_at;
DEFINE TABLE IF NOT EXISTS cache_flight SCHEMALESS;
-- One record per (account, key) hash: the job that holds the key (`Db::create_job`).
DEFINE TABLE IF NOT EXISTS idem SCHEMALESS;
"#;
