//! Wall-clock helpers: unix seconds for URLs, RFC 3339 strings for the API.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

pub fn unix_now() -> u64 {
    OffsetDateTime::now_utc().unix_timestamp().max(0) as u64
}

/// RFC 3339 in UTC with millisecond precision, as the API shows timestamps.
pub fn rfc3339(t: OffsetDateTime) -> String {
    let t = t
        .replace_nanosecond(t.nanosecond() / 1_000_000 * 1_000_000)
        .unwrap_or(t);
    t.to_offset(time::UtcOffset::UTC)
        .format(&Rfc3339)
        .unwrap_or_default()
}

/// `YYYY-MM`, the metering period.
pub fn month_key(t: OffsetDateTime) -> String {
    format!("{:04}-{:02}", t.year(), u8::from(t.month()))
}

pub fn now_ms() -> i64 {
    (OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as i64
}

pub fn ms_rfc3339(ms: i64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000)
        .map(rfc3339)
        .unwrap_or_default()
}
