//! Padding: to an aspect ratio, a size or a square (centred), or a border all round.

use super::picture::Rounding;
use crate::intents::Pad;
use crate::numbers::fmt_num;

const CENTRED: &str = "(ow-iw)/2:(oh-ih)/2";

/// The filters for a pad of a `dims` picture, and the new size when known.
pub fn filters(
    pad: &Pad,
    dims: Option<(u32, u32)>,
    color: &str,
    round: Rounding,
) -> (Vec<String>, Option<(u32, u32)>) {
    let ev = |x: f64| round.px(x);
    let centred = |w: &dyn std::fmt::Display, h: &dyn std::fmt::Display| {
        format!("pad={w}:{h}:{CENTRED}:color={color}")
    };
    match (pad, dims) {
        (Pad::Aspect(r), Some((iw, ih))) => {
            let (fw, fh) = (iw as f64, ih as f64);
            let (w, h) = if fw / fh < *r {
                (ev(fh * r).max(iw), ih)
            } else {
                (iw, ev(fw / r).max(ih))
            };
            (vec![centred(&w, &h)], Some((w, h)))
        }
        (Pad::Aspect(r), None) => {
            let r = fmt_num(*r);
            (
                vec![centred(
                    &format!("max(iw\\,ih*{r})"),
                    &format!("max(ih\\,iw/{r})"),
                )],
                None,
            )
        }
        (Pad::Dim(w, h), _) => {
            let (w, h) = (ev(*w as f64), ev(*h as f64));
            (
                vec![
                    format!("scale={w}:{h}:force_original_aspect_ratio=decrease"),
                    centred(&w, &h),
                ],
                Some((w, h)),
            )
        }
        (Pad::Square, Some((iw, ih))) => {
            let s = ev(iw.max(ih) as f64);
            (vec![centred(&s, &s)], Some((s, s)))
        }
        (Pad::Square, None) => (vec![centred(&"max(iw\\,ih)", &"max(iw\\,ih)")], None),
        // With the size known, numbers: the policy judges `iw+…` against the largest input.
        (Pad::Border(p), Some((w, h))) => (
            vec![format!(
                "pad={}:{}:{p}:{p}:color={color}",
                w + 2 * p,
                h + 2 * p
            )],
            Some((w + 2 * p, h + 2 * p)),
        ),
        (Pad::Border(p), None) => (
            vec![format!("pad=iw+{0}:ih+{0}:{p}:{p}:color={color}", 2 * p)],
            None,
        ),
    }
}

/// A pad to an aspect ratio or a square whose padding is the picture itself, scaled to cover
/// the new frame and blurred, with the picture centred on it (the vertical-video "blurred
/// background"), or to a frame of a given size. `None` without the picture's size (for an
/// aspect or a square) or for a border.
pub fn blurred(
    pad: &Pad,
    dims: Option<(u32, u32)>,
    round: Rounding,
) -> Option<(Vec<String>, Option<(u32, u32)>)> {
    let ev = |x: f64| round.px(x);
    // A frame of a size named ("1080x1920 with a blurred background"): the picture fitted
    // inside it, over its blurred copy covering it; no input size needed.
    if let Pad::Dim(w, h) = pad {
        let (w, h) = (ev(*w as f64), ev(*h as f64));
        let graph = format!(
            "split[mf_bg][mf_fg];[mf_bg]scale={w}:{h}:force_original_aspect_ratio=increase,\
             crop={w}:{h},gblur=sigma=20[mf_blur];\
             [mf_fg]scale={w}:{h}:force_original_aspect_ratio=decrease[mf_fit];\
             [mf_blur][mf_fit]overlay=(W-w)/2:(H-h)/2"
        );
        return Some((vec![graph], Some((w, h))));
    }
    let (iw, ih) = dims?;
    let (fw, fh) = (iw as f64, ih as f64);
    let (w, h) = match pad {
        Pad::Aspect(r) if fw / fh < *r => (ev(fh * r).max(iw), ih),
        Pad::Aspect(r) => (iw, ev(fw / r).max(ih)),
        Pad::Square => {
            let s = ev(iw.max(ih) as f64);
            (s, s)
        }
        _ => return None,
    };
    let graph = format!(
        "split[mf_bg][mf_fg];[mf_bg]scale={w}:{h}:force_original_aspect_ratio=increase,\
         crop={w}:{h},gblur=sigma=20[mf_blur];[mf_blur][mf_fg]overlay=(W-w)/2:(H-h)/2"
    );
    Some((vec![graph], Some((w, h))))
}
