//! A pass over JSON text that refuses a key written twice in one object.
//! `serde_json` keeps the last of two equal keys without a word, so a
//! record with two `"deals"` would replay whichever came last; an EGN file
//! is refused instead. Linear in the text; nothing is kept but the keys of
//! the objects open at the moment (serde_json caps the nesting at 128).

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::EgnError;

/// Checks that no object in `text` has a key twice. Text that is not JSON
/// passes here and is refused by the parse that follows, with its message.
pub(super) fn check(text: &str) -> Result<(), EgnError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    match UniqueKeys::deserialize(&mut deserializer) {
        Ok(UniqueKeys) => Ok(()),
        Err(error) => match duplicate_of(&error.to_string()) {
            Some(key) => Err(EgnError::DuplicateKey { key }),
            None => Ok(()),
        },
    }
}

const DUPLICATE: &str = "duplicate key: ";

/// The key named by an error this pass raised, if it is one.
fn duplicate_of(message: &str) -> Option<String> {
    let rest = message.strip_prefix(DUPLICATE)?;
    // serde_json appends " at line L column C".
    let key = rest.rsplit_once(" at line ").map_or(rest, |(key, _)| key);
    Some(key.to_owned())
}

/// Any JSON value whose objects have distinct keys.
struct UniqueKeys;

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueKeysVisitor)
    }
}

struct UniqueKeysVisitor;

impl<'de> Visitor<'de> for UniqueKeysVisitor {
    type Value = UniqueKeys;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_i64<E>(self, _: i64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_u64<E>(self, _: u64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_f64<E>(self, _: f64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_str<E>(self, _: &str) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_unit<E>(self) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<UniqueKeys, A::Error> {
        while seq.next_element::<UniqueKeys>()?.is_some() {}
        Ok(UniqueKeys)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<UniqueKeys, A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                // Skip nothing more: the first duplicate is enough.
                let _ = map.next_value::<IgnoredAny>();
                return Err(de::Error::custom(format!("{DUPLICATE}{key}")));
            }
            map.next_value::<UniqueKeys>()?;
        }
        Ok(UniqueKeys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_twice_in_any_object_is_named() {
        for (text, key) in [
            (r#"{"deals": [], "deals": [1]}"#, "deals"),
            (r#"{"a": {"b": 1, "c": {"d": 2, "d": 3}}}"#, "d"),
            (r#"[{"x": 1}, {"y": 1, "y": 2}]"#, "y"),
        ] {
            match check(text) {
                Err(EgnError::DuplicateKey { key: found }) => assert_eq!(found, key, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn equal_keys_in_different_objects_and_non_json_pass_to_the_parse() {
        assert!(check(r#"{"a": {"k": 1}, "b": {"k": 2}, "k": [{"k": 3}]}"#).is_ok());
        assert!(
            check("not json").is_ok(),
            "the parse refuses it by its own message"
        );
    }
}
