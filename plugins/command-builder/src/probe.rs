//! `build-probe`: a tenant's probe configuration (POST /ffprobe/analyze) becomes ffprobe arguments. The host
//! adds `-v error -of json` and the input path.
//!
//! Every requested section becomes part of one `-show_entries` (which also makes ffprobe read
//! frames or packets when those are asked for). A section with an empty field list is shown
//! whole, including its tags and other subsections. Field names are lower-case identifiers;
//! `tags` (all tags), `tags:KEY` or `TAG:KEY` (one tag), `disposition[:NAME]` (streams) and
//! `side_data_list` (streams, frames, packets) select the matching subsections. `error` maps to
//! ffprobe's `error` section, which ffprobe fills when it cannot read the input.

use crate::values::{self, check_stream_spec};
use crate::{Decision, FfprobeCommand, ProbeConfig, Refusal, refusal, show};

/// Longest analysis ffprobe may be told to do: the API's 60 s probe limit.
pub const MAX_ANALYZE_US: u64 = 60_000_000;
/// Largest probe size: the API's 50 MB probe limit.
pub const MAX_PROBESIZE: u64 = 50 * 1024 * 1024;
const SKIP_FRAME: &[&str] = &[
    "none", "default", "noref", "bidir", "nokey", "nointra", "all",
];
const MAX_FIELDS: usize = 256;
const MAX_INTERVALS: usize = 64;

struct Section<'a> {
    /// Name in the probe config, for messages.
    config_name: &'static str,
    /// ffprobe's section name.
    section: &'static str,
    fields: Option<&'a Vec<String>>,
    has_disposition: bool,
    has_side_data: bool,
}

pub fn build_probe(probe: &ProbeConfig) -> Result<FfprobeCommand, Refusal> {
    let mut args: Vec<String> = Vec::new();
    let mut decisions = Vec::new();
    let mut decide = |subject: &str, reason: String| {
        decisions.push(Decision {
            subject: subject.to_string(),
            allowed: true,
            reason,
        });
    };

    let wants_frames = probe.frames.is_some() || probe.packets.is_some();
    match probe.select_streams.as_deref() {
        Some(spec) => {
            check_stream_spec(spec).map_err(|e| {
                refusal(
                    "select_streams",
                    format!("select_streams is not valid: {e}"),
                )
            })?;
            args.extend(["-select_streams".into(), spec.to_string()]);
            decide("select_streams", format!("streams matching '{spec}'"));
        }
        None if wants_frames => {
            return Err(refusal(
                "select_streams",
                "select_streams is required when requesting frames or packets",
            ));
        }
        None => {}
    }
    if let Some(intervals) = probe.read_intervals.as_deref() {
        let normalized = check_intervals(intervals).map_err(|e| {
            refusal(
                "read_intervals",
                format!("read_intervals is not valid: {e}"),
            )
        })?;
        args.extend(["-read_intervals".into(), normalized.clone()]);
        decide("read_intervals", format!("read only {normalized}"));
    }
    if probe.count_frames == Some(true) {
        args.push("-count_frames".into());
        decide(
            "count_frames",
            "count frames (decodes the selected streams)".into(),
        );
    }
    if let Some(skip) = probe.skip_frame.as_deref() {
        if !SKIP_FRAME.contains(&skip) {
            return Err(refusal(
                "skip_frame",
                format!(
                    "skip_frame '{}' is not valid: expected one of {}",
                    show(skip),
                    SKIP_FRAME.join(", ")
                ),
            ));
        }
        args.extend(["-skip_frame".into(), skip.to_string()]);
        decide("skip_frame", format!("skip frames: {skip}"));
    }
    if let Some(raw) = probe.analyzeduration.as_deref() {
        let us = parse_analyzeduration(raw).map_err(|e| refusal("analyzeduration", e))?;
        args.extend(["-analyzeduration".into(), us.to_string()]);
        decide("analyzeduration", format!("{us} microseconds"));
    }
    if let Some(raw) = probe.probesize.as_deref() {
        let bytes = parse_probesize(raw).map_err(|e| refusal("probesize", e))?;
        args.extend(["-probesize".into(), bytes.to_string()]);
        decide("probesize", format!("{bytes} bytes"));
    }

    let sections = [
        Section {
            config_name: "format",
            section: "format",
            fields: probe.format.as_ref(),
            has_disposition: false,
            has_side_data: false,
        },
        Section {
            config_name: "streams",
            section: "stream",
            fields: probe.streams.as_ref(),
            has_disposition: true,
            has_side_data: true,
        },
        Section {
            config_name: "chapters",
            section: "chapter",
            fields: probe.chapters.as_ref(),
            has_disposition: false,
            has_side_data: false,
        },
        Section {
            config_name: "programs",
            section: "program",
            fields: probe.programs.as_ref(),
            has_disposition: false,
            has_side_data: false,
        },
        Section {
            config_name: "frames",
            section: "frame",
            fields: probe.frames.as_ref(),
            has_disposition: false,
            has_side_data: true,
        },
        Section {
            config_name: "packets",
            section: "packet",
            fields: probe.packets.as_ref(),
            has_disposition: false,
            has_side_data: true,
        },
        Section {
            config_name: "error",
            section: "error",
            fields: probe.error.as_ref(),
            has_disposition: false,
            has_side_data: false,
        },
    ];
    let mut entries = Vec::new();
    for s in &sections {
        let Some(fields) = s.fields else { continue };
        let parts = section_entries(s, fields)?;
        decide(s.config_name, format!("show {}", parts.join(":")));
        entries.extend(parts);
    }
    if entries.is_empty() {
        decide(
            "sections",
            "no section was requested; the result will be empty".into(),
        );
    } else {
        args.extend(["-show_entries".into(), entries.join(":")]);
    }
    Ok(FfprobeCommand { args, decisions })
}

