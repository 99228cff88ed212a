//! Syntax checks for single values: ffmpeg's time, rate and size syntaxes, stream specifiers,
//! maps, output names. Each returns `Err(reason)` with a phrase that completes
//! "Invalid value ...: <reason>".

use crate::policy::{RATE_NAMES, SIZE_NAMES};

/// Parses ffmpeg's duration syntax (`av_parse_time` with `duration = 1`):
/// `[-][HH:]MM:SS[.m...]` or `[-]S+[.m...][s|ms|us]`. Returns seconds.
pub fn parse_duration(s: &str) -> Option<f64> {
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    // Split off the fraction and the unit suffix first.
    let (main, rest) = match body.find(['.', 'm', 'u', 's']) {
        Some(i) => body.split_at(i),
        None => (body, ""),
    };
    let mut seconds: f64 = if main.contains(':') {
        let parts: Vec<&str> = main.split(':').collect();
        let two = |t: &str| digits(t) && t.len() <= 2 && t.parse::<u32>().is_ok_and(|v| v < 60);
        match parts.as_slice() {
            [h, mm, ss] if digits(h) && two(mm) && two(ss) => {
                h.parse::<f64>().ok()? * 3600.0
                    + mm.parse::<f64>().ok()? * 60.0
                    + ss.parse::<f64>().ok()?
            }
            [mm, ss] if two(mm) && two(ss) => {
                mm.parse::<f64>().ok()? * 60.0 + ss.parse::<f64>().ok()?
            }
            _ => return None,
        }
    } else if digits(main) {
        main.parse().ok()?
    } else {
        return None;
    };
    let mut rest = rest;
    if let Some(frac) = rest.strip_prefix('.') {
        let end = frac
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(frac.len());
        if end > 0 {
            seconds += format!("0.{}", &frac[..end]).parse::<f64>().ok()?;
        }
        rest = &frac[end..];
    }
    let has_colon = main.contains(':');
    let seconds = match rest {
        "" => seconds,
        "s" if !has_colon => seconds,
        "ms" if !has_colon => seconds / 1000.0,
        "us" if !has_colon => seconds / 1_000_000.0,
        _ => return None,
    };
    Some(if negative { -seconds } else { seconds })
}

pub fn check_duration(s: &str, signed: bool) -> Result<f64, String> {
    match parse_duration(s) {
        Some(d) if d < 0.0 && !signed => Err("must not be negative".into()),
        Some(d) => Ok(d),
        None => Err("expected a time such as 10, 2.5, 90s, 500ms or 00:01:30".into()),
    }
}

/// A plain decimal number (no exponent, no hex): what tenants write for numeric options.
pub fn parse_number(s: &str) -> Option<f64> {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let ok = !body.is_empty()
        && !body.starts_with('.')
        && body.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && body.bytes().filter(|&b| b == b'.').count() <= 1;
    if ok { s.parse().ok() } else { None }
}

pub fn parse_int(s: &str) -> Option<i64> {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    if !body.is_empty() && body.len() <= 18 && body.bytes().all(|b| b.is_ascii_digit()) {
        s.parse().ok()
    } else {
        None
    }
}

