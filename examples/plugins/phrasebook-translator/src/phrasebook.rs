//! The house phrases, and how an instruction that uses one is rewritten into wording the
//! default translator understands.
//!
//! Matching is by words: the instruction and the phrases are split into runs of letters and
//! digits and compared case-insensitively, so "Instagram-ready!" matches "instagram ready".
//! The longest phrase wins where several start at the same word.

use mediaforge_plugin::Refusal;

/// One house phrase: the wordings that call it up, and what it means in the default
/// translator's own words.
pub struct Entry {
    /// A short name for messages and decisions.
    pub name: &'static str,
    pub phrases: &'static [&'static str],
    pub means: &'static str,
}

pub const PHRASEBOOK: &[Entry] = &[
    Entry {
        name: "instagram",
        phrases: &[
            "make it instagram ready",
            "instagram ready",
            "ready for instagram",
            "for instagram",
            "instagram version",
            "instagram post",
        ],
        // 1080x1080, centre-cropped, H.264/AAC in MP4, at most 60 s. The default translator
        // crops a square from the centre, leaves out a trim the clip is already shorter than,
        // and copies AAC audio rather than re-encoding it.
        means: "crop to a square, resize to 1080x1080, keep the first 60 seconds, as mp4 with h264 video and aac audio",
    },
    Entry {
        name: "podcast",
        phrases: &[
            "make a podcast version",
            "podcast version",
            "podcast edition",
            "as a podcast",
            "for a podcast",
            "for the podcast",
        ],
        // Mono 64 kbps MP3, loudness-normalised (loudnorm, -16 LUFS).
        means: "extract the audio as mp3, mono, 64k audio, normalize",
    },
];

/// An instruction with its house phrase replaced.
#[derive(Debug, PartialEq)]
pub struct Rewritten {
    /// The instruction for the default translator.
    pub text: String,
    /// The entry used.
    pub name: &'static str,
    /// The words as the tenant wrote them, e.g. `Instagram-ready`.
    pub written: String,
    pub means: &'static str,
}

/// A word of the instruction: lower-cased, with its byte span in the original text.
struct Word {
    lower: String,
    start: usize,
    end: usize,
}

fn words(text: &str) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::new();
    let mut current: Option<(usize, usize)> = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            let start = current.map_or(i, |(s, _)| s);
            current = Some((start, i + c.len_utf8()));
        } else if let Some((s, e)) = current.take() {
            out.push(Word {
                lower: text[s..e].to_lowercase(),
                start: s,
                end: e,
            });
        }
    }
    if let Some((s, e)) = current {
        out.push(Word {
            lower: text[s..e].to_lowercase(),
            start: s,
            end: e,
        });
    }
    out
}

/// Finds the house phrases in `instructions`. `Ok(None)`: none, the instruction goes to the
/// default translator as it is. The first occurrence is replaced by the entry's meaning and
/// repeats of the same entry are dropped; two different entries in one instruction are
/// refused, since each makes a different kind of output.
pub fn rewrite(instructions: &str) -> Result<Option<Rewritten>, Refusal> {
    let words = words(instructions);
    // (first word, past the last word, entry)
    let mut found: Vec<(usize, usize, &'static Entry)> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let best = PHRASEBOOK
            .iter()
            .flat_map(|entry| entry.phrases.iter().map(move |p| (entry, *p)))
            .filter_map(|(entry, phrase)| {
                let phrase: Vec<&str> = phrase.split(' ').collect();
                let matches = words.len() - i >= phrase.len()
                    && phrase
                        .iter()
                        .zip(&words[i..])
                        .all(|(p, w)| *p == w.lower.as_str());
                matches.then_some((phrase.len(), entry))
            })
            .max_by_key(|(len, _)| *len);
        match best {
            Some((len, entry)) => {
                found.push((i, i + len, entry));
                i += len;
            }
            None => i += 1,
        }
    }
    let Some(&(first, last, entry)) = found.first() else {
        return Ok(None);
    };
    if let Some(&(a, b, other)) = found.iter().find(|(_, _, e)| e.name != entry.name) {
        return Err(Refusal {
            message: format!(
                "\"{}\" and \"{}\" ask for different outputs; use one house phrase per instruction",
                &instructions[words[first].start..words[last - 1].end],
                &instructions[words[a].start..words[b - 1].end],
            ),
            subject: Some(other.name.into()),
        });
    }

    let mut text = String::with_capacity(instructions.len() + entry.means.len());
    let mut at = 0;
    for (n, &(a, b, _)) in found.iter().enumerate() {
        text.push_str(&instructions[at..words[a].start]);
        if n == 0 {
            text.push_str(entry.means);
        }
        at = words[b - 1].end;
    }
    text.push_str(&instructions[at..]);
    Ok(Some(Rewritten {
        text,
        name: entry.name,
        written: instructions[words[first].start..words[last - 1].end].to_string(),
        means: entry.means,
    }))
}
