//! The filters that work on time: cutting a stretch out, frame rate, speed, reverse, fades.

use super::{PlanError, Planned, Planner};
use crate::filters;
use crate::intents::FadeKind;
use crate::numbers::fmt_num;

impl Planner<'_> {
    /// Cutting out a stretch: first in the chain, before timestamps change.
    pub(super) fn cut_filters(&self) -> (Option<String>, Option<String>) {
        match self.span.cut {
            Some((a, b)) => {
                let (a, b) = (
                    (a - self.span.start).max(0.0),
                    (b - self.span.start).max(0.0),
                );
                let between = format!("not(between(t\\,{}\\,{}))", fmt_num(a), fmt_num(b));
                (
                    Some(format!("select={between},setpts=N/FRAME_RATE/TB")),
                    Some(format!("aselect={between},asetpts=N/SR/TB")),
                )
            }
            None => (None, None),
        }
    }

    /// Frame rate, speed, reverse, repeats, added time and fades: the filters that work on
    /// time.
    pub(super) fn video_timing(&mut self) -> Planned<Vec<String>> {
        let mut chain = Vec::new();
        let rate = match (self.w.fps, self.w.fps_factor) {
            (Some(f), _) => Some(f),
            (None, Some(k)) => Some(
                self.main
                    .fps()
                    .ok_or_else(|| PlanError::UnknownFrameRate(self.name().into()))?
                    * k,
            ),
            _ => None,
        };
        if let Some(r) = rate {
            self.tag(format!("{}fps", fmt_num(r)));
            chain.push(format!("fps={}", fmt_num(r)));
        }
        if let Some(s) = self.w.speed {
            self.tag(format!("{}x", fmt_num(s)));
            chain.push(filters::setpts(s));
        }
        if self.w.reverse_picture {
            self.tag("reversed");
            chain.push(format!("trim=duration={}", self.reverse_bound()?));
            chain.push("reverse".into());
        }
        chain.extend(self.loop_filter(false)?);
        chain.extend(self.extend_picture());
        chain.extend(self.fades(false)?);
        Ok(chain)
    }

    /// `reverse` holds its whole input in memory, so the default policy wants it bounded: the
    /// input's length (stretched by a slow-down), with a second to spare.
    pub(super) fn reverse_bound(&self) -> Planned<String> {
        let length = self
            .main
            .duration()
            .ok_or_else(|| PlanError::UnknownLength {
                what: "reversing".into(),
                file: self.name().into(),
            })?;
        let stretch = self.w.speed.map_or(1.0, |s| (1.0 / s).max(1.0));
        Ok(fmt_num((length * stretch).ceil() + 1.0))
    }

    pub(super) fn fades(&mut self, audio: bool) -> Planned<Vec<String>> {
        let mut out = Vec::new();
        let name = if audio { "afade" } else { "fade" };
        for (kind, secs, audio_only) in self.w.fades.clone() {
            if audio_only && !audio {
                continue;
            }
            let total = self.out_duration();
            let d = secs
                .unwrap_or(1.0)
                .min(total.map_or(f64::MAX, |t| t / 2.0))
                .max(0.1);
            // From or to the colour named ("fade to white"); black when none is.
            let color = match self.w.fade_color.as_deref() {
                Some(c) if !audio && c != "black" => format!(":color={c}"),
                _ => String::new(),
            };
            if matches!(kind, FadeKind::In | FadeKind::Both) {
                out.push(format!("{name}=t=in:st=0:d={}{color}", fmt_num(d)));
            }
            if matches!(kind, FadeKind::Out | FadeKind::Both) {
                let total = total.ok_or_else(|| self.unknown_length("fading out"))?;
                out.push(format!(
                    "{name}=t=out:st={}:d={}{color}",
                    fmt_num((total - d).max(0.0)),
                    fmt_num(d)
                ));
            }
            self.tag("faded");
        }
        Ok(out)
    }
}
