//! Video codec and rate control: stream copy when nothing changes, else an encoder with CRF
//! or a bitrate that fits a target size.

use super::choose::requested_vcodec;
use super::{PlanError, Planned, Planner};
use crate::formats;
use crate::intents::Strength;

/// The share of the input's video bitrate a light compression keeps: `compress_cap`'s, and the
/// most a size said allows a file already under it.
const LIGHT_SHARE: f64 = 0.8;

impl Planner<'_> {
    pub(super) fn quality_level(&self) -> usize {
        if self.w.compress.is_some()
            || self.w.target_size.is_some()
            || self.w.target_factor.is_some()
        {
            1
        } else if self.w.quality_high || self.w.lossless {
            2
        } else {
            0
        }
    }

    /// Target size in bytes, from "under 5 MB" or "half the file size".
    pub(super) fn target_bytes(&self) -> Option<f64> {
        self.w.target_size.or_else(|| {
            Some(self.w.target_factor? * self.main.facts.size as f64).filter(|b| *b > 0.0)
        })
    }

    /// Video bitrate (bit/s) that fits the target size, leaving room for sound.
    pub(super) fn target_video_bitrate(&self, with_audio: bool) -> Planned<Option<u32>> {
        let Some(bytes) = self.target_bytes() else {
            // "a version at 44.1k and 128k": a sound's rate said alone, beside a picture, may
            // be either's; it had been given to the picture (2026-11-28).
            if self.w.bare_bitrate && self.w.abitrate.is_none() {
                return Err(PlanError::NotSupported(
                    "a bit rate said alone at a rate sounds are coded at (320k or less) may be the sound's or the picture's; say \"the audio at 128k\" or \"a video bit rate of 128k\"",
                ));
            }
            return Ok(self.w.vbitrate);
        };
        let secs = self
            .out_duration()
            .ok_or_else(|| self.unknown_length("a target size"))?;
        let audio = if with_audio { 64_000.0 } else { 0.0 };
        let mut video = bytes * 8.0 * 0.92 / secs - audio;
        if video < 30_000.0 {
            return Err(PlanError::TargetTooSmall { bytes, secs });
        }
        // "compress it to under 5 MB" of a 3.5 MB file: a bitrate for 5 MB made it larger than
        // it was (2026-11-30, sixteenth pass); a size said is a most, and a file already under
        // it is compressed lightly.
        if let Some(total) = self.input_bitrate() {
            let sound = if self.main.has_audio() {
                Self::sound_share(total)
            } else {
                0.0
            };
            video = video.min(((total - sound) * LIGHT_SHARE).max(30_000.0));
        }
        Ok(Some(video as u32))
    }

    /// The highest video bitrate a compressed output may use: a share of the input's own
    /// (estimated from its size and length, less the sound), when compressing.
    fn compress_cap(&self, with_audio: bool) -> Option<u32> {
        let share = match self.w.compress? {
            Strength::Light => LIGHT_SHARE,
            Strength::Normal => 0.6,
            Strength::Strong => 0.4,
        };
        let total = self.input_bitrate()?;
        let sound = if self.main.has_audio() && with_audio {
            Self::sound_share(total)
        } else {
            0.0
        };
        let video = total - sound;
        (video > 50_000.0).then(|| (video * share) as u32)
    }

    /// The main input's overall bitrate (bit/s), from its size and length.
    pub(super) fn input_bitrate(&self) -> Option<f64> {
        let secs = self.duration()?;
        Some(self.main.facts.size as f64 * 8.0 / secs).filter(|b| *b > 0.0)
    }

    /// A guess at the sound's part of an input's bitrate: 128 kbit/s, less in small files.
    pub(super) fn sound_share(total: f64) -> f64 {
        (total / 4.0).min(128_000.0)
    }

    pub(super) fn video_codec(
        &mut self,
        must_encode: bool,
        with_audio: bool,
    ) -> Planned<Vec<String>> {
        let requested = requested_vcodec(&self.w, self.main);
        // "the best quality" alone keeps a picture it can copy, as the sound (`audio_codec`):
        // re-encoding could only lose ("convert to mkv in the best quality" had re-encoded at
        // crf 18) (2026-11-30, seventeenth pass). "lossless" asks for a lossless encoding.
        let quality_asked = self.w.compress.is_some()
            || self.w.crf.is_some()
            || self.w.vbitrate.is_some()
            || self.target_bytes().is_some()
            || self.w.lossless
            || self.w.reencode;
        let copyable = self
            .main
            .vcodec()
            .is_some_and(|c| self.fmt.vcodecs.contains(&c));
        if requested.is_none() && !must_encode && !quality_asked && copyable {
            return Ok(Self::s(&["-c:v", "copy"]));
        }
        // Compressing an HEVC or VP9 input keeps its codec family, so the result is smaller.
        let same_family = self
            .main
            .vcodec()
            .and_then(|c| {
                formats::VIDEO_ENCODERS
                    .iter()
                    .find(|e| e.codec == c && (c == "hevc" || c == "vp9"))
            })
            .filter(|e| self.w.compress.is_some() && self.fmt.vcodecs.contains(&e.codec));
        let default = self.fmt.venc.and_then(formats::video_encoder);
        let enc = requested
            .or(same_family)
            .or(default)
            .ok_or(PlanError::NoEncoder("video"))?;
        if let Some(r) = requested {
            self.tag(r.key);
        }
        let mut o = Self::s(&["-c:v", enc.lib]);
        let level = self.quality_level();
        if let Some(b) = self.target_video_bitrate(with_audio)? {
            o.extend(["-b:v".to_string(), format!("{}k", b / 1000)]);
        } else if let Some(crfs) = enc.crf {
            let crf = if self.w.lossless {
                0
            } else {
                self.w.crf.unwrap_or(match self.w.compress {
                    Some(Strength::Strong) => crfs[1] + 5,
                    Some(Strength::Light) => crfs[1] - 3,
                    _ => crfs[level],
                })
            };
            o.extend(["-crf".to_string(), crf.to_string()]);
            match self.compress_cap(with_audio) {
                // Constrained quality: CRF, but never above a share of the input's rate, so
                // "smaller" holds for inputs that were already compressed hard.
                Some(cap) if enc.crf_mode.is_empty() => o.extend([
                    "-maxrate".to_string(),
                    format!("{}k", cap / 1000),
                    "-bufsize".to_string(),
                    format!("{}k", 2 * cap / 1000),
                ]),
                Some(cap) => o.extend(["-b:v".to_string(), format!("{}k", cap / 1000)]),
                None => o.extend(Self::s(enc.crf_mode)),
            }
        }
        if quality_asked && self.quality_level() == 1 {
            self.tag("compressed");
        }
        o.extend(Self::s(enc.extra));
        // HEVC in MP4 or MOV tagged `hev1` (x265's default there) is refused by Apple's players;
        // `hvc1` plays everywhere ("an hevc mp4 that plays on iphone" had come back `hev1`;
        // 2026-11-30, sixteenth pass).
        if enc.codec == "hevc" && matches!(self.fmt.key, "mp4" | "mov") {
            o.extend(Self::s(&["-tag:v", "hvc1"]));
        }
        o.extend(["-pix_fmt".to_string(), enc.pix_fmt.to_string()]);
        Ok(o)
    }
}
