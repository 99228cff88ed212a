//! How other inputs join the main one in the filter graph: new or added sound, mixing,
//! overlays, stacking and concatenation.

use super::choose::Join;
use super::{OVERLAY_SHARE, Planner};
use crate::filters::{self, even};
use crate::intents::Shown;
use crate::media::{Kind, Media};
use crate::numbers::fmt_num;

/// The filter work of a video output while inputs are joined: the main input's task index,
/// its picture and sound chains, and the complex graph built so far.
pub struct Chains {
    pub main: usize,
    pub vchain: Vec<String>,
    pub achain: Vec<String>,
    pub graph: Vec<String>,
    pub picture_filtered: bool,
    pub sound_filtered: bool,
}

/// A chain appended to a filter that ends a graph link (`…,chain`), or nothing.
fn tail(chain: &[String]) -> String {
    if chain.is_empty() {
        String::new()
    } else {
        format!(",{}", chain.join(","))
    }
}

impl Planner<'_> {
    pub(super) fn join_inputs(&mut self, join: &Join, sound: Option<&Media>, c: &mut Chains) {
        match join {
            Join::None => {}
            Join::ReplaceAudio(a) => self.replace_audio(a, c),
            Join::AddTrack(a) => self.add_track(a, c),
            Join::Mix(a) => self.mix(a, c),
            Join::Overlay(logo) => self.overlay(logo, c),
            Join::Stack(other, horizontal) => self.stack(other, *horizontal, c),
            Join::Concat(list) => self.concat(list, sound, c),
        }
    }

    /// The second input's sound instead of the main one's.
    fn replace_audio(&mut self, a: &Media, c: &mut Chains) {
        let mi = c.main;
        let looped = self.looped_sound_options();
        // A sound shorter than the video ends early and the video plays on: `-shortest` had
        // cut "replace the audio with this 5 s wav" of a 10 s video to 5 s (2026-11-30,
        // sixteenth pass). A longer or looped sound, or a still, ends with the picture.
        let video_longer = self.main.kind == Kind::Video
            && looped.is_empty()
            && self
                .out_duration()
                .zip(a.duration())
                .is_some_and(|(v, s)| v > s + 0.05);
        let ai = self.add_input(a, looped);
        self.maps.extend([format!("{mi}:v:0"), format!("{ai}:a:0")]);
        if !video_longer {
            self.opts.push("-shortest".into());
        }
        self.tag("new_audio");
    }

    /// The second input's sound as another track.
    fn add_track(&mut self, a: &Media, c: &mut Chains) {
        let mi = c.main;
        let ai = self.add_input(a, Vec::new());
        self.maps
            .extend([format!("{mi}:v:0"), format!("{mi}:a"), format!("{ai}:a:0")]);
        if let Some(d) = self.out_duration() {
            self.opts.extend(["-t".to_string(), fmt_num(d)]);
        }
        self.tag("two_tracks");
    }

    /// The second input's sound mixed under the main one's, at half volume or the level asked
    /// for.
    fn mix(&mut self, a: &Media, c: &mut Chains) {
        let mi = c.main;
        let looped = self.looped_sound_options();
        let ai = self.add_input(a, looped);
        let level = self
            .volume_filter()
            .unwrap_or_else(|| "volume=0.5".to_string());
        c.graph.push(format!(
            "[{ai}:a]{level}[added];[{mi}:a][added]amix=inputs=2:duration=first:dropout_transition=0:normalize=0{}[a]",
            tail(&c.achain)
        ));
        if c.picture_filtered {
            c.graph.push(format!("[{mi}:v]{}[v]", c.vchain.join(",")));
            self.maps.push("[v]".into());
        } else {
            self.maps.push(format!("{mi}:v:0"));
        }
        self.maps.push("[a]".into());
        c.sound_filtered = true;
        self.tag("mixed");
    }

    /// A picture (or video) over the main one, scaled to a share of its width.
    fn overlay(&mut self, logo: &Media, c: &mut Chains) {
        let mi = c.main;
        let li = self.add_input(logo, Vec::new());
        let width = self.main.dims().map(|d| d.0);
        let share = self.w.overlay_size.unwrap_or(OVERLAY_SHARE);
        let mut logo_chain = Vec::new();
        if let Some(w) = width {
            logo_chain.push(format!("scale={}:-1", even(w as f64 * share)));
        }
        if let Some(o) = self.w.opacity.filter(|o| *o < 1.0) {
            logo_chain.push(format!("format=rgba,colorchannelmixer=aa={}", fmt_num(o)));
        }
        if logo_chain.is_empty() {
            logo_chain.push("null".into());
        }
        let margin = self
            .w
            .overlay_margin
            .unwrap_or_else(|| width.map_or(10, |w| (w / 64).max(10)));
        let (x, y) = filters::position(self.w.corner.as_deref().unwrap_or("bottom-right"), margin);
        // A video laid over ends with the main one when it is longer; a shorter one leaves the
        // main picture as it was (a 2 s picture-in-picture had cut a 10 s video to 2 s).
        let shorter =
            matches!((logo.duration(), self.main.duration()), (Some(l), Some(m)) if l < m);
        let shortest = match logo.kind {
            Kind::Video if shorter && !self.w.end_shortest => ":eof_action=pass",
            Kind::Video => ":shortest=1",
            _ => "",
        };
        // Ended with the shorter picture, the sound ends with it too.
        if self.w.end_shortest && logo.kind == Kind::Video {
            self.opts.push("-shortest".into());
        }
        // Shown for part of the time only, in seconds of the result.
        let shown = match (self.w.overlay_span, self.out_duration()) {
            (Some(Shown::First(t)), _) => format!(":enable='between(t,0,{})'", fmt_num(t)),
            (Some(Shown::Last(t)), Some(d)) => {
                format!(
                    ":enable='between(t,{},{})'",
                    fmt_num((d - t).max(0.0)),
                    fmt_num(d)
                )
            }
            (Some(Shown::From(t)), _) => format!(":enable='gte(t,{})'", fmt_num(t)),
            (Some(Shown::Between(a, b)), _) => {
                format!(":enable='between(t,{},{})'", fmt_num(a), fmt_num(b))
            }
            _ => String::new(),
        };
        c.graph
            .push(format!("[{li}:v]{}[logo]", logo_chain.join(",")));
        c.graph.push(format!(
            "[{mi}:v][logo]overlay={x}:{y}{shortest}{shown}{}[v]",
            tail(&c.vchain)
        ));
        self.maps.push("[v]".into());
        c.picture_filtered = true;
        self.tag("watermarked");
    }

    /// Two pictures side by side or one above the other, at the smaller common size.
    fn stack(&mut self, other: &Media, horizontal: bool, c: &mut Chains) {
        let mi = c.main;
        let oi = self.add_input(other, Vec::new());
        let (a, b) = (self.main.dims(), other.dims());
        let (sa, sb, stack) = if let Some((w, h)) = self.w.each_size {
            // Each picture fitted to the size asked for it: the result is twice as wide (or
            // high); "side by side, each 640x360" had squeezed both into 640x360 (2026-11-28).
            let fit = format!(
                "scale={w}:{h}:force_original_aspect_ratio=decrease,pad={w}:{h}:(ow-iw)/2:(oh-ih)/2,setsar=1"
            );
            (
                fit.clone(),
                fit,
                if horizontal { "hstack" } else { "vstack" },
            )
        } else if horizontal {
            let h = even(a.map_or(720, |d| d.1).min(b.map_or(720, |d| d.1)) as f64);
            (format!("scale=-2:{h}"), format!("scale=-2:{h}"), "hstack")
        } else {
            let w = even(a.map_or(1280, |d| d.0).min(b.map_or(1280, |d| d.0)) as f64);
            (format!("scale={w}:-2"), format!("scale={w}:-2"), "vstack")
        };
        let loop_other = if other.kind == Kind::Still {
            ",loop=-1:1"
        } else {
            ""
        };
        let shortest = if other.kind == Kind::Still {
            ""
        } else {
            ":shortest=1"
        };
        c.graph.push(format!("[{mi}:v]{sa}[first]"));
        c.graph.push(format!("[{oi}:v]{sb}{loop_other}[second]"));
        c.graph.push(format!(
            "[first][second]{stack}=inputs=2{shortest}{}[v]",
            tail(&c.vchain)
        ));
        self.maps.push("[v]".into());
        // The sound ends with the stacked picture (it had run on under the last frame).
        if other.kind != Kind::Still {
            self.opts.push("-shortest".into());
        }
        c.picture_filtered = true;
        self.tag("stacked");
    }

    /// Clips one after another, each fitted to the first's size and frame rate.
    fn concat(&mut self, list: &[&Media], sound: Option<&Media>, c: &mut Chains) {
        let mi = c.main;
        let (w, h) = self
            .main
            .dims()
            .map_or((1280, 720), |(w, h)| (even(w as f64), even(h as f64)));
        let rate = fmt_num(self.main.fps().unwrap_or(30.0));
        let with_sound = sound.is_some();
        let mut labels = String::new();
        for (k, m) in list.iter().enumerate() {
            let idx = if m.index == self.main.index {
                mi
            } else {
                self.add_input(m, Vec::new())
            };
            c.graph.push(format!(
                "[{idx}:v]scale={w}:{h}:force_original_aspect_ratio=decrease,pad={w}:{h}:(ow-iw)/2:(oh-ih)/2,setsar=1,fps={rate},format=yuv420p[v{k}]"
            ));
            labels.push_str(&format!("[v{k}]"));
            if with_sound {
                c.graph.push(format!(
                    "[{idx}:a]aformat=sample_rates=48000:channel_layouts=stereo[a{k}]"
                ));
                labels.push_str(&format!("[a{k}]"));
            }
        }
        if let Some(d) = self.w.crossfade {
            self.crossfade(list, d, with_sound, c);
            return;
        }
        let a = if with_sound { 1 } else { 0 };
        let v_out = if c.vchain.is_empty() {
            "[v]".to_string()
        } else {
            "[joined]".into()
        };
        let a_out = if c.achain.is_empty() {
            "[a]".to_string()
        } else {
            "[joineda]".into()
        };
        let outs = if with_sound {
            format!("{v_out}{a_out}")
        } else {
            v_out.clone()
        };
        c.graph
            .push(format!("{labels}concat=n={}:v=1:a={a}{outs}", list.len()));
        if !c.vchain.is_empty() {
            c.graph.push(format!("[joined]{}[v]", c.vchain.join(",")));
        }
        self.maps.push("[v]".into());
        if with_sound {
            if !c.achain.is_empty() {
                c.graph.push(format!("[joineda]{}[a]", c.achain.join(",")));
            }
            self.maps.push("[a]".into());
            c.sound_filtered = true;
        }
        c.picture_filtered = true;
        self.tag("joined");
    }

    /// The prepared clips `[v0]`, `[a0]`, … joined by `xfade`/`acrossfade` of `d` seconds:
    /// each fade starts `d` before the end of what came before it.
    fn crossfade(&mut self, list: &[&Media], d: f64, with_sound: bool, c: &mut Chains) {
        let mut offset = 0.0;
        let (mut v, mut a) = ("[v0]".to_string(), "[a0]".to_string());
        for (k, m) in list.iter().enumerate().skip(1) {
            offset += list[k - 1].duration().unwrap_or(0.0) - d;
            let last = k + 1 == list.len();
            let vo = if last && c.vchain.is_empty() {
                "[v]".to_string()
            } else {
                format!("[x{k}]")
            };
            c.graph.push(format!(
                "{v}[v{k}]xfade=transition=fade:duration={}:offset={}{vo}",
                fmt_num(d),
                fmt_num(offset.max(0.0))
            ));
            v = vo;
            if with_sound {
                let ao = if last && c.achain.is_empty() {
                    "[a]".to_string()
                } else {
                    format!("[ax{k}]")
                };
                c.graph
                    .push(format!("{a}[a{k}]acrossfade=d={}{ao}", fmt_num(d)));
                a = ao;
            }
            let _ = m;
        }
        if !c.vchain.is_empty() {
            c.graph.push(format!("{v}{}[v]", c.vchain.join(",")));
        }
        self.maps.push("[v]".into());
        if with_sound {
            if !c.achain.is_empty() {
                c.graph.push(format!("{a}{}[a]", c.achain.join(",")));
            }
            self.maps.push("[a]".into());
            c.sound_filtered = true;
        }
        c.picture_filtered = true;
        self.tag("crossfaded");
    }
}
