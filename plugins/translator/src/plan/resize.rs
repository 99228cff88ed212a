//! Resizing: a `scale` filter with exact numbers when the picture's size is known.

use super::picture::Rounding;
use crate::intents::Resize;
use crate::numbers::fmt_num;

/// A resize as a `scale` filter, a word for the output name, and the new size if known.
pub fn filter(
    r: &Resize,
    dims: Option<(u32, u32)>,
    keep_aspect: bool,
    round: Rounding,
) -> (String, String, Option<(u32, u32)>) {
    let ev = |x: f64| round.px(x);
    // Pictures (not video) are scaled with lanczos; video keeps the encoder-friendly default.
    let auto = if round.even { "-2" } else { "-1" };
    let flags = if round.even { "" } else { ":flags=lanczos" };
    match (r, dims) {
        (Resize::Short(h), Some((iw, ih))) if ih > iw => {
            let w = ev(*h as f64);
            let nh = ev(ih as f64 * w as f64 / iw as f64);
            (
                format!("scale={w}:{nh}{flags}"),
                format!("{h}p"),
                Some((w, nh)),
            )
        }
        (Resize::Short(h) | Resize::Height(h), Some((iw, ih))) => {
            let h2 = ev(*h as f64);
            let w = ev(iw as f64 * h2 as f64 / ih as f64);
            let tag = if matches!(r, Resize::Short(_)) {
                format!("{h}p")
            } else {
                format!("{h}h")
            };
            (format!("scale={w}:{h2}{flags}"), tag, Some((w, h2)))
        }
        (Resize::Short(h) | Resize::Height(h), None) => (
            format!("scale={auto}:{}{flags}", ev(*h as f64)),
            format!("{h}p"),
            None,
        ),
        (Resize::Width(w), Some((iw, ih))) => {
            let w2 = ev(*w as f64);
            let h = ev(ih as f64 * w2 as f64 / iw as f64);
            (
                format!("scale={w2}:{h}{flags}"),
                format!("{w}w"),
                Some((w2, h)),
            )
        }
        (Resize::Width(w), None) => (
            format!("scale={}:{auto}{flags}", ev(*w as f64)),
            format!("{w}w"),
            None,
        ),
        (Resize::Dim(w, h), Some((iw, ih))) if keep_aspect => {
            let s = (*w as f64 / iw as f64).min(*h as f64 / ih as f64);
            let (nw, nh) = (ev(iw as f64 * s), ev(ih as f64 * s));
            (
                format!("scale={nw}:{nh}{flags}"),
                format!("{w}x{h}"),
                Some((nw, nh)),
            )
        }
        (Resize::Dim(w, h), _) => {
            let (nw, nh) = (ev(*w as f64), ev(*h as f64));
            (
                format!("scale={nw}:{nh}{flags}"),
                format!("{w}x{h}"),
                Some((nw, nh)),
            )
        }
        (Resize::Factor(f), Some((iw, ih))) => {
            let (nw, nh) = (ev(iw as f64 * f), ev(ih as f64 * f));
            let tag = if *f < 1.0 { "smaller" } else { "larger" };
            (
                format!("scale={nw}:{nh}{flags}"),
                tag.into(),
                Some((nw, nh)),
            )
        }
        (Resize::Factor(f), None) => {
            let tag = if *f < 1.0 { "smaller" } else { "larger" };
            let f = fmt_num(*f);
            (
                format!("scale=trunc(iw*{f}/2)*2:trunc(ih*{f}/2)*2{flags}"),
                tag.into(),
                None,
            )
        }
    }
}
