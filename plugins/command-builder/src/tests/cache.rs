//! `uncacheable`: tasks whose result changes from run to run say so; others say nothing.

use super::*;

fn cache_decision(t: &Task) -> Option<String> {
    build(t).expect("builds").uncacheable
}

#[test]
fn results_that_change_between_runs_are_not_cached() {
    let rows: Vec<(&str, Task, &str)> = vec![
        (
            "creation_time=now",
            task(
                vec![input("in.mp4", &[])],
                vec![output("out.mp4", &["-metadata", "creation_time=now"], &[])],
                None,
            ),
            "-metadata creation_time=now",
        ),
        (
            "unseeded noise source",
            task(
                vec![input("in.mp4", &[])],
                vec![output("out.wav", &["-t", "1"], &["[n]"])],
                Some("anoisesrc=d=1[n]"),
            ),
            "anoisesrc",
        ),
        (
            "wall-clock text",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "out.mp4",
                    &["-vf", "drawtext=text='%{localtime}'"],
                    &[],
                )],
                None,
            ),
            "wall-clock",
        ),
    ];
    for (what, t, reason) in rows {
        let found = cache_decision(&t).unwrap_or_else(|| panic!("{what}: no cache decision"));
        assert!(found.contains(reason), "{what}: {found}");
    }
}

#[test]
fn results_of_the_inputs_alone_say_nothing() {
    let rows = vec![
        task(
            vec![input("in.mp4", &[])],
            vec![output("out.mp4", &["-c:v", "libx264", "-crf", "23"], &[])],
            None,
        ),
        task(
            vec![input("in.mp4", &[])],
            vec![output("out.wav", &["-t", "1"], &["[n]"])],
            Some("anoisesrc=d=1:seed=7[n]"),
        ),
        task(
            vec![input("in.mp4", &[])],
            vec![output("out.mp4", &["-metadata", "title=now"], &[])],
            None,
        ),
    ];
    for t in rows {
        assert_eq!(cache_decision(&t), None, "{t:?}");
    }
}
