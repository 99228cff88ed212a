//! What each input is, from the host's facts: a video, a still image, or audio only.

use crate::formats::{self, Format};
use mediaforge_plugin::{InputFacts, StreamFacts};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Video,
    /// A single picture (png, jpg, …): looped when it becomes a video.
    Still,
    Audio,
    /// Subtitles only (.srt, .ass, .vtt): burnt in or added as a track, never the main input.
    Subtitle,
    /// Neither audio nor video streams (or no facts): treated as a video.
    Unknown,
}

/// Codecs of pictures; a video stream in one of them with no real duration is a still.
const STILL_CODECS: &[&str] = &[
    "png", "mjpeg", "bmp", "webp", "tiff", "gif", "jpeg2000", "jpegls", "pam", "ppm",
];

#[derive(Debug)]
pub struct Media<'a> {
    /// Position in the host's input list.
    pub index: usize,
    pub facts: &'a InputFacts,
    pub kind: Kind,
    pub video: Option<&'a StreamFacts>,
    pub audio: Option<&'a StreamFacts>,
    pub format: Option<&'static Format>,
}

impl<'a> Media<'a> {
    pub fn new(index: usize, facts: &'a InputFacts) -> Media<'a> {
        let video = facts.streams.iter().find(|s| s.kind == "video");
        let audio = facts.streams.iter().find(|s| s.kind == "audio");
        let duration = facts.duration.or_else(|| {
            facts
                .streams
                .iter()
                .filter_map(|s| s.duration)
                .reduce(f64::max)
        });
        let still_codec = video.is_some_and(|v| STILL_CODECS.contains(&v.codec.as_str()));
        let image_container =
            facts.container.contains("image2") || facts.container.ends_with("_pipe");
        let kind = match (video, audio) {
            // Cover art in an audio file is a still picture stream: the file is audio.
            (Some(_), Some(_))
                if still_codec && duration.is_none_or(|d| d > 0.5) && !image_container =>
            {
                Kind::Audio
            }
            (Some(_), _)
                if still_codec && (image_container || duration.is_none_or(|d| d <= 0.5)) =>
            {
                Kind::Still
            }
            (Some(_), _) => Kind::Video,
            (None, Some(_)) => Kind::Audio,
            (None, None) if facts.streams.iter().any(|s| s.kind == "subtitle") => Kind::Subtitle,
            (None, None) => Kind::Unknown,
        };
        let ext_format = ext(&facts.name).and_then(formats::by_ext);
        let format = ext_format.or_else(|| formats::by_container(&facts.container));
        Media {
            index,
            facts,
            kind,
            video,
            audio,
            format,
        }
    }

    pub fn name(&self) -> &str {
        &self.facts.name
    }

    pub fn duration(&self) -> Option<f64> {
        self.facts
            .duration
            .or_else(|| {
                self.facts
                    .streams
                    .iter()
                    .filter_map(|s| s.duration)
                    .reduce(f64::max)
            })
            .filter(|d| *d > 0.0 && d.is_finite())
    }

    pub fn dims(&self) -> Option<(u32, u32)> {
        let v = self.video?;
        Some((v.width?, v.height?)).filter(|(w, h)| *w > 0 && *h > 0)
    }

    pub fn fps(&self) -> Option<f64> {
        self.video?
            .frame_rate
            .filter(|r| *r > 0.0 && r.is_finite() && *r < 1000.0)
    }

    pub fn has_audio(&self) -> bool {
        self.audio.is_some()
    }

    pub fn has_picture(&self) -> bool {
        matches!(self.kind, Kind::Video | Kind::Still | Kind::Unknown)
    }

    pub fn vcodec(&self) -> Option<&str> {
        self.video.map(|v| v.codec.as_str())
    }

    pub fn acodec(&self) -> Option<&str> {
        self.audio.map(|a| a.codec.as_str())
    }

    /// The file name without its extension, made safe for an output name.
    pub fn stem(&self) -> String {
        let name = self.name().rsplit('/').next().unwrap_or("");
        let stem = match name.rsplit_once('.') {
            Some((s, _)) if !s.is_empty() => s,
            _ => name,
        };
        let safe: String = stem
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(100)
            .collect();
        if safe.trim_matches('_').is_empty() {
            "output".into()
        } else {
            safe
        }
    }
}

/// The extension of a file name, if it has one.
pub fn ext(name: &str) -> Option<&str> {
    let base = name.rsplit('/').next()?;
    base.rsplit_once('.')
        .map(|(_, e)| e)
        .filter(|e| !e.is_empty() && e.len() <= 5)
}

/// Whether a file name is a picture's ("logo.png"), by its extension.
/// Whether a file name is a sound file's (its extension an audio format's).
pub fn is_sound_name(name: &str) -> bool {
    ext(name)
        .and_then(crate::formats::by_ext)
        .is_some_and(|f| f.kind == crate::formats::Kind::Audio)
}

pub fn is_picture_name(name: &str) -> bool {
    ext(name).is_some_and(|e| {
        ["png", "jpg", "jpeg", "webp", "bmp", "gif", "svg"]
            .contains(&e.to_ascii_lowercase().as_str())
    })
}
