//! The picture chain: crop, rotate, flip, resize, pad and effects, in that order, following
//! the picture's size so later steps can use exact numbers.

use super::choose::Mode;
use super::{PlanError, Planned, Planner, crop, pad, resize};
use crate::filters::{self, even};
use crate::intents::{Crop, Pad, Resize, Strength};
use crate::media::Kind;

/// Why a blurred fill was refused.
const BLUR_FILL_NEEDS: &str = "a blurred background fills padding: it needs a shape to fill \
    (an aspect ratio such as 9:16, or a square) and the picture's size";

/// How computed sizes are rounded: even for yuv420p encoders, else to the nearest pixel.
#[derive(Clone, Copy)]
pub struct Rounding {
    pub even: bool,
}

impl Rounding {
    pub fn px(self, x: f64) -> u32 {
        if self.even {
            even(x)
        } else {
            (x.round() as u32).max(1)
        }
    }
}

/// How far apart two shapes (width over height) may be and still be one: 854x480 is 16:9.
const SAME_SHAPE: f64 = 0.02;

/// Sizes the arithmetic could not follow are made even at the end.
const EVEN_UP: &str = "scale=trunc(iw/2)*2:trunc(ih/2)*2";

impl Planner<'_> {
    /// A `w`×`h` area at the corner said, blurred over the picture: the picture split, the
    /// area cropped and blurred, laid back where it was.
    fn blur_region(&mut self, w: u32, h: u32, dims: Option<(u32, u32)>) -> Planned<String> {
        let corner = self.w.corner.clone().ok_or(PlanError::NotSupported(
            "it does not say where the area to blur is (top left, bottom right, ...)",
        ))?;
        let (iw, ih) = dims.ok_or_else(|| {
            PlanError::Geometry(format!("the picture size of {} is unknown", self.name()))
        })?;
        if w > iw || h > ih {
            return Err(PlanError::Geometry(format!(
                "a {w}x{h} area does not fit in the {iw}x{ih} picture"
            )));
        }
        let (x, y) = filters::crop_origin(&corner, iw, ih, w, h);
        self.tag("blurred");
        Ok(format!(
            "split[rb0][rb1];[rb1]crop={w}:{h}:{x}:{y},gblur=sigma=20[rb2];[rb0][rb2]overlay={x}:{y}"
        ))
    }

    /// The picture filters; `even_sizes` keeps sizes even for yuv420p encoders.
    pub(super) fn picture_chain(&mut self, even_sizes: bool) -> Planned<Vec<String>> {
        let round = Rounding { even: even_sizes };
        let mut chain = Vec::new();
        let mut dims = self.main.dims();
        // First, while the sizes are the input's own, which is what the area is said in.
        if let Some((w, h)) = self.w.blur_region {
            chain.push(self.blur_region(w, h, dims)?);
        }
        if let Some(c) = self.w.crop.clone() {
            self.tag(if c == Crop::Square {
                "square"
            } else {
                "cropped"
            });
            let corner = self.w.corner.as_deref().unwrap_or("center");
            let (filter, new) = crop::filter(&c, dims, corner, round)?;
            chain.push(filter);
            dims = new;
        }
        if self.w.rotate != 0 {
            self.tag("rotated");
            chain.extend(filters::rotation(self.w.rotate));
            if self.w.rotate % 180 == 90 {
                dims = dims.map(|(w, h)| (h, w));
            }
        }
        // The orientation said as the turn's result (`Wants::orientation`).
        match (self.w.orientation, dims) {
            (Some(portrait), Some((w, h))) if (h > w) != portrait => {
                return Err(PlanError::NotSupported(
                    "the turn asked for does not give the picture the orientation (portrait or landscape) asked for",
                ));
            }
            (Some(_), None) => {
                return Err(PlanError::NotSupported(
                    "whether the turn gives the orientation asked for needs the picture's size, which is unknown",
                ));
            }
            _ => {}
        }
        if self.w.hflip {
            self.tag("flipped");
            chain.push("hflip".into());
        }
        if self.w.vflip {
            self.tag("flipped");
            chain.push("vflip".into());
        }
        let fitted = self.fitted(dims);
        let resize = match fitted {
            Some(_) => None,
            None => self.w.resize.clone().or_else(|| self.compress_resize(dims)),
        };
        if let Some(r) = resize {
            // "640x480 but don't upscale" is a bound, as "at most 640x480" is: fitted inside.
            let keep_aspect = self.w.keep_aspect || (self.w.no_upscale && !self.w.stretch);
            let (filter, tag, new) = resize::filter(&r, dims, keep_aspect, round);
            // "720p, but don't upscale": a size that would not make the picture smaller is
            // left out; unknown sizes cannot be compared, so that is refused.
            let enlarges = match (dims, new) {
                (Some((iw, ih)), Some((nw, nh))) => nw >= iw && nh >= ih,
                _ if self.w.no_upscale => {
                    return Err(PlanError::NotSupported(
                        "\"don't upscale\" needs the picture's size, which is unknown",
                    ));
                }
                _ => false,
            };
            if !(self.w.no_upscale && enlarges) {
                self.tag(tag);
                chain.push(filter);
                dims = new;
            }
        }
        if let Some(p) = self.w.pad.clone().or(fitted) {
            self.tag(match p {
                Pad::Border(_) => "border".to_string(),
                Pad::Dim(w, h) if self.w.pad.is_none() => format!("{w}x{h}"),
                _ => "padded".to_string(),
            });
            let color = self.w.color.as_deref().unwrap_or("black");
            let (filters, new) = if self.w.blur_fill {
                pad::blurred(&p, dims, round).ok_or(PlanError::NotSupported(BLUR_FILL_NEEDS))?
            } else {
                pad::filters(&p, dims, color, round)
            };
            chain.extend(filters);
            dims = new;
        }
        if self.w.blur_fill && self.w.pad.is_none() {
            return Err(PlanError::NotSupported(BLUR_FILL_NEEDS));
        }
        chain.extend(self.effects());
        if even_sizes && dims.is_none() && !chain.is_empty() {
            chain.push(EVEN_UP.into());
        }
        if even_sizes && self.main.kind == Kind::Still && chain.is_empty() {
            let odd = self
                .main
                .dims()
                .is_none_or(|(w, h)| w % 2 == 1 || h % 2 == 1);
            if odd {
                chain.push(EVEN_UP.into());
            }
        }
        Ok(chain)
    }

    /// "resize to 200x200", "make it 1080x1920" of a 16:9 picture: a size of another shape
    /// said with no way of reaching it is reached by fitting the whole picture in and padding
    /// the rest, as a pad to that size; scaling straight to it had squashed the picture, which
    /// only "stretch it" asks for (2026-11-30, seventeenth pass). Of an unknown shape, the pad
    /// too: it is a plain scale when the shapes agree.
    fn fitted(&self, dims: Option<(u32, u32)>) -> Option<Pad> {
        let Some(Resize::Dim(fw, fh)) = self.w.resize else {
            return None;
        };
        if self.w.keep_aspect || self.w.stretch || self.w.no_upscale || self.w.pad.is_some() {
            return None;
        }
        let same_shape = dims.is_some_and(|(w, h)| {
            let (said, own) = (fw as f64 / fh as f64, w as f64 / h as f64);
            (said / own - 1.0).abs() < SAME_SHAPE
        });
        (!same_shape).then_some(Pad::Dim(fw, fh))
    }

    /// A lower resolution when compressing a large picture (the shorter side past 1080,
    /// past 720 when compressing hard): most of a file's size goes on pixels.
    fn compress_resize(&self, dims: Option<(u32, u32)>) -> Option<Resize> {
        if self.w.keep_size {
            return None;
        }
        let limit = match self.w.compress? {
            Strength::Strong => 720,
            _ => 1080,
        };
        let (w, h) = dims?;
        (w.min(h) > limit && self.mode == Mode::Video).then_some(Resize::Short(limit))
    }

    /// Colour and look: greyscale, denoise and the grammar's plain filters.
    fn effects(&mut self) -> Vec<String> {
        let mut chain = Vec::new();
        if self.w.grayscale {
            self.tag("bw");
            chain.push("hue=s=0".into());
        }
        if self.w.denoise {
            self.tag("denoised");
            chain.push("hqdn3d".into());
        }
        for f in self.w.vfilters.clone() {
            let name = f.split(['=', ':']).next().unwrap_or("fx").to_string();
            self.tag(match name.as_str() {
                "colorchannelmixer" => "sepia",
                "eq" => "adjusted",
                "gblur" => "blurred",
                "unsharp" => "sharpened",
                "negate" => "inverted",
                "yadif" => "deinterlaced",
                "deshake" => "stabilized",
                other => other,
            });
            chain.push(f);
        }
        chain
    }
}
