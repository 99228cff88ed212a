//! Numbers, units and times in the forms people write them: "two", "2.5s", "1:30",
//! "90 seconds", "1 min 30 s", "720p", "50%", "2x", "16 kHz", "128k", "5 MB", "1280x720".
//!
//! The tables say which unit word gives which kind of value; the tokenizer (`tokens.rs`)
//! uses them for units written both attached ("30fps") and apart ("30 fps").

/// A number with its meaning, as found in the instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A bare number: "2", "two", "0.5".
    Num(f64),
    /// A duration or point in time, in seconds: "2.5s", "90 seconds", "1 min".
    Time(f64),
    /// `a:b` or `a:b:c`: a clock time ("1:30", "00:00:02") or an aspect ratio ("16:9").
    Clock(Vec<f64>),
    Pct(f64),
    /// A factor: "2x", "twice", "half", "3 times".
    Mult(f64),
    /// Frames per second.
    Rate(f64),
    Hz(f64),
    /// Bits per second.
    Bitrate(f64),
    Bytes(f64),
    Dim(u32, u32),
    /// A named picture height: "720p", "4k".
    Res(u32),
    Px(f64),
    Deg(f64),
    Db(f64),
    Lufs(f64),
    /// A count of frames: "10 frames", "one frame".
    Frames(f64),
    /// An ordinal written with digits: "10th".
    Ord(f64),
}

impl Value {
    /// Seconds, when the value can stand for a time ("1:30", "5s"); aspect-ratio-looking
    /// clocks still count, since the grammar decides which reading applies.
    pub fn seconds(&self) -> Option<f64> {
        match self {
            Value::Time(s) => Some(*s),
            Value::Clock(parts) => Some(parts.iter().fold(0.0, |acc, p| acc * 60.0 + p)),
            _ => None,
        }
    }
}

/// What a unit word turns a number into.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unit {
    Time(f64),
    Rate,
    Hz(f64),
    Bitrate(f64),
    Bytes(f64),
    Px,
    Pct,
    Mult,
    Deg,
    Db,
    Lufs,
    Frames,
    /// `p` after a height ("720p"); small numbers ("30p") are frame rates.
    Res,
    /// `k` after a number: resolution for 2k/4k/8k, otherwise kbit/s.
    K,
}

/// Unit spellings, longest first where one is a prefix of another. Multi-word units are
/// written with spaces; the tokenizer matches them word by word.
pub const UNITS: &[(&str, Unit)] = &[
    ("frames per second", Unit::Rate),
    ("frame per second", Unit::Rate),
    ("frames a second", Unit::Rate),
    ("frames each second", Unit::Rate),
    ("fps", Unit::Rate),
    ("ms", Unit::Time(0.001)),
    ("msec", Unit::Time(0.001)),
    ("millisecond", Unit::Time(0.001)),
    ("milliseconds", Unit::Time(0.001)),
    ("s", Unit::Time(1.0)),
    ("sec", Unit::Time(1.0)),
    ("secs", Unit::Time(1.0)),
    ("second", Unit::Time(1.0)),
    ("seconds", Unit::Time(1.0)),
    ("m", Unit::Time(60.0)),
    ("min", Unit::Time(60.0)),
    ("mins", Unit::Time(60.0)),
    ("minute", Unit::Time(60.0)),
    ("minutes", Unit::Time(60.0)),
    ("h", Unit::Time(3600.0)),
    ("hr", Unit::Time(3600.0)),
    ("hrs", Unit::Time(3600.0)),
    ("hour", Unit::Time(3600.0)),
    ("hours", Unit::Time(3600.0)),
    ("hz", Unit::Hz(1.0)),
    ("hertz", Unit::Hz(1.0)),
    ("khz", Unit::Hz(1000.0)),
    ("kilohertz", Unit::Hz(1000.0)),
    ("bps", Unit::Bitrate(1.0)),
    ("kbps", Unit::Bitrate(1e3)),
    ("kbit", Unit::Bitrate(1e3)),
    ("kbits", Unit::Bitrate(1e3)),
    ("kilobits", Unit::Bitrate(1e3)),
    ("mbps", Unit::Bitrate(1e6)),
    ("mbit", Unit::Bitrate(1e6)),
    ("mbits", Unit::Bitrate(1e6)),
    ("megabits", Unit::Bitrate(1e6)),
    ("k", Unit::K),
    ("b", Unit::Bytes(1.0)),
    ("bytes", Unit::Bytes(1.0)),
    ("kb", Unit::Bytes(1e3)),
    ("kilobytes", Unit::Bytes(1e3)),
    ("mb", Unit::Bytes(1e6)),
    ("meg", Unit::Bytes(1e6)),
    ("megs", Unit::Bytes(1e6)),
    ("megabyte", Unit::Bytes(1e6)),
    ("megabytes", Unit::Bytes(1e6)),
    ("gb", Unit::Bytes(1e9)),
    ("gigabyte", Unit::Bytes(1e9)),
    ("gigabytes", Unit::Bytes(1e9)),
    ("px", Unit::Px),
    ("pixel", Unit::Px),
    ("pixels", Unit::Px),
    ("pct", Unit::Pct),
    ("percent", Unit::Pct),
    ("per cent", Unit::Pct),
    ("%", Unit::Pct),
    ("x", Unit::Mult),
    ("times", Unit::Mult),
    ("fold", Unit::Mult),
    ("°", Unit::Deg),
    ("deg", Unit::Deg),
    ("degree", Unit::Deg),
    ("degrees", Unit::Deg),
    ("db", Unit::Db),
    ("decibel", Unit::Db),
    ("decibels", Unit::Db),
    ("lufs", Unit::Lufs),
    ("lkfs", Unit::Lufs),
    ("frame", Unit::Frames),
    ("frames", Unit::Frames),
    ("p", Unit::Res),
];

