//! Small builders for the filter strings the plan emits, with the arithmetic that keeps
//! sizes even (yuv420p encoders need even width and height).

use crate::numbers::fmt_num;

/// Rounds down to an even number, at least 2.
pub fn even(x: f64) -> u32 {
    (((x / 2.0).floor() as i64).max(1) * 2) as u32
}

/// `atempo` takes 0.5..=2.0 per instance (ffmpeg 5.1 allows up to 100, but chaining keeps
/// quality); larger or smaller factors are chained.
pub fn atempo_chain(speed: f64) -> Vec<String> {
    let mut out = Vec::new();
    let mut f = speed;
    while f > 2.0 {
        out.push("atempo=2".to_string());
        f /= 2.0;
    }
    while f < 0.5 {
        out.push("atempo=0.5".to_string());
        f /= 0.5;
    }
    if (f - 1.0).abs() > 1e-6 {
        out.push(format!("atempo={}", fmt_num(f)));
    }
    out
}

pub fn setpts(speed: f64) -> String {
    format!("setpts=PTS/{}", fmt_num(speed))
}

/// Clockwise rotation by a multiple of 90 degrees with `transpose`, otherwise `rotate`.
pub fn rotation(deg: i32) -> Vec<String> {
    match deg.rem_euclid(360) {
        0 => vec![],
        90 => vec!["transpose=1".into()],
        180 => vec!["hflip".into(), "vflip".into()],
        270 => vec!["transpose=2".into()],
        d => vec![format!("rotate={d}*PI/180")],
    }
}

/// x:y expressions placing a `w`×`h` box at a named position inside `W`×`H`, `m` from the
/// edges (overlay's names: W, H, w, h).
pub fn position(corner: &str, m: u32) -> (String, String) {
    let (x, y) = match corner {
        "top-left" => ("M", "M"),
        "top-right" => ("W-w-M", "M"),
        "bottom-left" => ("M", "H-h-M"),
        "center" => ("(W-w)/2", "(H-h)/2"),
        "top" => ("(W-w)/2", "M"),
        "bottom" => ("(W-w)/2", "H-h-M"),
        "left" => ("M", "(H-h)/2"),
        "right" => ("W-w-M", "(H-h)/2"),
        _ => ("W-w-M", "H-h-M"),
    };
    (
        x.replace('M', &m.to_string()),
        y.replace('M', &m.to_string()),
    )
}

/// The top-left corner of a `w`×`h` crop at a named position in `iw`×`ih` pixels.
pub fn crop_origin(corner: &str, iw: u32, ih: u32, w: u32, h: u32) -> (u32, u32) {
    let (dx, dy) = (iw.saturating_sub(w), ih.saturating_sub(h));
    match corner {
        "top-left" => (0, 0),
        "top-right" => (dx, 0),
        "bottom-left" => (0, dy),
        "bottom-right" => (dx, dy),
        "top" => (dx / 2, 0),
        "bottom" => (dx / 2, dy),
        "left" => (0, dy / 2),
        "right" => (dx, dy / 2),
        _ => (dx / 2, dy / 2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atempo_chains_outside_half_to_double() {
        assert_eq!(atempo_chain(2.0), vec!["atempo=2"]);
        assert_eq!(atempo_chain(4.0), vec!["atempo=2", "atempo=2"]);
        assert_eq!(atempo_chain(0.25), vec!["atempo=0.5", "atempo=0.5"]);
        assert_eq!(atempo_chain(1.5), vec!["atempo=1.5"]);
        assert_eq!(atempo_chain(3.0), vec!["atempo=2", "atempo=1.5"]);
    }

    #[test]
    fn evens() {
        assert_eq!(even(47.9), 46);
        assert_eq!(even(48.0), 48);
        assert_eq!(even(0.5), 2);
    }

    #[test]
    fn positions() {
        assert_eq!(position("top-right", 10), ("W-w-10".into(), "10".into()));
        assert_eq!(crop_origin("center", 1280, 720, 720, 720), (280, 0));
    }
}
