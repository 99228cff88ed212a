//! Repetition and added time: playing the result several times ("repeat it 4 times", "loop
//! it for 30 seconds") and padding it with held frames, colour or silence.

use super::{PlanError, Planned, Planner};
use crate::intents::{End, Fill, LoopTo};
use crate::numbers::fmt_num;

/// Frames the `loop` filter may hold (the policy's limit); longer parts loop on the input.
const MAX_LOOP_FRAMES: f64 = 1000.0;

impl Planner<'_> {
    /// Seconds of the main input used, once, before speed changes.
    fn part_length(&self) -> Option<f64> {
        let end = self.span.end.or(self.duration())?;
        let cut = self.span.cut.map_or(0.0, |(a, b)| (b - a).max(0.0));
        Some(end - self.span.start - cut)
    }

    /// How many times the part is played in all, when repeated.
    pub(super) fn plays(&self) -> Planned<Option<u32>> {
        if let Some(n) = self.w.repeat {
            return Ok(Some(n));
        }
        let Some(secs) = self.w.loop_for else {
            return Ok(None);
        };
        let once = self
            .part_length()
            .ok_or_else(|| self.unknown_length("looping"))?
            / self.w.speed.unwrap_or(1.0);
        Ok(Some((secs / once).ceil().max(1.0) as u32))
    }

    pub(super) fn trimmed(&self) -> bool {
        self.span.start > 0.0 || self.span.end.is_some() || self.span.cut.is_some()
    }

    /// `-stream_loop` for the main input when the whole of it repeats. A trimmed part cannot
    /// loop this way (the input's `-t` bounds all the loops together), so it loops in filters.
    pub(super) fn loop_input_options(&mut self) -> Planned<Vec<String>> {
        if self.w.loop_to == Some(LoopTo::Picture) {
            // Bounded by the sound: `-shortest` (`joins::replace_audio`).
            self.tag("looped");
            return Ok(Self::s(&["-stream_loop", "-1"]));
        }
        let Some(n) = self.plays()? else {
            return Ok(Vec::new());
        };
        self.tag(format!("x{n}"));
        if self.trimmed() || n < 2 {
            return Ok(Vec::new());
        }
        Ok(vec!["-stream_loop".into(), (n - 1).to_string()])
    }

    /// `loop`/`aloop` for a trimmed part played several times.
    pub(super) fn loop_filter(&self, audio: bool) -> Planned<Option<String>> {
        let Some(n) = self.plays()?.filter(|n| *n >= 2 && self.trimmed()) else {
            return Ok(None);
        };
        let secs = self.part_length().unwrap_or(0.0) / self.w.speed.unwrap_or(1.0);
        if audio {
            let rate = self.main.audio.and_then(|a| a.sample_rate).unwrap_or(48000);
            let samples = (secs * rate as f64).ceil() as u64;
            return Ok(Some(format!(
                "aloop=loop={}:size={samples},asetpts=N/SR/TB",
                n - 1
            )));
        }
        let frames = (secs * self.main.fps().unwrap_or(30.0)).ceil();
        if frames > MAX_LOOP_FRAMES {
            return Err(PlanError::NotSupported(
                "repeating a part that long is not supported; repeat the whole file, or cut it first",
            ));
        }
        Ok(Some(format!(
            "loop=loop={}:size={frames}:start=0,setpts=N/FRAME_RATE/TB",
            n - 1
        )))
    }

    /// Input options of a sound that repeats until the picture ends (bounded by the main
    /// input: `-shortest`, or `amix`'s `duration=first`).
    pub(super) fn looped_sound_options(&mut self) -> Vec<String> {
        if self.w.loop_to != Some(LoopTo::Sound) {
            return Vec::new();
        }
        self.tag("looped");
        Self::s(&["-stream_loop", "-1"])
    }

    /// `-t` for an output looped for a given time.
    pub(super) fn loop_output_options(&self) -> Vec<String> {
        match self.w.loop_for {
            Some(secs) => vec!["-t".into(), fmt_num(secs)],
            None => Vec::new(),
        }
    }

    /// `tpad` for time added to the picture: the first or last frame held, or colour.
    pub(super) fn extend_picture(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        for (at, secs, fill) in self.w.extends.clone() {
            self.tag("extended");
            let side = if at == End::Start { "start" } else { "stop" };
            let mode = match &fill {
                Fill::Hold => format!("{side}_mode=clone"),
                Fill::Color(c) => format!("{side}_mode=add:color={c}"),
            };
            out.push(format!("tpad={side}_duration={}:{mode}", fmt_num(secs)));
        }
        out
    }

    /// Silence for time added to the sound: `adelay` before, `apad` after.
    pub(super) fn extend_sound(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        for (at, secs, _) in self.w.extends.clone() {
            self.tag("extended");
            out.push(match at {
                End::Start => format!("adelay=delays={}:all=1", (secs * 1000.0).round()),
                End::End => format!("apad=pad_dur={}", fmt_num(secs)),
            });
        }
        out
    }
}