pub fn check_int(s: &str, min: i64, max: i64) -> Result<i64, String> {
    match parse_int(s) {
        Some(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(format!("expected a whole number from {min} to {max}")),
    }
}

pub fn check_number(s: &str, min: f64, max: f64) -> Result<f64, String> {
    match parse_number(s) {
        Some(v) if v >= min && v <= max => Ok(v),
        _ => Err(format!("expected a number from {min} to {max}")),
    }
}

/// `128k`, `2.5M`, `5000000`: a decimal number with an optional `k`, `K`, `M` or `G`.
pub fn check_bitrate(s: &str) -> Result<(), String> {
    let body = s.strip_suffix(['k', 'K', 'M', 'G']).unwrap_or(s);
    match parse_number(body) {
        Some(v) if v >= 0.0 => Ok(()),
        _ => Err("expected an amount such as 128k, 2.5M or 5000000".into()),
    }
}

/// A frame rate (`25`, `29.97`, `30000/1001`, `ntsc`). Returns frames per second.
pub fn parse_rate(s: &str) -> Option<f64> {
    if let Some((_, v)) = RATE_NAMES.iter().find(|(n, _)| *n == s) {
        return Some(*v);
    }
    let v = match s.split_once(['/', ':']) {
        Some((n, d)) => {
            let (n, d) = (parse_number(n)?, parse_number(d)?);
            if d == 0.0 {
                return None;
            }
            n / d
        }
        None => parse_number(s)?,
    };
    (v > 0.0).then_some(v)
}

pub fn check_rate(s: &str, max: f64) -> Result<f64, String> {
    match parse_rate(s) {
        Some(v) if v <= max => Ok(v),
        Some(_) => Err(format!("frame rates above {max} are not allowed")),
        None => Err("expected a frame rate such as 25, 29.97, 30000/1001 or ntsc".into()),
    }
}

/// A frame size (`1280x720` or a name such as `hd720`).
pub fn parse_size(s: &str) -> Option<(u64, u64)> {
    if let Some((_, w, h)) = SIZE_NAMES.iter().find(|(n, _, _)| *n == s) {
        return Some((u64::from(*w), u64::from(*h)));
    }
    let (w, h) = s.split_once('x')?;
    let ok = |t: &str| !t.is_empty() && t.len() <= 9 && t.bytes().all(|b| b.is_ascii_digit());
    if ok(w) && ok(h) {
        Some((w.parse().ok()?, h.parse().ok()?))
    } else {
        None
    }
}

pub fn check_size(s: &str, max: u32) -> Result<(), String> {
    match parse_size(s) {
        Some((w, h)) if w == 0 || h == 0 => Err("width and height must be positive".into()),
        Some((w, h)) if w > u64::from(max) || h > u64::from(max) => Err(format!(
            "{w}x{h} is larger than the limit of {max} pixels per side"
        )),
        Some(_) => Ok(()),
        None => Err("expected a size such as 1280x720 or hd720".into()),
    }
}

pub fn check_aspect(s: &str) -> Result<(), String> {
    let ok = match s.split_once([':', '/']) {
        Some((a, b)) => {
            parse_number(a).is_some_and(|v| v > 0.0) && parse_number(b).is_some_and(|v| v > 0.0)
        }
        None => parse_number(s).is_some_and(|v| v > 0.0),
    };
    if ok {
        Ok(())
    } else {
        Err("expected an aspect ratio such as 16:9 or 1.7778".into())
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// An identifier-like value: presets, profiles, pixel formats, levels (`-2`, `4.1`, `+yuv420p`).
pub fn check_name(s: &str) -> Result<(), String> {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let ok = !body.is_empty()
        && s.len() <= 64
        && body.starts_with(|c: char| c.is_ascii_alphanumeric())
        && body
            .chars()
            .all(|c| is_word_char(c) || matches!(c, '.' | '-' | '+'));
    if ok {
        Ok(())
    } else {
        Err("expected a name made of letters, digits and _ . - +".into())
    }
}

pub fn check_codec(s: &str) -> Result<(), String> {
    let ok = !s.is_empty()
        && s.len() <= 64
        && s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.chars().all(|c| is_word_char(c) || c == '-');
    if ok {
        Ok(())
    } else {
        Err("expected a codec name such as libx264, aac or copy".into())
    }
}

/// Values of options an operator allowed through the config: no paths, no quoting.
pub fn check_plain(s: &str) -> Result<(), String> {
    let ok = !s.is_empty()
        && s.len() <= 256
        && s.chars()
            .all(|c| is_word_char(c) || matches!(c, '.' | '+' | ':' | '=' | ',' | '-'));
    if ok {
        Ok(())
    } else {
        Err("expected letters, digits and _ . + : = , -".into())
    }
}

pub fn check_channel_layout(s: &str) -> Result<(), String> {
    let ok = !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| is_word_char(c) || matches!(c, '.' | '+' | '|' | '(' | ')'));
    if ok {
        Ok(())
    } else {
        Err("expected a channel layout such as stereo, 5.1 or FL+FR".into())
    }
}

/// Free text: any characters but control characters, bounded.
pub fn check_text(s: &str) -> Result<(), String> {
    if s.len() > 4096 {
        Err("is longer than 4096 bytes".into())
    } else if s.chars().any(char::is_control) {
        Err("contains control characters".into())
    } else {
        Ok(())
    }
}

/// `[+-]?flag([+-]flag)*` with every flag from `allowed`, or `0`.
pub fn check_flags(s: &str, allowed: &[&str]) -> Result<(), String> {
    if s == "0" {
        return Ok(());
    }
    let mut names = Vec::new();
    let mut current = String::new();
    for c in s.chars() {
        if c == '+' || c == '-' {
            if !current.is_empty() {
                names.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        names.push(current);
    }
    if names.is_empty() {
        return Err("expected flags such as +faststart".into());
    }
    match names.iter().find(|n| !allowed.contains(&n.as_str())) {
        Some(bad) => Err(format!(
            "flag '{}' is not allowed (allowed: {})",
            crate::show(bad),
            allowed.join(", ")
        )),
        None => Ok(()),
    }
}

/// ffmpeg's stream specifier (`match_stream_specifier` in libavformat): a sequence of
/// `v|a|s|d|t|V` and `p:N`, each followed by `:` unless last, optionally ending in an index,
/// `#id`/`i:id`, `m:key[:value]` or `u`.
pub fn check_stream_spec(spec: &str) -> Result<(), String> {
    let err = || {
        Err(format!(
            "'{}' is not a stream specifier such as v, a:0, s:1 or p:1:v",
            crate::show(spec)
        ))
    };
    if spec.is_empty() || spec.len() > 128 {
        return err();
    }
    let number = |t: &str| !t.is_empty() && t.len() <= 9 && t.bytes().all(|b| b.is_ascii_digit());
    let meta_word =
        |t: &str| !t.is_empty() && t.chars().all(|c| is_word_char(c) || matches!(c, '.' | '-'));
    let mut rest = spec;
    while !rest.is_empty() {
        let first = rest.as_bytes()[0];
        if first.is_ascii_digit() {
            return if number(rest) { Ok(()) } else { err() };
        } else if matches!(first, b'v' | b'a' | b's' | b'd' | b't' | b'V') {
            rest = &rest[1..];
            if rest.is_empty() {
                return Ok(());
            }
            match rest.strip_prefix(':') {
                Some(r) if !r.is_empty() => rest = r,
                _ => return err(),
            }
        } else if let Some(r) = rest.strip_prefix("p:") {
            let (id, tail) = r.split_once(':').unwrap_or((r, ""));
            if !number(id) {
                return err();
            }
            if tail.is_empty() {
                return if r.ends_with(':') { err() } else { Ok(()) };
            }
            rest = tail;
        } else if let Some(id) = rest.strip_prefix('#').or_else(|| rest.strip_prefix("i:")) {
            let hex = id
                .strip_prefix("0x")
                .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()));
            return if number(id) || hex { Ok(()) } else { err() };
        } else if let Some(kv) = rest.strip_prefix("m:") {
            let (key, value) = kv.split_once(':').unwrap_or((kv, "x"));
            return if meta_word(key) && meta_word(value) {
                Ok(())
            } else {
                err()
            };
        } else if rest == "u" {
            return Ok(());
        } else {
            return err();
        }
    }
    err()
}

/// A metadata specifier (`-metadata:s:a:0`, `-map_metadata 0:g`): `g`, `s[:stream]`, `c:N`,
/// `p:N`.
pub fn check_metadata_spec(spec: &str) -> Result<(), String> {
    let number = |t: &str| !t.is_empty() && t.len() <= 9 && t.bytes().all(|b| b.is_ascii_digit());
    let ok = match spec {
        "g" | "s" => true,
        _ => {
            if let Some(stream) = spec.strip_prefix("s:") {
                return check_stream_spec(stream);
            }
            spec.strip_prefix("c:")
                .or_else(|| spec.strip_prefix("p:"))
                .is_some_and(number)
        }
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "'{}' is not a metadata specifier such as g, s:a:0, c:0 or p:0",
            crate::show(spec)
        ))
    }
}

