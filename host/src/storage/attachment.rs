//! How a stored file is presented when downloaded, by the local store and by S3 alike: a media
//! type guessed from its name, and an `attachment` disposition carrying the name safely.

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};

/// The media type a name suggests (`clip.mp4` → `video/mp4`).
pub fn guess_type(name: &str) -> Option<String> {
    mime_guess::from_path(name)
        .first()
        .map(|m| m.essence_str().to_string())
}

/// `attachment` with an ASCII fallback name and the exact name in RFC 5987 form, so no tenant
/// name can break out of the header or be rendered inline as HTML.
/// Header values allow only visible ASCII, which both parts are.
pub fn content_disposition(name: &str) -> String {
    let fallback: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let encoded = utf8_percent_encode(name, NON_ALPHANUMERIC);
    format!("attachment; filename=\"{fallback}\"; filename*=UTF-8''{encoded}")
}
