//! Where a split cuts: parts sized so the workers that take them finish together (issue #34).
//! Workers take parts in order (the audio's first, then the segments by index), each the next
//! as it frees up, so the plan follows them: the audio's taker starts its segments late, the
//! coordinator starts after its cut, and each part is as long as lets its taker end when the
//! work left, spread over every worker, would end. A fixed `segment_s` ignored all of that: six
//! equal parts and the audio's for two workers left one waiting on the other's last part.

/// What the work costs, in wall seconds of one worker.
#[derive(Debug, Clone, Copy)]
pub struct Costs {
    /// Per media second of video encoded.
    pub video: f64,
    /// The audio part, encoded over the whole input (zero without one).
    pub audio: f64,
    /// The cut, before which no segment can be taken.
    pub cut: f64,
    /// Each part's own: claiming, staging the segment, the sandbox, storing the result.
    pub part: f64,
}

/// How long parts may be (media seconds), and how many there may be.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub shortest: f64,
    pub longest: f64,
    pub most: usize,
}

/// The cut points (seconds, keyframes of the input) for `workers` workers, the coordinator among
/// them; empty: one part, run whole.
pub fn cuts(
    keyframes: &[f64],
    duration: f64,
    workers: usize,
    costs: Costs,
    bounds: Bounds,
) -> Vec<f64> {
    if workers < 2 || duration <= 0.0 {
        return Vec::new();
    }
    // When each worker is first free: the coordinator (the first) after its cut; the audio's
    // taker (the second, since the audio is queued before the cut) after the audio.
    let mut free = vec![costs.cut; workers];
    if costs.audio > 0.0 {
        free[1] = costs.audio.max(costs.cut);
    }
    let planner = Planner {
        keyframes,
        duration,
        costs,
        bounds,
    };
    planner.rest(0.0, free, Vec::new(), true).0
}

struct Planner<'a> {
    keyframes: &'a [f64],
    duration: f64,
    costs: Costs,
    bounds: Bounds,
}

impl Planner<'_> {
    /// The plan from `start` on, the workers free at `free`: its cuts, and when the last worker
    /// is done. Each part's taker is the worker free first; its part ends at a keyframe either
    /// side of where the work left, spread over every worker, would have it end. Keyframes are
    /// seconds apart, so with `look` each choice is the one whose rest (planned by taking the
    /// nearer keyframe) ends soonest.
    fn rest(
        &self,
        mut start: f64,
        mut free: Vec<f64>,
        mut cuts: Vec<f64>,
        look: bool,
    ) -> (Vec<f64>, f64) {
        let c = self.costs;
        loop {
            let (taker, at) = free
                .iter()
                .copied()
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .expect("two workers or more");
            let end_all = finish_together(&free, (self.duration - start) * c.video, c.part);
            let wanted = ((end_all - at - c.part) / c.video).clamp(
                self.bounds.shortest,
                self.bounds.longest.max(self.bounds.shortest),
            );
            let ends = self.ends(start, start + wanted, cuts.len());
            let taken = |end: f64, free: &mut Vec<f64>| {
                free[taker] = at + (end - start) * c.video + c.part;
            };
            let end = if look && ends.len() > 1 {
                let ends_at = |end: &f64| {
                    let mut free = free.clone();
                    taken(*end, &mut free);
                    let mut cuts = cuts.clone();
                    cuts.push(*end);
                    self.rest(*end, free, cuts, false).1
                };
                ends.iter()
                    .copied()
                    .min_by(|a, b| ends_at(a).total_cmp(&ends_at(b)))
                    .expect("candidates")
            } else {
                ends[0]
            };
            taken(end, &mut free);
            if end >= self.duration {
                return (cuts, free.into_iter().fold(0.0, f64::max));
            }
            cuts.push(end);
            start = end;
        }
    }

    /// Where a part from `start` may end, the nearer to `target` first: the keyframes either
    /// side of it, unless what would be left is too short for a part of its own (or would be
    /// one part too many), and the end of the input.
    fn ends(&self, start: f64, target: f64, cut_so_far: usize) -> Vec<f64> {
        let usable = |k: &f64| {
            *k > start
                && self.duration - k >= self.bounds.shortest / 2.0
                && cut_so_far + 2 <= self.bounds.most
        };
        // Keyframes are sorted (`facts.rs`).
        let after = self.keyframes.partition_point(|k| *k <= target);
        let below = after
            .checked_sub(1)
            .map(|i| self.keyframes[i])
            .filter(usable);
        let above = self.keyframes.get(after).copied().filter(usable);
        let mut ends: Vec<f64> = below.into_iter().chain(above).collect();
        ends.sort_by(|a, b| (a - target).abs().total_cmp(&(b - target).abs()));
        ends.push(self.duration);
        ends
    }
}

/// When the workers, free at `free`, would all be done if `work` wall seconds were spread over
/// them perfectly (each that takes any paying `part` once): the level water reaches when poured
/// over steps at those heights.
fn finish_together(free: &[f64], work: f64, part: f64) -> f64 {
    let mut sorted = free.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut level = sorted[0] + work + part;
    let mut sum = 0.0;
    for (k, f) in sorted.iter().enumerate() {
        sum += f;
        let n = (k + 1) as f64;
        let candidate = (work + n * part + sum) / n;
        if k + 1 < sorted.len() && candidate <= sorted[k + 1] {
            return candidate;
        }
        level = candidate;
    }
    level
}