/// Where a `-map` value points.
#[derive(Debug, PartialEq, Eq)]
pub enum MapTarget {
    Input(usize),
    Label(String),
}

/// `[-]N[:stream_spec][?]` or `[label]`.
pub fn check_map(value: &str, inputs: usize) -> Result<MapTarget, String> {
    if let Some(inner) = value.strip_prefix('[') {
        let label = inner
            .strip_suffix(']')
            .ok_or("a link label must end with ']'")?;
        check_label(label)?;
        return Ok(MapTarget::Label(label.to_string()));
    }
    let body = value.strip_prefix('-').unwrap_or(value);
    let body = body.strip_suffix('?').unwrap_or(body);
    let (index, spec) = match body.split_once(':') {
        Some((i, s)) => (i, Some(s)),
        None => (body, None),
    };
    let index = match index.parse::<usize>() {
        Ok(i) if index.bytes().all(|b| b.is_ascii_digit()) => i,
        _ => {
            return Err(
                "expected a stream mapping such as 0:v, 1:a:0, 0:s?, -0:d or [label]".into(),
            );
        }
    };
    if index >= inputs {
        return Err(format!(
            "input {index} does not exist (the task has {inputs} input{})",
            if inputs == 1 { "" } else { "s" }
        ));
    }
    if let Some(spec) = spec {
        check_stream_spec(spec)?;
    }
    Ok(MapTarget::Input(index))
}