/// Number words; "twenty five" and "one hundred" are combined by the tokenizer.
pub const NUMBER_WORDS: &[(&str, f64)] = &[
    ("zero", 0.0),
    ("one", 1.0),
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("eleven", 11.0),
    ("twelve", 12.0),
    ("thirteen", 13.0),
    ("fourteen", 14.0),
    ("fifteen", 15.0),
    ("sixteen", 16.0),
    ("seventeen", 17.0),
    ("eighteen", 18.0),
    ("nineteen", 19.0),
    ("twenty", 20.0),
    ("thirty", 30.0),
    ("forty", 40.0),
    ("fifty", 50.0),
    ("sixty", 60.0),
    ("seventy", 70.0),
    ("eighty", 80.0),
    ("ninety", 90.0),
    ("hundred", 100.0),
    ("dozen", 12.0),
];

/// Words that are factors on their own: "half speed", "twice as loud", "double the size".
pub const FACTOR_WORDS: &[(&str, f64)] = &[
    ("half", 0.5),
    ("halved", 0.5),
    ("quarter", 0.25),
    ("double", 2.0),
    ("doubled", 2.0),
    ("twice", 2.0),
    ("triple", 3.0),
    ("tripled", 3.0),
    ("thrice", 3.0),
    ("quadruple", 4.0),
];

/// Heights that "480" alone means in a resize ("resize to 480").
pub const STANDARD_HEIGHTS: &[u32] = &[144, 240, 360, 480, 540, 576, 720, 1080, 1440, 2160, 4320];

pub fn unit(word: &str) -> Option<Unit> {
    UNITS.iter().find(|(w, _)| *w == word).map(|(_, u)| *u)
}

pub fn number_word(word: &str) -> Option<f64> {
    NUMBER_WORDS
        .iter()
        .find(|(w, _)| *w == word)
        .map(|(_, n)| *n)
}

pub fn factor_word(word: &str) -> Option<f64> {
    FACTOR_WORDS
        .iter()
        .find(|(w, _)| *w == word)
        .map(|(_, n)| *n)
}

/// Applies a unit to a number.
pub fn with_unit(n: f64, unit: Unit) -> Value {
    match unit {
        Unit::Time(k) => Value::Time(n * k),
        Unit::Rate => Value::Rate(n),
        Unit::Hz(k) => Value::Hz(n * k),
        Unit::Bitrate(k) => Value::Bitrate(n * k),
        Unit::Bytes(k) => Value::Bytes(n * k),
        Unit::Px => Value::Px(n),
        Unit::Pct => Value::Pct(n),
        Unit::Mult => Value::Mult(n),
        Unit::Deg => Value::Deg(n),
        Unit::Db => Value::Db(n),
        Unit::Lufs => Value::Lufs(n),
        Unit::Frames => Value::Frames(n),
        Unit::Res if n >= 144.0 => Value::Res(n as u32),
        Unit::Res => Value::Rate(n),
        Unit::K if n == 2.0 => Value::Res(1440),
        Unit::K if n == 4.0 => Value::Res(2160),
        Unit::K if n == 8.0 => Value::Res(4320),
        Unit::K => Value::Bitrate(n * 1e3),
    }
}

/// A plain decimal: "2", "2.5", "-14", ".5".
pub fn parse_decimal(s: &str) -> Option<f64> {
    let body = s.strip_prefix('-').unwrap_or(s);
    let ok = !body.is_empty()
        && body.chars().all(|c| c.is_ascii_digit() || c == '.')
        && body.chars().filter(|c| *c == '.').count() <= 1
        && body.chars().any(|c| c.is_ascii_digit());
    if ok { s.parse().ok() } else { None }
}

/// `1:30`, `00:00:02`, `1:02:03.5`, `16:9`.
pub fn parse_clock(s: &str) -> Option<Vec<f64>> {
    if !s.contains(':') {
        return None;
    }
    let parts: Option<Vec<f64>> = s.split(':').map(parse_decimal).collect();
    parts.filter(|p| p.len() <= 3 && p.iter().all(|n| *n >= 0.0))
}

/// `1280x720`, `1280×720`, `1280*720`.
pub fn parse_dim(s: &str) -> Option<(u32, u32)> {
    let (w, h) = s.split_once(['x', '*', '×'])?;
    let all_digits = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit());
    if all_digits(w) && all_digits(h) {
        Some((w.parse().ok()?, h.parse().ok()?))
    } else {
        None
    }
}