#[cfg(test)]
mod tests {
    use super::*;

    /// x264's default preset on one core (36 s for 60 s of 720p), AAC at 46x, a stream copy.
    const COSTS: Costs = Costs {
        video: 0.6,
        audio: 1.3,
        cut: 0.25,
        part: 0.15,
    };
    const BOUNDS: Bounds = Bounds {
        shortest: 2.0,
        longest: 30.0,
        most: 64,
    };

    fn every(step: f64, duration: f64) -> Vec<f64> {
        (0..)
            .map(|i| i as f64 * step)
            .take_while(|k| *k < duration)
            .collect()
    }

    /// The keyframe after `start` (and before `duration`) nearest `target`.
    fn nearest_keyframe(keyframes: &[f64], start: f64, target: f64, duration: f64) -> Option<f64> {
        keyframes
            .iter()
            .copied()
            .filter(|k| *k > start && *k < duration)
            .min_by(|a, b| (a - target).abs().total_cmp(&(b - target).abs()))
    }

    /// The parts a fixed `segment_s` made before: at the keyframe nearest each multiple of it,
    /// the last joining the one before when shorter than half of one.
    fn equal_parts(keyframes: &[f64], duration: f64, segment_s: f64) -> Vec<f64> {
        let mut cuts: Vec<f64> = Vec::new();
        let mut target = segment_s;
        while target < duration - segment_s / 2.0 {
            if let Some(k) = nearest_keyframe(keyframes, 0.0, target, duration)
                && cuts.last().is_none_or(|last| k > *last)
            {
                cuts.push(k);
            }
            target += segment_s;
        }
        cuts
    }

    /// When the last worker is done with the parts `cuts` makes, taken in order.
    fn makespan(cuts: &[f64], duration: f64, workers: usize, costs: Costs) -> f64 {
        let mut free = vec![costs.cut; workers];
        if costs.audio > 0.0 && workers > 1 {
            free[1] = costs.audio.max(costs.cut);
        }
        let mut bounds = vec![0.0];
        bounds.extend(cuts);
        bounds.push(duration);
        for w in bounds.windows(2) {
            let i = (0..workers)
                .min_by(|a, b| free[*a].total_cmp(&free[*b]))
                .unwrap();
            free[i] += (w[1] - w[0]) * costs.video + costs.part;
        }
        free.into_iter().fold(0.0, f64::max)
    }

    #[test]
    fn two_workers_finish_together_with_the_audio_counted() {
        let keyframes = every(2.0, 60.0);
        let cuts = cuts(&keyframes, 60.0, 2, COSTS, BOUNDS);
        let planned = makespan(&cuts, 60.0, 2, COSTS);
        // Not worse than any plan of equal parts a `segment_s` would make...
        for segment_s in [10.0, 15.0, 20.0, 30.0] {
            let equal = equal_parts(&keyframes, 60.0, segment_s);
            assert!(
                planned <= makespan(&equal, 60.0, 2, COSTS) + 1e-9,
                "{cuts:?} against {equal:?}"
            );
        }
        // ...and within a keyframe interval's encode of the best a perfect split could do.
        let ideal = (60.0 * COSTS.video + COSTS.audio + COSTS.cut + 2.0 * COSTS.part) / 2.0;
        assert!(
            planned <= ideal + 2.0 * COSTS.video,
            "{planned} against {ideal}"
        );
    }

    #[test]
    fn one_worker_runs_whole_and_parts_stay_within_bounds() {
        let keyframes = every(2.0, 600.0);
        assert!(cuts(&keyframes, 600.0, 1, COSTS, BOUNDS).is_empty());
        let cuts = cuts(&keyframes, 600.0, 4, COSTS, BOUNDS);
        let mut bounds = vec![0.0];
        bounds.extend(&cuts);
        bounds.push(600.0);
        for w in bounds.windows(2) {
            let length = w[1] - w[0];
            // Keyframes every 2 s: a part is within one interval of its bounds.
            assert!(length >= 2.0 && length <= 30.0 + 2.0, "{cuts:?}");
        }
        let few = Bounds { most: 5, ..BOUNDS };
        assert_eq!(super::cuts(&keyframes, 600.0, 4, COSTS, few).len(), 4);
        // Four workers over ten minutes: the last parts are shorter, so all end together.
        assert!(makespan(&cuts, 600.0, 4, COSTS) <= (600.0 * 0.6 + 1.3) / 4.0 + 2.0);
    }

    #[test]
    fn few_keyframes_leave_few_parts() {
        // A keyframe every 25 s: the cuts can only fall there.
        let keyframes = every(25.0, 60.0);
        let cuts = cuts(&keyframes, 60.0, 2, COSTS, BOUNDS);
        assert!(cuts.iter().all(|c| keyframes.contains(c)), "{cuts:?}");
        assert!(!cuts.is_empty());
    }

    #[test]
    fn water_finds_its_level() {
        // Two free at 0 and one at 10: 10 s of work fills the first two to 5.
        assert_eq!(finish_together(&[0.0, 0.0, 10.0], 10.0, 0.0), 5.0);
        // 40 s of work rises over the third step: (40 + 10) / 3.
        assert!((finish_together(&[0.0, 0.0, 10.0], 40.0, 0.0) - 50.0 / 3.0).abs() < 1e-9);
    }
}
