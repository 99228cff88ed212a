//! Video outputs: the main input's chains, the other inputs joined, then where the sound
//! comes from and the codecs.

use super::choose::Join;
use super::joins::Chains;
use super::{PlanError, Planned, Planner, STILL_SECONDS};
use crate::media::{Kind, Media};
use crate::numbers::fmt_num;

impl<'m> Planner<'m> {
    pub(super) fn build_video(&mut self) -> Planned<String> {
        let still = self.main.kind == Kind::Still;
        let mut main_opts = if still {
            let rate = self.w.fps.unwrap_or(25.0);
            Self::s(&["-loop", "1", "-framerate", &fmt_num(rate)])
        } else {
            self.trim_options()
        };
        main_opts.extend(self.loop_input_options()?);
        let mi = self.add_input(self.main, main_opts);
        let (vcut, _) = self.cut_filters();
        let mut vchain: Vec<String> = vcut.into_iter().collect();
        vchain.extend(self.picture_chain(true)?);
        vchain.extend(self.burn_filter()?);
        let timing = self.video_timing()?;
        // A still picture's frame rate is set on its input.
        vchain.extend(
            timing
                .into_iter()
                .filter(|f| !(still && f.starts_with("fps="))),
        );
        let achain = self.audio_chain()?;
        let sound = self.sound_source();
        if self.w.remove_audio {
            self.tag("muted");
        }
        let mut c = Chains {
            main: mi,
            picture_filtered: !vchain.is_empty(),
            sound_filtered: !achain.is_empty(),
            vchain,
            achain,
            graph: Vec::new(),
        };
        let join = std::mem::replace(&mut self.join, Join::None);
        self.join_inputs(&join, sound, &mut c);
        self.join = join;
        self.place_chains(&mut c, sound);
        // After the joins, so their input numbers stay as they are.
        let sound_from_main = sound.is_some_and(|s| s.index == self.main.index);
        self.place_subtitles(mi, sound_from_main)?;
        self.opts.extend(self.loop_output_options());
        // A looped picture has no end: give the output one (`-shortest` overshoots).
        if still {
            let secs = self.out_duration().unwrap_or(STILL_SECONDS);
            self.opts.extend(["-t".to_string(), fmt_num(secs)]);
        }
        let must_encode_video = c.picture_filtered
            || still
            || self.span.start > 0.0
            || self.span.cut.is_some()
            || self.w.touches_picture();
        let vc = self.video_codec(must_encode_video, sound.is_some())?;
        self.opts.extend(vc);
        match sound {
            Some(s) => self.sound_codec(s, c.sound_filtered)?,
            None => self.opts.push("-an".into()),
        }
        if let Some(name) = self.segment_output()? {
            return Ok(name);
        }
        self.faststart();
        Ok(self.file_name(None))
    }

    /// Where the output's sound comes from, if anywhere.
    fn sound_source(&self) -> Option<&'m Media<'m>> {
        match &self.join {
            Join::ReplaceAudio(a) => Some(a),
            _ if self.w.remove_audio => None,
            Join::Concat(list) if list.iter().all(|m| m.has_audio()) => Some(self.main),
            Join::Concat(_) => None,
            _ => Some(self.main).filter(|m| m.has_audio()),
        }
    }

    /// The chains as `-vf`/`-af`, or, once there is a complex graph, inside it.
    fn place_chains(&mut self, c: &mut Chains, sound: Option<&Media>) {
        if c.graph.is_empty() {
            if !c.vchain.is_empty() {
                self.opts.extend(["-vf".to_string(), c.vchain.join(",")]);
            }
            if !c.achain.is_empty() && sound.is_some() {
                self.opts.extend(["-af".to_string(), c.achain.join(",")]);
            }
            return;
        }
        // Sound not yet in the graph goes through it when it has filters, else is mapped.
        if let Some(s) = sound
            && !self.maps.iter().any(|m| m == "[a]")
        {
            let si = self
                .inputs
                .iter()
                .position(|(i, _)| *i == s.index)
                .unwrap_or(c.main);
            if c.achain.is_empty() {
                self.maps.push(format!("{si}:a:0"));
            } else {
                c.graph.push(format!("[{si}:a]{}[a]", c.achain.join(",")));
                self.maps.push("[a]".into());
            }
        }
        self.complex = Some(c.graph.join(";"));
    }

    /// Audio codec and format options for the sound taken from `s`.
    fn sound_codec(&mut self, s: &Media, filtered: bool) -> Planned<()> {
        // Two tracks share one codec setting, so the added one must fit the container.
        let added_fits = match &self.join {
            Join::AddTrack(a) => a.acodec().is_some_and(|c| self.fmt.acodecs.contains(&c)),
            _ => true,
        };
        let must = filtered || self.w.touches_sound() || self.span.cut.is_some() || !added_fits;
        let (ac, enc) = self.audio_codec(s.acodec(), must)?;
        self.opts.extend(ac);
        let rate = s.audio.and_then(|a| a.sample_rate);
        let fo = self.audio_format_options(rate, enc)?;
        self.opts.extend(fo);
        Ok(())
    }

    /// Output options and name for parts of equal length, each its own file, starting at
    /// zero and cut on key frames forced at the part boundaries; `None` when no parts were
    /// asked for.
    pub(super) fn segment_output(&mut self) -> Planned<Option<String>> {
        if let Some(last) = self.w.split_at.last().copied() {
            let length = self.needs_duration("a split")?;
            if last >= length {
                return Err(PlanError::NoFrameAt {
                    file: self.name().into(),
                    length,
                    at: last,
                });
            }
            let times = self
                .w
                .split_at
                .iter()
                .map(|t| fmt_num(*t))
                .collect::<Vec<_>>()
                .join(",");
            if self.mode == super::Mode::Video {
                self.opts
                    .extend(["-force_key_frames".to_string(), times.clone()]);
            }
            self.opts
                .extend(Self::s(&["-f", "segment", "-segment_times"]));
            self.opts.push(times);
            self.opts.extend(Self::s(&["-reset_timestamps", "1"]));
            return Ok(Some(self.file_name(Some("_part%03d"))));
        }
        let secs = match (self.w.segment, self.w.segment_count) {
            (_, Some(n)) => {
                self.out_duration()
                    .ok_or_else(|| self.unknown_length("equal parts"))?
                    / n as f64
            }
            (Some(s), None) => s,
            (None, None) => return Ok(None),
        };
        // Copied sound is cut on packet boundaries, a little after each time: a hair more per
        // part keeps the last part from being a sliver of a few packets.
        let secs = if self.mode == super::Mode::Audio {
            secs + (secs * 0.01).min(0.05)
        } else {
            secs
        };
        let n = fmt_num((secs * 1000.0).round() / 1000.0);
        if self.mode == super::Mode::Video {
            self.opts.extend([
                "-force_key_frames".to_string(),
                format!("expr:gte(t,n_forced*{n})"),
            ]);
        }
        self.opts.extend(Self::s(&[
            "-f",
            "segment",
            "-segment_time",
            &n,
            "-reset_timestamps",
            "1",
        ]));
        Ok(Some(self.file_name(Some("_part%03d"))))
    }
}