/// A number with units attached: "2.5s", "30fps", "720p", "1m30s", "-14lufs", "10th", "1/2".
/// Returns `None` when the piece is not entirely a number with known units.
pub fn parse_attached(s: &str) -> Option<Value> {
    if let Some(parts) = parse_clock(s) {
        return Some(Value::Clock(parts));
    }
    if let Some((w, h)) = parse_dim(s) {
        return Some(Value::Dim(w, h));
    }
    if let Some(rest) = s.strip_prefix(['x', '×']) {
        return parse_decimal(rest).map(Value::Mult);
    }
    if let Some((a, b)) = s.split_once('/') {
        // A fraction: "1/2".
        return Some(Value::Num(
            parse_decimal(a)? / parse_decimal(b).filter(|d| *d != 0.0)?,
        ));
    }
    for suffix in ["st", "nd", "rd", "th"] {
        if let Some(n) = s.strip_suffix(suffix).and_then(parse_decimal) {
            return Some(Value::Ord(n));
        }
    }
    // One or more number+unit groups; several groups only for times ("1m30s", "1h2m").
    let mut rest = s;
    let mut total: Option<Value> = None;
    while !rest.is_empty() {
        let split = rest
            .char_indices()
            .find(|(i, c)| !(c.is_ascii_digit() || *c == '.' || (*i == 0 && *c == '-')))
            .map(|(i, _)| i)
            .unwrap_or(rest.len());
        let n = parse_decimal(&rest[..split])?;
        rest = &rest[split..];
        let unit_end = rest
            .char_indices()
            .find(|(_, c)| c.is_ascii_digit())
            .map(|(i, _)| i)
            .unwrap_or(rest.len());
        let word = &rest[..unit_end];
        rest = &rest[unit_end..];
        let value = if word.is_empty() {
            Value::Num(n)
        } else {
            with_unit(n, unit(word)?)
        };
        total = Some(match (total, value) {
            (None, v) => v,
            (Some(Value::Time(a)), Value::Time(b)) => Value::Time(a + b),
            // "1m30" : a trailing bare number after minutes is seconds.
            (Some(Value::Time(a)), Value::Num(b)) if a >= 60.0 => Value::Time(a + b),
            _ => return None,
        });
    }
    total
}

/// Formats a number for ffmpeg: no trailing zeros, at most 3 decimals.
pub fn fmt_num(n: f64) -> String {
    let s = format!("{:.3}", n);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attached_units() {
        assert_eq!(parse_attached("2.5s"), Some(Value::Time(2.5)));
        assert_eq!(parse_attached("1m30s"), Some(Value::Time(90.0)));
        assert_eq!(parse_attached("1h2m"), Some(Value::Time(3720.0)));
        assert_eq!(parse_attached("30fps"), Some(Value::Rate(30.0)));
        assert_eq!(parse_attached("720p"), Some(Value::Res(720)));
        assert_eq!(parse_attached("24p"), Some(Value::Rate(24.0)));
        assert_eq!(parse_attached("4k"), Some(Value::Res(2160)));
        assert_eq!(parse_attached("128k"), Some(Value::Bitrate(128e3)));
        assert_eq!(parse_attached("16khz"), Some(Value::Hz(16000.0)));
        assert_eq!(parse_attached("5mb"), Some(Value::Bytes(5e6)));
        assert_eq!(parse_attached("2mbps"), Some(Value::Bitrate(2e6)));
        assert_eq!(parse_attached("50%"), Some(Value::Pct(50.0)));
        assert_eq!(parse_attached("2x"), Some(Value::Mult(2.0)));
        assert_eq!(parse_attached("x1.5"), Some(Value::Mult(1.5)));
        assert_eq!(parse_attached("-14lufs"), Some(Value::Lufs(-14.0)));
        assert_eq!(parse_attached("90°"), Some(Value::Deg(90.0)));
        assert_eq!(parse_attached("10th"), Some(Value::Ord(10.0)));
        assert_eq!(parse_attached("1/2"), Some(Value::Num(0.5)));
        assert_eq!(parse_attached("1280x720"), Some(Value::Dim(1280, 720)));
        assert_eq!(parse_attached("abc"), None);
        assert_eq!(parse_attached("3d"), None);
    }

    #[test]
    fn clocks() {
        assert_eq!(
            Value::Clock(parse_clock("1:30").unwrap()).seconds(),
            Some(90.0)
        );
        assert_eq!(
            Value::Clock(parse_clock("00:00:02").unwrap()).seconds(),
            Some(2.0)
        );
        assert_eq!(
            Value::Clock(parse_clock("1:02:03.5").unwrap()).seconds(),
            Some(3723.5)
        );
        assert_eq!(parse_clock("a:b"), None);
    }

    #[test]
    fn formatting() {
        assert_eq!(fmt_num(2.0), "2");
        assert_eq!(fmt_num(2.5), "2.5");
        assert_eq!(fmt_num(1.0 / 3.0), "0.333");
    }
}
