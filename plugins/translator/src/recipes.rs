//! Answers that are one of the host's recipes (WIT 0.3.0, `docs/natural-language.md`): "make it
//! streamable" is the `hls` recipe, "draw the waveform" the `waveform` one. A recipe answers
//! only when it is offered and is the whole request: a recipe runs on its own, so anything else
//! asked beside it is refused by name rather than dropped.

use mediaforge_plugin::serde_json::{Value, json};
use mediaforge_plugin::{Answer, OfferedRecipe, RecipeCall, Refusal};

use crate::intents::{Frames, Intent, Resize, Thumb, Understanding};

/// `None`: no recipe was asked for. Otherwise the recipe call, or why it cannot be answered.
pub fn answer(u: &Understanding, offered: &[OfferedRecipe]) -> Option<Result<Answer, Refusal>> {
    let mut names: Vec<&str> = Vec::new();
    let mut said: Vec<String> = Vec::new();
    for (intent, words) in &u.heard {
        if let Intent::Recipe(name) = intent {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
            said.push(format!("\"{words}\""));
        }
    }
    // A loudness normalisation and nothing else is the `loudness` recipe's job when it is
    // offered: it measures first, as a one-pass filter cannot.
    if names.is_empty()
        && offered.iter().any(|r| r.name == "loudness")
        && u.has(|i| matches!(i, Intent::Normalize(_)))
        && u.intents().all(|i| {
            matches!(i, Intent::Normalize(_))
                || !i.is_action()
                // "like Apple Podcasts wants": where it is played, not a change.
                || matches!(i, Intent::Format { how: crate::intents::FormatHow::Compatible, .. })
        })
    {
        let mut params = json!({});
        if let Some(Intent::Normalize(Some(target))) = u
            .intents()
            .find(|i| matches!(i, Intent::Normalize(Some(_))))
        {
            params["i"] = lufs(*target);
        }
        return Some(Ok(Answer::Recipe(RecipeCall {
            name: "loudness".into(),
            params: Value::to_string(&params),
        })));
    }
    let name = *names.first()?;
    let refuse = |message: String| {
        Some(Err(Refusal {
            message,
            subject: Some(name.to_string()),
        }))
    };
    if names.len() > 1 {
        return refuse(format!(
            "I understood {}, which are the separate recipes {}; each runs on its own, so ask for one at a time. Nothing was run.",
            said.join(", "),
            names
                .iter()
                .map(|n| format!("'{n}'"))
                .collect::<Vec<_>>()
                .join(" and ")
        ));
    }
    if !offered.iter().any(|r| r.name == name) {
        return refuse(format!(
            "I understood {} (the '{name}' recipe), but this service does not offer that recipe. Nothing was run.",
            said.join(", ")
        ));
    }
    let mut params = json!({});
    let mut others = Vec::new();
    for (intent, words) in &u.heard {
        if !intent.is_action() || matches!(intent, Intent::Recipe(_)) {
            continue;
        }
        if !setting(name, intent, words, &mut params) {
            others.push(format!("\"{words}\""));
        }
    }
    if !others.is_empty() {
        return refuse(format!(
            "I understood {} (the '{name}' recipe, which runs on its own) and also {}; a recipe cannot be combined with other changes in one request. Ask for the recipe alone, or for the changes first and then the recipe on their result. Nothing was run.",
            said.join(", "),
            others.join(", ")
        ));
    }
    Some(Ok(Answer::Recipe(RecipeCall {
        name: name.to_string(),
        params: Value::to_string(&params),
    })))
}

/// Whether `intent` is said of the recipe `name` itself, setting its parameter when it names
/// one: "two-pass loudness normalisation to -16 LUFS" is the target, "HLS with 1080p and 720p"
/// the ladder's rungs, "4 second segments" their length, "a sprite with a thumbnail every 5
/// seconds" the storyboard's interval, "thumbnails 120 px wide" its frames' width, "a
/// waveform image 640x320" its size. Values outside
/// the recipe's schema are not its settings (so they are refused, never clamped).
fn setting(name: &str, intent: &Intent, words: &str, params: &mut Value) -> bool {
    let streaming = name == "hls" || name == "dash";
    match (name, intent) {
        ("loudness", Intent::Normalize(target)) => {
            if let Some(i) = target {
                params["i"] = lufs(*i);
            }
            true
        }
        // The playlist, segments, several qualities: what a streaming package is; the times:
        // what an analysis lists.
        (_, Intent::JobPart(part)) => {
            (part == "streaming" && streaming) || (part == "analysis" && name == "analyze")
        }
        // The picture a waveform is, one of it.
        ("waveform", Intent::Frames(Frames::Count(1)) | Intent::Thumb(Thumb::Default)) => true,
        (_, Intent::Resize(Resize::Short(h) | Resize::Height(h)))
            if streaming && (144..=2160).contains(h) =>
        {
            let rungs = params["rungs"].as_array_mut();
            match rungs {
                Some(r) if r.contains(&json!(h)) => {}
                Some(r) => r.push(json!(h)),
                None => params["rungs"] = json!([h]),
            }
            if let Some(r) = params["rungs"].as_array_mut() {
                r.sort_by_key(|v| std::cmp::Reverse(v.as_u64()));
            }
            true
        }
        (_, Intent::Segment(s)) if streaming && s.fract() == 0.0 && (1.0..=20.0).contains(s) => {
            params["segment_s"] = json!(*s as u32);
            true
        }
        // The thumbnails and the WebVTT file are what a storyboard is made of.
        ("storyboard", Intent::Thumb(Thumb::Default)) => true,
        ("storyboard", Intent::SubtitleFormat(f)) => f == "vtt",
        // "the .vtt file" alone reads as a subtitle track; beside a storyboard it is its WebVTT.
        ("storyboard", Intent::Subtitles { burn: false }) => words
            .split(' ')
            .all(|w| matches!(w, "vtt" | ".vtt" | "webvtt")),
        ("storyboard", Intent::Frames(Frames::Every(s))) if (0.5..=600.0).contains(s) => {
            params["interval_s"] = json!(s);
            true
        }
        // "thumbnails 120 px wide": the width of one frame in the sheet.
        ("storyboard", Intent::Resize(Resize::Width(w))) if (40..=640).contains(w) => {
            params["width"] = json!(w);
            true
        }
        // The sheets a storyboard writes are JPEGs.
        ("storyboard", Intent::Format { key, .. }) => key == "jpg",
        ("waveform", Intent::Resize(Resize::Dim(w, h)))
            if (100..=8000).contains(w) && (50..=2000).contains(h) =>
        {
            params["width"] = json!(w);
            params["height"] = json!(h);
            true
        }
        // The picture the waveform recipe draws is a PNG.
        ("waveform", Intent::Format { key, .. }) => key == "png",
        _ => false,
    }
}

/// The first unused words (`Understanding::leftovers`) holding a word of `@named_job`.
pub fn unused_job_words(u: &Understanding) -> Option<String> {
    let lex = crate::lexicon::lexicon();
    let named = &lex.classes["named_job"];
    u.leftovers
        .iter()
        .find(|run| {
            run.split(' ')
                .any(|w| named.iter().any(|p| p.len() == 1 && p[0] == w))
        })
        .cloned()
}

/// A loudness target as JSON: -16, not -16.0, when it is whole.
fn lufs(i: f64) -> Value {
    if i.fract() == 0.0 && i.abs() < 1e6 {
        json!(i as i64)
    } else {
        json!(i)
    }
}
