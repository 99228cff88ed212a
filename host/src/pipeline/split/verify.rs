//! The stitch check: a split encode's output is registered only when it has the frames the
//! whole run would have made (the input's: the builder splits no frame-rate change or trim),
//! lasts as long as the input's video within one frame, has timestamps that only go up, and
//! keeps audio and video together within `AV_TOLERANCE_S` of how the input has them.
//! Anything else fails the task (`AppError::SplitCheck`), never a silently broken file.

use super::facts::Facts;

/// How far audio and video may drift apart: about a lip-sync error viewers notice.
pub const AV_TOLERANCE_S: f64 = 0.040;

/// `Ok` when `output` is what the whole run of `input` would give; the first failed check
/// otherwise, in words.
pub fn check(input: &Facts, output: &Facts, with_audio: bool) -> Result<(), String> {
    let inv = input.video.as_ref().ok_or("the input has no video")?;
    let out = output.video.as_ref().ok_or("the output has no video")?;
    if out.frames != inv.frames {
        return Err(format!(
            "it has {} video frames where the whole run makes {}",
            out.frames, inv.frames
        ));
    }
    let frame_s = inv.duration() / inv.frames.max(1) as f64;
    let drift = (out.duration() - inv.duration()).abs();
    if drift > frame_s + 1e-3 {
        return Err(format!(
            "its video lasts {:.3} s where the input's lasts {:.3} s (more than one frame apart)",
            out.duration(),
            inv.duration()
        ));
    }
    if !out.monotonic {
        return Err("its video timestamps go back".into());
    }
    if !with_audio {
        return Ok(());
    }
    let (Some(ina), Some(outa)) = (&input.audio, &output.audio) else {
        return Err("its audio is missing".into());
    };
    if !outa.monotonic {
        return Err("its audio timestamps go back".into());
    }
    let gap_in = inv.end - ina.end;
    let gap_out = out.end - outa.end;
    if (gap_out - gap_in).abs() > AV_TOLERANCE_S {
        return Err(format!(
            "its audio and video end {:.3} s apart where the input's end {:.3} s apart (more than {} ms off)",
            gap_out,
            gap_in,
            (AV_TOLERANCE_S * 1000.0) as u32
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::facts::Track;
    use super::*;

    fn track(frames: u64, end: f64) -> Track {
        Track {
            frames,
            start: 0.0,
            end,
            monotonic: true,
            keyframes: vec![0.0],
        }
    }

    fn facts(v: Track, a: Option<Track>) -> Facts {
        Facts {
            video: Some(v),
            audio: a,
        }
    }

    #[test]
    fn each_check_fails_alone() {
        let input = facts(track(1800, 60.0), Some(track(2813, 60.0)));
        let good = facts(track(1800, 60.0), Some(track(2814, 60.02)));
        assert_eq!(check(&input, &good, true), Ok(()));
        let mut back = good.clone();
        back.video.as_mut().unwrap().monotonic = false;
        let rows = [
            (
                facts(track(1799, 59.966), Some(track(2814, 60.0))),
                "1799 video frames",
            ),
            (
                facts(track(1800, 60.1), Some(track(2814, 60.0))),
                "more than one frame",
            ),
            (back, "go back"),
            (facts(track(1800, 60.0), Some(track(2800, 59.9))), "ms off"),
            (facts(track(1800, 60.0), None), "audio is missing"),
        ];
        for (output, why) in rows {
            let err = check(&input, &output, true).expect_err(why);
            assert!(err.contains(why), "{why}: {err}");
        }
        assert_eq!(
            check(&input, &facts(track(1800, 60.0), None), false),
            Ok(())
        );
    }
}