/// A filter graph link label: letters, digits and `_ . : -`.
pub fn check_label(label: &str) -> Result<(), String> {
    let ok = !label.is_empty()
        && label.len() <= 128
        && label
            .chars()
            .all(|c| is_word_char(c) || matches!(c, '.' | ':' | '-'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "'{}' is not a valid link label (letters, digits, _ . : -)",
            crate::show(label)
        ))
    }
}

/// Bidirectional-text controls, which make a name display differently from what it is.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// An output file name: a plain name (1–255 bytes, no `/`, `\`, `..`, leading `-`, control or
/// bidi characters), optionally with one numbering pattern `%d` / `%0Nd`; `%%` is a literal `%`.
pub fn check_output_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("is empty".into());
    }
    if name.len() > 255 {
        return Err("is longer than 255 bytes".into());
    }
    if name.contains('/') || name.contains('\\') {
        return Err("must be a plain file name without '/' or '\\'".into());
    }
    if name.contains("..") {
        return Err("must not contain '..'".into());
    }
    if name == "." {
        return Err("must be a file name".into());
    }
    if name.starts_with('-') {
        return Err("must not start with '-'".into());
    }
    if name.chars().any(|c| c.is_control() || is_bidi_control(c)) {
        return Err("must not contain control or bidirectional-text characters".into());
    }
    if name.contains("@{") {
        return Err("must not contain '@{' (placeholders name inputs, not outputs)".into());
    }
    let mut patterns = 0;
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            continue;
        }
        let mut width = String::new();
        while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            width.push(*d);
            chars.next();
        }
        let width_ok =
            width.is_empty() || (width.starts_with('0') && (2..=3).contains(&width.len()));
        if chars.next() != Some('d') || !width_ok {
            return Err(
                "may only use %d or %0Nd (such as %03d) as a numbering pattern, and %% for '%'"
                    .into(),
            );
        }
        patterns += 1;
    }
    if patterns > 1 {
        return Err("may contain only one numbering pattern".into());
    }
    Ok(())
}

