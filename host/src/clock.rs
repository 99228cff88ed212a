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

/// A chore a loop does at most once per `period` however often it turns (the first turn
/// does it): lease look-ups and store listings that an idle instance must not repeat.
pub struct Every {
    period: std::time::Duration,
    last: Option<std::time::Instant>,
}

impl Every {
    pub fn new(period: std::time::Duration) -> Every {
        Every { period, last: None }
    }

    /// Whether the chore is due now; if so, the period starts again.
    pub fn due(&mut self) -> bool {
        let due = self.last.is_none_or(|at| at.elapsed() >= self.period);
        if due {
            self.last = Some(std::time::Instant::now());
        }
        due
    }
}

pub fn ms_rfc3339(ms: i64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000)
        .map(rfc3339)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_chore_is_due_at_first_then_once_per_period() {
        let mut every = super::Every::new(std::time::Duration::from_millis(30));
        assert!(every.due());
        assert!(!every.due());
        std::thread::sleep(std::time::Duration::from_millis(35));
        assert!(every.due());
        assert!(!every.due());
    }

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
