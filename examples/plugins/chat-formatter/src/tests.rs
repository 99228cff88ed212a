use mediaforge_plugin::{WebhookFormatter, fixtures, parse_config};
use serde_json::{Value, json};

use super::{Chat, Config};

fn body(config: &str, event: mediaforge_plugin::JobEvent) -> Value {
    let config: Config = parse_config(config).unwrap();
    serde_json::from_str(&Chat::format_event(&config, event).unwrap().body).unwrap()
}

#[test]
fn one_line_per_job() {
    assert_eq!(
        body("{}", fixtures::completed_event()),
        json!({"channel": "#media", "text": "job job_1 completed: 1 file(s) in 1.2 s"})
    );
    let failed = body(r##"{"channel": "#ops"}"##, fixtures::failed_event());
    assert_eq!(failed["channel"], "#ops");
    assert_eq!(
        failed["text"],
        "job job_2 failed: ffmpeg exited with status 1"
    );
}

#[test]
fn a_misspelt_key_is_refused() {
    let err = parse_config::<Config>(r##"{"chanel": "#ops"}"##)
        .err()
        .unwrap();
    assert_eq!(err, "config: unknown field `chanel`, expected `channel`");
}
