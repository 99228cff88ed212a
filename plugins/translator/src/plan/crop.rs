//! Cropping: the kept rectangle, computed from the picture's size when it is known (even
//! sizes for video), else as `crop` expressions.

use super::picture::Rounding;
use super::{PlanError, Planned};
use crate::filters;
use crate::intents::{Amount, Crop, Sides};
use crate::numbers::fmt_num;

/// The `crop` filter for a `dims` picture and the new size when known. `corner` places a
/// rectangle that is not tied to a side.
pub fn filter(
    crop: &Crop,
    dims: Option<(u32, u32)>,
    corner: &str,
    round: Rounding,
) -> Planned<(String, Option<(u32, u32)>)> {
    let Some((iw, ih)) = dims else {
        return Ok((expression(crop), None));
    };
    // A size larger than the picture ("crop to 1080x1920" from 1280x720) is its shape cut out
    // and brought to that size: clamped, it had answered 1080x720 (2026-12-03).
    if let Crop::Dim(cw, ch) = *crop
        && (cw > iw || ch > ih)
        && ch > 0
    {
        let shape = Crop::Aspect(f64::from(cw) / f64::from(ch));
        let (w, h, _) = rectangle(&shape, iw, ih, round)?;
        let (x, y) = filters::crop_origin(corner, iw, ih, w, h);
        return Ok((
            format!("crop={w}:{h}:{x}:{y},scale={cw}:{ch}"),
            Some((cw, ch)),
        ));
    }
    let (w, h, origin) = rectangle(crop, iw, ih, round)?;
    let (x, y) = origin.unwrap_or_else(|| filters::crop_origin(corner, iw, ih, w, h));
    Ok((format!("crop={w}:{h}:{x}:{y}"), Some((w, h))))
}

/// Width, height and, when the crop fixes it, the top-left corner.
#[allow(clippy::type_complexity)]
fn rectangle(
    crop: &Crop,
    iw: u32,
    ih: u32,
    round: Rounding,
) -> Planned<(u32, u32, Option<(u32, u32)>)> {
    let ev = |x: f64| round.px(x);
    let (fw, fh) = (iw as f64, ih as f64);
    Ok(match crop {
        Crop::Square => (ev(fw.min(fh)), ev(fw.min(fh)), None),
        Crop::Aspect(r) if fw / fh > *r => (ev(fh * r), ev(fh), None),
        Crop::Aspect(r) => (ev(fw), ev(fw / r), None),
        Crop::Dim(w, h) => (ev((*w).min(iw) as f64), ev((*h).min(ih) as f64), None),
        Crop::Edges(p) => {
            if 2 * p >= iw.min(ih) {
                return Err(PlanError::Geometry(format!(
                    "cropping {p} px from each edge leaves nothing of {iw}x{ih}"
                )));
            }
            (ev(fw - 2.0 * *p as f64), ev(fh - 2.0 * *p as f64), None)
        }
        Crop::Keep(f) => (ev(fw * f), ev(fh * f), None),
        Crop::Side(side, p) => {
            let p = *p;
            let limit = if side == "top" || side == "bottom" {
                ih
            } else {
                iw
            };
            if p >= limit {
                return Err(PlanError::Geometry(format!(
                    "cannot crop {p} px from a {iw}x{ih} picture"
                )));
            }
            let (w, h) = (ev(fw - p as f64), ev(fh - p as f64));
            match side.as_str() {
                "top" => (ev(fw), h, Some((0, ih - h))),
                "bottom" => (ev(fw), h, Some((0, 0))),
                "left" => (w, ev(fh), Some((iw - w, 0))),
                _ => (w, ev(fh), Some((0, 0))),
            }
        }
        Crop::Sides(sides, amount) => {
            let take = |on: bool, dim: f64| match (on, amount) {
                (false, _) => 0,
                (true, Amount::Px(p)) => *p,
                (true, Amount::Share(f)) => (dim * f).round() as u32,
            };
            let (t, b) = (take(sides.top, fh), take(sides.bottom, fh));
            let (l, r) = (take(sides.left, fw), take(sides.right, fw));
            if t + b + 2 > ih || l + r + 2 > iw {
                return Err(PlanError::Geometry(format!(
                    "cropping that much leaves nothing of {iw}x{ih}"
                )));
            }
            // Even sizes round the far edge in, so the named sides lose what was asked.
            let (w, h) = (ev((iw - l - r) as f64), ev((ih - t - b) as f64));
            (w, h, Some((l, t)))
        }
        Crop::Half(side) => {
            let (w, h) = (ev(fw / 2.0), ev(fh / 2.0));
            match side.as_str() {
                "top" => (ev(fw), h, Some((0, 0))),
                "bottom" => (ev(fw), h, Some((0, ih - h))),
                "left" => (w, ev(fh), Some((0, 0))),
                _ => (w, ev(fh), Some((iw - w, 0))),
            }
        }
    })
}

/// The crop as expressions of the input size, when the size is unknown.
fn expression(crop: &Crop) -> String {
    match crop {
        Crop::Square => "crop=min(iw\\,ih):min(iw\\,ih)".into(),
        Crop::Aspect(r) => format!("crop=min(iw\\,ih*{0}):min(ih\\,iw/{0})", fmt_num(*r)),
        Crop::Dim(w, h) => format!("crop={w}:{h}"),
        Crop::Edges(p) => format!("crop=iw-{0}:ih-{0}", 2 * p),
        Crop::Keep(f) => format!("crop=iw*{0}:ih*{0}", fmt_num(*f)),
        Crop::Side(side, p) => match side.as_str() {
            "top" => format!("crop=iw:ih-{p}:0:{p}"),
            "bottom" => format!("crop=iw:ih-{p}:0:0"),
            "left" => format!("crop=iw-{p}:ih:{p}:0"),
            _ => format!("crop=iw-{p}:ih:0:0"),
        },
        Crop::Sides(sides, amount) => sides_expression(sides, amount),
        Crop::Half(side) => match side.as_str() {
            "top" => "crop=iw:ih/2:0:0".into(),
            "bottom" => "crop=iw:ih/2:0:ih/2".into(),
            "left" => "crop=iw/2:ih:0:0".into(),
            _ => "crop=iw/2:ih:iw/2:0".into(),
        },
    }
}

/// `crop` with the amounts as expressions of the input size.
fn sides_expression(sides: &Sides, amount: &Amount) -> String {
    let take = |on: bool, dim: &str| match (on, amount) {
        (false, _) => "0".to_string(),
        (true, Amount::Px(p)) => p.to_string(),
        (true, Amount::Share(f)) => format!("{dim}*{}", fmt_num(*f)),
    };
    let (t, b) = (take(sides.top, "ih"), take(sides.bottom, "ih"));
    let (l, r) = (take(sides.left, "iw"), take(sides.right, "iw"));
    format!("crop=iw-{l}-{r}:ih-{t}-{b}:{l}:{t}")
}