/// Whether the name holds a numbering pattern.
pub fn has_pattern(name: &str) -> bool {
    name.replace("%%", "").contains('%')
}

/// The extension of a name, if any.
pub fn extension(name: &str) -> Option<&str> {
    name.rsplit_once('.')
        .map(|(_, ext)| ext)
        .filter(|e| !e.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let cases: &[(&str, Option<f64>)] = &[
            ("10", Some(10.0)),
            ("2.5", Some(2.5)),
            ("90s", Some(90.0)),
            ("500ms", Some(0.5)),
            ("250us", Some(0.00025)),
            ("00:01:30", Some(90.0)),
            ("01:30.5", Some(90.5)),
            ("100:00:00", Some(360000.0)),
            ("-5", Some(-5.0)),
            ("1:60", None),
            (".5", None),
            ("", None),
            ("5m", None),
            ("00:01:30s", None),
            ("1e3", None),
            ("abc", None),
        ];
        for (input, want) in cases {
            assert_eq!(parse_duration(input), *want, "{input}");
        }
    }

    #[test]
    fn stream_specs() {
        for ok in [
            "v",
            "a:0",
            "v:0",
            "s:1",
            "0",
            "p:1:v",
            "p:1",
            "#0x101",
            "i:3",
            "m:language:eng",
            "m:title",
            "u",
            "V",
            "d:2",
            "p:1:a:0",
        ] {
            assert!(check_stream_spec(ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "x", "v:", "v0", "a:-1", "p:", "p:x", "0:", "m:", "#", "v:a:0x", "../", "a b",
        ] {
            assert!(check_stream_spec(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn maps() {
        assert_eq!(check_map("0:v", 1), Ok(MapTarget::Input(0)));
        assert_eq!(check_map("1:a?", 2), Ok(MapTarget::Input(1)));
        assert_eq!(check_map("-0:s", 1), Ok(MapTarget::Input(0)));
        assert_eq!(check_map("[outv]", 1), Ok(MapTarget::Label("outv".into())));
        assert!(check_map("1:a", 1).unwrap_err().contains("does not exist"));
        for bad in ["", "x", "0:q", "[a", "[a b]", "0:v,1:v", "/etc/passwd"] {
            assert!(check_map(bad, 2).is_err(), "{bad}");
        }
    }

    #[test]
    fn output_names() {
        for ok in [
            "out.mp4",
            "frame_%03d.png",
            "seg%d.ts",
            "100%%.mp4",
            "résumé vidéo.mkv",
        ] {
            assert!(check_output_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "a/b.mp4",
            "../x",
            "..",
            ".",
            "-y.mp4",
            "a\nb",
            "%s.png",
            "%x",
            "%3d.png",
            "%d_%d.png",
            "a\u{202E}4pm.exe",
            &"a".repeat(256),
            "@{in.mp4}",
        ] {
            assert!(check_output_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn sizes_rates_flags() {
        assert!(check_size("1280x720", 8192).is_ok());
        assert!(check_size("hd1080", 8192).is_ok());
        assert!(
            check_size("100000x100000", 8192)
                .unwrap_err()
                .contains("limit")
        );
        assert!(check_size("0x10", 8192).is_err());
        assert_eq!(
            parse_rate("30000/1001").map(|r| (r * 100.0).round()),
            Some(2997.0)
        );
        assert!(check_rate("1/2", 1000.0).is_ok());
        assert!(check_rate("100000", 1000.0).is_err());
        assert!(check_flags("+faststart", &["faststart"]).is_ok());
        assert!(check_flags("frag_keyframe+empty_moov", &["frag_keyframe", "empty_moov"]).is_ok());
        assert!(check_flags("+evil", &["faststart"]).is_err());
        assert!(check_bitrate("2.5M").is_ok());
        assert!(check_bitrate("2.5X").is_err());
    }
}
