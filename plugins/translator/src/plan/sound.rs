//! Sound: the audio filter chain, channel and rate options, the audio codec, and outputs
//! that are sound only.

use super::choose::{Join, Mode};
use super::{PlanError, Planned, Planner};
use crate::filters;
use crate::formats;
use crate::intents::Level;
use crate::media::Media;
use crate::numbers::fmt_num;

impl Planner<'_> {
    pub(super) fn audio_chain(&mut self) -> Planned<Vec<String>> {
        let mut chain: Vec<String> = self.cut_filters().1.into_iter().collect();
        chain.extend(self.w.afilters.clone());
        if !self.w.afilters.is_empty() {
            self.tag("filtered");
        }
        if self.w.denoise && self.mode == Mode::Audio {
            self.tag("denoised");
            chain.push("afftdn=nf=-25".into());
        }
        // Beside music mixed in, a level is the music's ("add it as background music at 20%
        // volume"), never the whole mix's: `joins::mix` takes it.
        if !matches!(self.join, super::choose::Join::Mix(_))
            && let Some(v) = self.volume_filter()
        {
            chain.push(v);
        }
        if let Some(target) = self.w.normalize {
            self.tag("normalized");
            chain.push(format!(
                "loudnorm=I={}:TP={}:LRA=11",
                fmt_num(target.unwrap_or(-16.0).clamp(-70.0, -5.0)),
                fmt_num(self.w.true_peak.unwrap_or(-1.5).clamp(-9.0, 0.0))
            ));
        }
        if let Some(s) = self.w.speed {
            self.tag(format!("{}x", fmt_num(s)));
            chain.extend(filters::atempo_chain(s));
        }
        if self.w.reverse {
            self.tag("reversed");
            chain.push(format!("atrim=duration={}", self.reverse_bound()?));
            chain.push("areverse".into());
        }
        chain.extend(self.loop_filter(true)?);
        chain.extend(self.extend_sound());
        chain.extend(self.fades(true)?);
        Ok(chain)
    }

    /// The `volume` filter of the level asked for, if any.
    pub(super) fn volume_filter(&mut self) -> Option<String> {
        let (louder, filter) = match self.w.volume? {
            Level::Factor(f) => (f > 1.0, format!("volume={}", fmt_num(f))),
            Level::Db(db) => (db > 0.0, format!("volume={}dB", fmt_num(db))),
        };
        self.tag(if louder { "louder" } else { "quieter" });
        Some(filter)
    }

    /// `-ac`, `-ar`: loudnorm works at 192 kHz, so it always gets a sample rate back.
    pub(super) fn audio_format_options(
        &mut self,
        source_rate: Option<u32>,
        enc: Option<&formats::AudioEncoder>,
    ) -> Planned<Vec<String>> {
        let mut o = Vec::new();
        if let Some(c) = self.w.channels {
            self.tag(match c {
                1 => "mono".to_string(),
                2 => "stereo".to_string(),
                n => format!("{n}ch"),
            });
            o.extend(["-ac".to_string(), c.to_string()]);
        }
        let rate = self.w.sample_rate.or(if self.w.normalize.is_some() {
            Some(source_rate.unwrap_or(48000))
        } else {
            None
        });
        if let Some(r) = rate {
            if let Some(enc) = enc.filter(|e| !e.rates.is_empty() && !e.rates.contains(&r)) {
                if self.w.sample_rate.is_some() {
                    return Err(PlanError::SampleRate {
                        codec: enc.codec,
                        rate: r,
                    });
                }
            } else {
                if self.w.sample_rate.is_some() {
                    self.tag(format!("{}k", fmt_num(r as f64 / 1000.0)));
                }
                o.extend(["-ar".to_string(), r.to_string()]);
            }
        }
        Ok(o)
    }

    pub(super) fn audio_codec(
        &mut self,
        src_codec: Option<&str>,
        must_encode: bool,
    ) -> Planned<(Vec<String>, Option<&'static formats::AudioEncoder>)> {
        let requested = self.w.acodec.as_deref().and_then(formats::audio_encoder);
        if let Some(enc) = requested
            && !self.fmt.acodecs.contains(&enc.codec)
        {
            return Err(PlanError::CannotHold {
                container: self.fmt.ext,
                what: format!("{} audio", enc.codec),
                instead: None,
            });
        }
        // A bare bit rate ("a 64k opus file") names the sound's when the output holds only sound.
        let abitrate = self
            .w
            .abitrate
            .or(self.w.vbitrate.filter(|_| self.fmt.vcodecs.is_empty()));
        // A higher quality or lossless asked keeps a sound it can copy: re-encoding it could only
        // lose ("make it lossless" had re-encoded the AAC at 256k) (2026-11-30, seventeenth pass).
        let quality_asked = self.quality_level() == 1 || abitrate.is_some();
        // A copied sound keeps the packets before a cut in containers without edit lists
        // (Matroska, WebM: a 5-second cut came back 10 seconds long): a trim re-encodes it.
        let trimmed = self.span.start > 0.0 || self.span.end.is_some();
        let exact_cut = trimmed && !matches!(self.fmt.key, "mp4" | "mov" | "m4a");
        let copyable = src_codec.is_some_and(|c| self.fmt.acodecs.contains(&c)) && !exact_cut;
        if requested.is_none_or(|e| Some(e.codec) == src_codec)
            && !must_encode
            && !quality_asked
            && copyable
        {
            return Ok((Self::s(&["-c:a", "copy"]), None));
        }
        // "webm, keep the audio as it is": the container cannot hold the sound as it is, and
        // re-encoding it is what was ruled out (2026-11-27).
        if self.w.untouched.0
            && let Some(c) = src_codec.filter(|c| !self.fmt.acodecs.contains(c))
        {
            return Err(PlanError::CannotHold {
                container: self.fmt.ext,
                what: format!("the sound as it is ({c} audio), which was to be left unchanged"),
                instead: None,
            });
        }
        let enc = requested
            .or(self.fmt.aenc.and_then(formats::audio_encoder))
            .ok_or(PlanError::NoEncoder("audio"))?;
        let mut o = Self::s(&["-c:a", enc.lib]);
        let kbps = match (abitrate, self.target_bytes(), enc.kbps) {
            (Some(b), _, Some(_)) => Some(b / 1000),
            (None, Some(_), Some(_)) => Some(64),
            // Compressing never raises the sound's rate above its guessed share of the input.
            (None, None, Some(levels)) if self.quality_level() == 1 => {
                let share = self
                    .input_bitrate()
                    .map_or(u32::MAX, |b| (Self::sound_share(b) / 1000.0) as u32);
                Some(levels[1].min(share.max(32)))
            }
            (None, None, Some(levels)) => Some(levels[self.quality_level()]),
            // A bit rate asked of a sound stored without compression would be dropped.
            (Some(_), _, None) => {
                return Err(PlanError::NotSupported(
                    "the sound is stored here without compression (WAV, FLAC, AIFF), where a bit rate does not apply; ask for mp3, aac or opus at that rate",
                ));
            }
            (_, _, None) => None,
        };
        if let Some(k) = kbps {
            o.extend(["-b:a".to_string(), format!("{k}k")]);
        }
        Ok((o, Some(enc)))
    }
    pub(super) fn build_audio(&mut self) -> Planned<String> {
        if let Join::Concat(list) = &self.join {
            let list = list.clone();
            return self.build_joined_audio(&list);
        }
        let mut opts = self.trim_options();
        opts.extend(self.loop_input_options()?);
        self.add_input(self.main, opts);
        let achain = self.audio_chain()?;
        self.opts.push("-vn".into());
        self.opts.extend(self.loop_output_options());
        if !achain.is_empty() {
            self.opts.extend(["-af".to_string(), achain.join(",")]);
        }
        let must = !achain.is_empty() || self.w.touches_sound();
        let (ac, enc) = self.audio_codec(self.main.acodec(), must)?;
        self.opts.extend(ac);
        let rate = self.main.audio.and_then(|a| a.sample_rate);
        let fo = self.audio_format_options(rate, enc)?;
        self.opts.extend(fo);
        if let Some(name) = self.segment_output()? {
            return Ok(name);
        }
        self.faststart();
        Ok(self.file_name(None))
    }

    /// Sound files one after the other, or crossfaded into each other, in the order given:
    /// each brought to one rate and layout so they join, then the sound's own changes.
    fn build_joined_audio(&mut self, list: &[&Media]) -> Planned<String> {
        if !self.w.trims.is_empty() || self.plays()?.is_some() || self.w.loop_to.is_some() {
            return Err(PlanError::NotSupported(
                "joined sound files cannot also be cut or repeated in the same request; join them first, then change the result",
            ));
        }
        let mut graph = Vec::new();
        let mut labels = String::new();
        for (k, m) in list.iter().enumerate() {
            let idx = self.add_input(m, Vec::new());
            graph.push(format!(
                "[{idx}:a]aformat=sample_rates=48000:channel_layouts=stereo[a{k}]"
            ));
            labels.push_str(&format!("[a{k}]"));
        }
        let achain = self.audio_chain()?;
        let out = if achain.is_empty() { "[a]" } else { "[joined]" };
        match self.w.crossfade {
            Some(d) => {
                self.tag("crossfaded");
                let mut a = "[a0]".to_string();
                for k in 1..list.len() {
                    let o = if k + 1 == list.len() {
                        out.to_string()
                    } else {
                        format!("[ax{k}]")
                    };
                    graph.push(format!("{a}[a{k}]acrossfade=d={}{o}", fmt_num(d)));
                    a = o;
                }
            }
            None => {
                self.tag("joined");
                graph.push(format!("{labels}concat=n={}:v=0:a=1{out}", list.len()));
            }
        }
        if !achain.is_empty() {
            graph.push(format!("[joined]{}[a]", achain.join(",")));
        }
        self.complex = Some(graph.join(";"));
        self.maps.push("[a]".into());
        self.opts.push("-vn".into());
        let (ac, enc) = self.audio_codec(None, true)?;
        self.opts.extend(ac);
        let fo = self.audio_format_options(Some(48000), enc)?;
        self.opts.extend(fo);
        self.faststart();
        Ok(self.file_name(None))
    }
}
