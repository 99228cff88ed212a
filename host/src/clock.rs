//! Wall-clock helpers: unix seconds for URLs, RFC 3339 strings for the API.

use time::OffsetDateTime;

pub fn unix_now() -> u64 {
    OffsetDateTime::now_utc().unix_timestamp().max(0) as u64
}

/// RFC 3339 in UTC with exactly three fraction digits (`2026-11-23T22:04:05.340Z`, as
/// JavaScript's `toISOString`): one width for every timestamp, so they also sort as text.
pub fn rfc3339(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
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

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_have_one_width() {
        assert_eq!(super::ms_rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            super::ms_rfc3339(1_795_471_445_340),
            "2026-11-23T22:04:05.340Z"
        );
        assert_eq!(
            super::ms_rfc3339(1_795_471_445_345),
            "2026-11-23T22:04:05.345Z"
        );
    }
}
