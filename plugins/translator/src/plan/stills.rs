//! Outputs that are pictures: thumbnails, frame sequences, contact sheets, GIFs, and a
//! picture made from a picture.

use super::choose::Join;
use super::{GIF_FPS, GIF_SMOOTH_FPS, GIF_WIDTH, PlanError, Planned, Planner};
use crate::formats;
use crate::intents::{Frames, Thumb};
use crate::numbers::fmt_num;

impl Planner<'_> {
    pub(super) fn still_time(&self, thumb: &Thumb) -> Planned<f64> {
        let d = self.duration();
        let t = match thumb {
            Thumb::At(t) => *t,
            Thumb::First => 0.0,
            // The picture's own end less a frame and a half: the seek then decodes to the last
            // frame itself; half a second before the file's end had been a frame 15 from it
            // (2026-11-30, sixteenth pass).
            Thumb::Last => {
                let end = match self.main.video.and_then(|v| v.duration) {
                    Some(e) if e > 0.0 => e,
                    _ => self.needs_duration("the last frame")?,
                };
                let back = self.main.fps().map_or(0.5, |fps| 1.5 / fps);
                (end - back).max(0.0)
            }
            Thumb::Middle => self.needs_duration("the middle frame")? / 2.0,
            // A frame number is a time at the input's own frame rate.
            Thumb::Frame(n) => {
                let fps = self
                    .main
                    .fps()
                    .ok_or_else(|| PlanError::UnknownFrameRate(self.name().into()))?;
                *n as f64 / fps
            }
            Thumb::Default => self
                .w
                .at
                .or(self.w.loose_time)
                .or(d.map(|d| d / 2.0))
                .unwrap_or(0.0),
        };
        if let Some(d) = d
            && t >= d
        {
            return Err(PlanError::NoFrameAt {
                file: self.name().into(),
                length: d,
                at: t,
            });
        }
        Ok(t)
    }

    pub(super) fn build_frames(&mut self) -> Planned<String> {
        let ext = self.fmt.ext;
        let jpeg = ext == "jpg";
        // "1 frame per second as png": a frame rate asked of pictures is how many to take.
        let frames = self.w.frames.clone().or(match (&self.w.thumb, self.w.fps) {
            (None, Some(r)) => Some(Frames::Rate(r)),
            _ => None,
        });
        // A thumbnail at a named time wins; "a grid of thumbnails" is frames.
        let thumb = match (&self.w.thumb, &frames) {
            // "one still (1 picture) at 4.5 s": one picture is a thumbnail, at its time.
            (Some(Thumb::Default), Some(Frames::Count(1))) => Some(Thumb::Default),
            (Some(Thumb::Default), Some(_)) => None,
            (Some(t), _) => Some(t.clone()),
            (None, None) => Some(Thumb::Default),
            (None, Some(_)) => None,
        };
        let mut chain = self.picture_chain(false)?;
        let segment = self
            .span
            .end
            .or(self.duration())
            .map(|e| e - self.span.start);
        let (file, single) = match (&thumb, &frames) {
            (Some(t), _) => {
                let at = self.still_time(t)?;
                let mut opts = Vec::new();
                if at > 0.0 {
                    opts = vec!["-ss".to_string(), fmt_num(at)];
                }
                self.add_input(self.main, opts);
                (self.file_name(Some("_thumb")), true)
            }
            (None, Some(f)) => {
                // A time said beside several pictures is neither their span nor their
                // spacing: taking them from the whole file would drop it (2026-11-30).
                if self.w.loose_time.is_some() || self.w.at.is_some() {
                    return Err(PlanError::NotSupported(
                        "a time was named beside several pictures; say \"a picture at 5 s\", \"a picture every 5 s\" or \"pictures from 0:05 to 0:10\"",
                    ));
                }
                let opts = self.trim_options();
                self.add_input(self.main, opts);
                match f {
                    Frames::Every(secs) => chain.push(format!("fps=1/{}", fmt_num(*secs))),
                    Frames::Rate(r) => chain.push(format!("fps={}", fmt_num(*r))),
                    Frames::Nth(n) => match self.main.fps() {
                        Some(r) => chain.push(format!("fps={}", fmt_num(r / *n as f64))),
                        None => chain.push(format!("select=not(mod(n\\,{n}))")),
                    },
                    Frames::Count(n) => {
                        let secs = segment.ok_or_else(|| self.unknown_length("spacing frames"))?;
                        chain.push(format!("fps={n}/{}", fmt_num(secs)));
                        self.opts.extend(["-frames:v".to_string(), n.to_string()]);
                    }
                    Frames::Head(n) => self.opts.extend(["-frames:v".to_string(), n.to_string()]),
                    Frames::All => {}
                    Frames::Tile(c, r) => {
                        let secs = segment.ok_or_else(|| self.unknown_length("a contact sheet"))?;
                        chain.push(format!("fps={}/{}", c * r, fmt_num(secs)));
                        chain.push("scale=320:-2".into());
                        chain.push(format!("tile={c}x{r}"));
                    }
                }
                match f {
                    Frames::Tile(..) => (self.file_name(Some("_sheet")), true),
                    Frames::All | Frames::Head(_) => (self.file_name(Some("_%04d")), false),
                    _ => (self.file_name(Some("_%03d")), false),
                }
            }
            (None, None) => unreachable!("a thumbnail is the default"),
        };
        if !chain.is_empty() {
            self.opts.extend(["-vf".to_string(), chain.join(",")]);
        }
        if single {
            self.opts
                .extend(Self::s(formats::single_picture_options(self.fmt)));
        }
        if jpeg {
            self.opts.extend(Self::s(&["-q:v", "2"]));
        }
        Ok(file)
    }

    pub(super) fn build_gif(&mut self) -> Planned<String> {
        if matches!(
            self.join,
            Join::Overlay(_) | Join::Stack(..) | Join::Concat(_)
        ) {
            // Joined inputs go through the video graph; only the palette tail differs.
            return Err(PlanError::NotSupported(
                "making a GIF of several inputs at once is not supported; make the video first",
            ));
        }
        let mut opts = self.trim_options();
        opts.extend(self.loop_input_options()?);
        self.add_input(self.main, opts);
        self.opts.extend(self.loop_output_options());
        let (vcut, _) = self.cut_filters();
        let mut chain: Vec<String> = vcut.into_iter().collect();
        chain.extend(self.picture_chain(false)?);
        chain.extend(self.video_timing()?);
        if self.w.fps.is_none() && self.w.fps_factor.is_none() {
            let most = if self.w.gif_smooth {
                GIF_SMOOTH_FPS
            } else {
                GIF_FPS
            };
            let rate = self.main.fps().map_or(most, |r| r.min(most));
            chain.push(format!("fps={}", fmt_num(rate)));
        }
        // "the same size": the GIF keeps the picture's (it had been made 480 wide).
        if self.w.resize.is_none()
            && !self.w.keep_size
            && self.main.dims().is_none_or(|(w, _)| w > GIF_WIDTH)
            && self.w.crop.is_none()
        {
            chain.push(format!("scale={GIF_WIDTH}:-1:flags=lanczos"));
        }
        let anim = formats::animation(self.fmt.key).ok_or(PlanError::NoEncoder("animation"))?;
        if anim.palette {
            // One palette for the whole clip: far better colours than the default.
            chain.push("split[s0][s1];[s0]palettegen[p];[s1][p]paletteuse".into());
        }
        self.opts.extend(["-vf".to_string(), chain.join(",")]);
        self.opts.extend(Self::s(anim.options));
        self.opts.push("-an".into());
        Ok(self.file_name(None))
    }

    pub(super) fn build_still(&mut self) -> Planned<String> {
        self.add_input(self.main, Vec::new());
        let chain = self.picture_chain(false)?;
        if !chain.is_empty() {
            self.opts.extend(["-vf".to_string(), chain.join(",")]);
        }
        self.opts
            .extend(Self::s(formats::single_picture_options(self.fmt)));
        if self.fmt.ext == "jpg" {
            self.opts.extend(Self::s(&["-q:v", "2"]));
        }
        Ok(self.file_name(None))
    }
}