/// The `-show_entries` parts for one section.
fn section_entries(s: &Section, fields: &[String]) -> Result<Vec<String>, Refusal> {
    if fields.is_empty() {
        return Ok(vec![s.section.to_string()]);
    }
    if fields.len() > MAX_FIELDS {
        return Err(refusal(
            s.config_name,
            format!("Too many {} fields (more than {MAX_FIELDS})", s.config_name),
        ));
    }
    let bad = |field: &str, why: &str| {
        refusal(
            s.config_name,
            format!(
                "Field '{}' in {} is not valid: {why}",
                show(field),
                s.config_name
            ),
        )
    };
    let ident = |t: &str| {
        !t.is_empty()
            && t.len() <= 64
            && t.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    let tag_key = |t: &str| {
        !t.is_empty()
            && t.len() <= 128
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
    };

    let mut plain: Vec<&str> = Vec::new();
    // `None` in these means "all of the subsection".
    let mut tags: Option<Vec<&str>> = None;
    let mut all_tags = false;
    let mut disposition: Option<Vec<&str>> = None;
    let mut all_disposition = false;
    let mut side_data = false;
    for field in fields {
        let field = field.as_str();
        if field == "tags" {
            all_tags = true;
        } else if let Some(key) = field
            .strip_prefix("tags:")
            .or_else(|| field.strip_prefix("TAG:"))
        {
            if !tag_key(key) {
                return Err(bad(field, "tag names are letters, digits and _ . -"));
            }
            tags.get_or_insert_with(Vec::new).push(key);
        } else if s.has_disposition && field == "disposition" {
            all_disposition = true;
        } else if let Some(name) = field
            .strip_prefix("disposition:")
            .filter(|_| s.has_disposition)
        {
            if !ident(name) {
                return Err(bad(
                    field,
                    "disposition names are lower-case letters, digits and _",
                ));
            }
            disposition.get_or_insert_with(Vec::new).push(name);
        } else if s.has_side_data && (field == "side_data_list" || field == "side_data") {
            side_data = true;
        } else if ident(field) {
            plain.push(field);
        } else {
            return Err(bad(
                field,
                "field names are lower-case letters, digits and _ (or tags, tags:NAME)",
            ));
        }
    }
    let mut parts = Vec::new();
    if !plain.is_empty() {
        parts.push(format!("{}={}", s.section, plain.join(",")));
    }
    let sub = |parts: &mut Vec<String>, name: String, all: bool, some: Option<Vec<&str>>| {
        if all {
            parts.push(name);
        } else if let Some(list) = some {
            parts.push(format!("{name}={}", list.join(",")));
        }
    };
    sub(&mut parts, format!("{}_tags", s.section), all_tags, tags);
    sub(
        &mut parts,
        format!("{}_disposition", s.section),
        all_disposition,
        disposition,
    );
    sub(
        &mut parts,
        format!("{}_side_data_list", s.section),
        side_data,
        None,
    );
    Ok(parts)
}

/// ffprobe's `-read_intervals`: comma-separated `[+]START[%[+]END]`, `%+#N` (N packets) and the
/// shorthand `#N`, written as `%+#N` (ffprobe itself rejects a bare `#N`).
fn check_intervals(raw: &str) -> Result<String, String> {
    let items: Vec<&str> = raw.split(',').collect();
    if items.len() > MAX_INTERVALS {
        return Err(format!("at most {MAX_INTERVALS} intervals"));
    }
    let time = |t: &str| -> Result<(), String> {
        let t = t.strip_prefix('+').unwrap_or(t);
        values::check_duration(t, false)
            .map(|_| ())
            .map_err(|_| format!("'{}' is not a time such as 10, 90.5 or 00:01:30", show(t)))
    };
    let packets = |n: &str| -> Result<(), String> {
        if !n.is_empty() && n.len() <= 12 && n.bytes().all(|b| b.is_ascii_digit()) {
            Ok(())
        } else {
            Err(format!("'#{}' is not a packet count such as #500", show(n)))
        }
    };
    let mut out = Vec::new();
    for item in items {
        let item = item.trim();
        if let Some(n) = item.strip_prefix('#') {
            packets(n)?;
            out.push(format!("%+#{n}"));
            continue;
        }
        let (start, end) = match item.split_once('%') {
            Some((s, e)) => (s, Some(e)),
            None => (item, None),
        };
        if start.is_empty() && end.is_none_or(str::is_empty) {
            return Err("an interval is empty".into());
        }
        if !start.is_empty() {
            time(start)?;
        }
        if let Some(end) = end.filter(|e| !e.is_empty()) {
            match end.strip_prefix("+#") {
                Some(n) => packets(n)?,
                None => time(end)?,
            }
        }
        out.push(item.to_string());
    }
    Ok(out.join(","))
}

/// `10`, `10s`, `2.5`, `500ms`, `250000us`, `00:00:30` → microseconds, at most 60 s.
fn parse_analyzeduration(raw: &str) -> Result<u64, String> {
    let raw = raw.trim();
    let seconds = values::parse_duration(raw)
        .filter(|s| *s >= 0.0)
        .ok_or_else(|| {
            format!(
                "analyzeduration '{}' is not valid: expected seconds such as 10, 10s or 500ms",
                show(raw)
            )
        })?;
    let us = (seconds * 1_000_000.0).round() as u64;
    if us > MAX_ANALYZE_US {
        return Err(format!(
            "analyzeduration '{}' is above the limit of 60 seconds",
            show(raw)
        ));
    }
    Ok(us)
}

/// `5000000`, `1024k`, `10M`, `10MB`, `1.5MiB` → bytes (k, M, G are binary: 1024), 32 bytes to
/// 50 MB.
fn parse_probesize(raw: &str) -> Result<u64, String> {
    let raw = raw.trim();
    let invalid = || {
        format!(
            "probesize '{}' is not valid: expected bytes such as 5000000, 1024k or 10M",
            show(raw)
        )
    };
    let split = raw
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(raw.len());
    let (number, unit) = raw.split_at(split);
    let number = values::parse_number(number)
        .filter(|n| *n >= 0.0)
        .ok_or_else(invalid)?;
    let scale: f64 = match unit.trim() {
        "" | "B" => 1.0,
        "k" | "K" | "kB" | "KB" | "Ki" | "KiB" => 1024.0,
        "M" | "MB" | "Mi" | "MiB" => 1024.0 * 1024.0,
        "G" | "GB" | "Gi" | "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(invalid()),
    };
    let bytes = (number * scale).round();
    if bytes > MAX_PROBESIZE as f64 {
        return Err(format!(
            "probesize '{}' is above the limit of 50 MB ({MAX_PROBESIZE} bytes)",
            show(raw)
        ));
    }
    if bytes < 32.0 {
        return Err(format!(
            "probesize '{}' is below ffprobe's minimum of 32 bytes",
            show(raw)
        ));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals() {
        assert_eq!(check_intervals("0%+10").unwrap(), "0%+10");
        assert_eq!(check_intervals("#500").unwrap(), "%+#500");
        assert_eq!(
            check_intervals("10%20,00:01:02.5%+#50,%+#500,+10%").unwrap(),
            "10%20,00:01:02.5%+#50,%+#500,+10%"
        );
        for bad in ["", "%", "abc", "10%x", "#x", "%+#", "1,,2", "10%-5"] {
            assert!(check_intervals(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn durations_and_sizes() {
        assert_eq!(parse_analyzeduration("10s"), Ok(10_000_000));
        assert_eq!(parse_analyzeduration("10"), Ok(10_000_000));
        assert_eq!(parse_analyzeduration("500ms"), Ok(500_000));
        assert!(
            parse_analyzeduration("61")
                .unwrap_err()
                .contains("limit of 60 seconds")
        );
        assert!(parse_analyzeduration("ten").is_err());
        assert_eq!(parse_probesize("10M"), Ok(10 * 1024 * 1024));
        assert_eq!(parse_probesize("1024k"), Ok(1024 * 1024));
        assert_eq!(parse_probesize("5000000"), Ok(5_000_000));
        assert_eq!(parse_probesize("50M"), Ok(MAX_PROBESIZE));
        assert!(
            parse_probesize("51M")
                .unwrap_err()
                .contains("above the limit of 50 MB")
        );
        assert!(parse_probesize("1T").is_err());
        assert!(parse_probesize("10").is_err());
    }
}
