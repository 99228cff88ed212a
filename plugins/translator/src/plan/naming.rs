//! The output file name: from the instruction, else from the main input and the format.

use super::Planner;
use crate::formats;
use crate::media;

impl Planner<'_> {
    /// `stem.ext`, `stem_tags.ext` when the extension stays the same, or `stem{suffix}.ext`
    pub(super) fn file_name(&self, suffix: Option<&str>) -> String {
        let ext = self.fmt.ext;
        let taken = |n: &str| self.media.iter().any(|m| m.name().eq_ignore_ascii_case(n));
        if suffix.is_none()
            && let Some(own) = self.w.output_name.as_deref()
        {
            let safe: String = own
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let with_ext = match media::ext(&safe) {
                Some(e) if e.eq_ignore_ascii_case(ext) => safe.clone(),
                Some(_) => format!(
                    "{}.{ext}",
                    safe.rsplit_once('.').map_or(safe.as_str(), |(s, _)| s)
                ),
                None => format!("{safe}.{ext}"),
            };
            if !taken(&with_ext) && !with_ext.starts_with('.') {
                return with_ext;
            }
        }
        let stem = self.main.stem();
        let same_ext = media::ext(self.name())
            .is_some_and(|e| formats::by_ext(e).is_some_and(|f| f.ext == ext));
        let mut name = match suffix {
            Some(s) => format!("{stem}{s}.{ext}"),
            None if same_ext || taken(&format!("{stem}.{ext}")) => {
                let tags: Vec<&str> = self.tags.iter().map(String::as_str).take(3).collect();
                let tags = if tags.is_empty() {
                    "out".to_string()
                } else {
                    tags.join("_")
                };
                format!("{stem}_{tags}.{ext}")
            }
            None => format!("{stem}.{ext}"),
        };
        while taken(&name) {
            name = format!(
                "{}_out.{ext}",
                name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s)
            );
        }
        name
    }
}
