//! What tenants may name things, and the ids the service makes up.

use rand::Rng;
use rand::distr::Alphanumeric;

/// Directory ids: `^[A-Za-z0-9_-]{1,64}$`.
pub fn valid_dir_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// What an invalid file name is told.
pub const INVALID_FILE_NAME: &str =
    "Invalid file_name: 1-255 bytes, no '/', no control characters, not '.' or '..'";

/// File names: 1–255 bytes (UTF-8, so multi-byte characters count by their bytes, as on disk),
/// no `/`, no NUL or other control characters, not `.` or `..`, and no bidi controls that make
/// a name read differently from what it is.
pub fn valid_file_name(name: &str) -> bool {
    (1..=255).contains(&name.len())
        && name != "."
        && name != ".."
        && !name
            .chars()
            .any(|c| c == '/' || c.is_control() || is_bidi_control(c))
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// A random id of `len` alphanumerics (62^len possibilities).
pub fn random_id(len: usize) -> String {
    rand::rng()
        .sample_iter(&Alphanumeric)
        .take(len)
        .map(char::from)
        .collect()
}

/// Splits `<dir_id>/<file_name>`; `None` when either part is not valid.
pub fn split_file_path(path: &str) -> Option<(&str, &str)> {
    let (dir, name) = path.split_once('/')?;
    (valid_dir_id(dir) && valid_file_name(name)).then_some((dir, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dir_ids() {
        for ok in ["a", "A-z_09", &"x".repeat(64)] {
            assert!(valid_dir_id(ok), "{ok}");
        }
        for bad in ["", &"x".repeat(65), "a/b", "a b", "é", "a.b", ".."] {
            assert!(!valid_dir_id(bad), "{bad}");
        }
    }

    #[test]
    fn file_names() {
        for ok in [
            "a.mp4",
            "My Clip (1).MOV",
            "ünïcode.wav",
            &"x".repeat(255),
            "..a",
            "a..",
        ] {
            assert!(valid_file_name(ok), "{ok}");
        }
        let long_utf8 = "é".repeat(128); // 256 bytes
        for bad in [
            "",
            ".",
            "..",
            "a/b",
            "a\0b",
            "a\nb",
            "\u{202E}gpj.exe",
            &"x".repeat(256),
            &long_utf8,
        ] {
            assert!(!valid_file_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn file_paths() {
        assert_eq!(
            split_file_path("dir_1/clip.mp4"),
            Some(("dir_1", "clip.mp4"))
        );
        assert_eq!(split_file_path("dir/sub/clip.mp4"), None);
        assert_eq!(split_file_path("clip.mp4"), None);
        assert_eq!(split_file_path("/clip.mp4"), None);
        assert_eq!(split_file_path("dir/"), None);
    }
}

/// A tenant's string cut to 80 characters for a message.
pub fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(80).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}
