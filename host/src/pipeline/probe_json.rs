//! ffprobe's JSON read with bounded memory: each list section (packets, frames, streams) keeps
//! at most `max` entries and the rest is skipped without being built, and output cut short at
//! the stdout cap still yields every section and entry that was complete before the cut.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The sections parsed, and whether the output was whole.
pub struct Parsed {
    pub sections: Map<String, Value>,
    pub complete: bool,
}

pub fn parse(bytes: &[u8], max: usize) -> Result<Parsed, serde_json::Error> {
    let mut sections = Map::new();
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let result = Top {
        out: &mut sections,
        max,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    match result {
        Ok(()) => Ok(Parsed {
            sections,
            complete: true,
        }),
        // Cut short by the stdout cap: keep what was complete.
        Err(e) if e.is_eof() && !sections.is_empty() => Ok(Parsed {
            sections,
            complete: false,
        }),
        Err(e) => Err(e),
    }
}

/// The top-level object; each section is inserted as soon as it is read (a list section with
/// its entries so far even when the input ends inside it).
struct Top<'a> {
    out: &'a mut Map<String, Value>,
    max: usize,
}

impl<'de> DeserializeSeed<'de> for Top<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Top<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("ffprobe's JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            let mut entries = Vec::new();
            let section = map.next_value_seed(Section {
                entries: &mut entries,
                max: self.max,
            });
            match section {
                Ok(Some(value)) => {
                    self.out.insert(key, value);
                }
                Ok(None) => {
                    self.out.insert(key, Value::Array(entries));
                }
                Err(e) => {
                    if !entries.is_empty() {
                        self.out.insert(key, Value::Array(entries));
                    }
                    return Err(e);
                }
            }
        }
        Ok(())
    }
}

/// One section: a list (entries pushed to `entries` one by one; `None`) or an object.
struct Section<'a> {
    entries: &'a mut Vec<Value>,
    max: usize,
}

impl<'de> DeserializeSeed<'de> for Section<'_> {
    type Value = Option<Value>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Section<'_> {
    type Value = Option<Value>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list or an object")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Value>, A::Error> {
        while self.entries.len() < self.max {
            match seq.next_element::<Value>()? {
                Some(entry) => self.entries.push(entry),
                None => return Ok(None),
            }
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<Value>, A::Error> {
        Value::deserialize(de::value::MapAccessDeserializer::new(map)).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_are_cut_and_empty_entries_kept() {
        let text = r#"{"packets": [{"pts": 1, "side_data_list": [{}]}, {}, {"pts": 3}],
                      "format": {"duration": "1.0", "tags": {}}}"#;
        let parsed = parse(text.as_bytes(), 2).unwrap();
        assert!(parsed.complete);
        assert_eq!(
            Value::Object(parsed.sections),
            json!({"packets": [{"pts": 1, "side_data_list": [{}]}, {}],
                   "format": {"duration": "1.0", "tags": {}}})
        );
    }

    #[test]
    fn output_cut_short_keeps_complete_entries() {
        let text = r#"{"streams": [{"index": 0}], "packets": [{"pts": 1}, {"pts": 2}, {"pt"#;
        let parsed = parse(text.as_bytes(), 3000).unwrap();
        assert!(!parsed.complete);
        assert_eq!(
            Value::Object(parsed.sections),
            json!({"streams": [{"index": 0}], "packets": [{"pts": 1}, {"pts": 2}]})
        );
        assert!(parse(b"{\"a\": [1", 10).is_ok());
        assert!(parse(b"not json", 10).is_err());
        assert!(parse(b"", 10).is_err());
    }
}
