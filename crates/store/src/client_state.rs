//! The caller's own progress, committed in the same atomic step as the
//! records it describes.
//!
//! The store never looks inside it: it is a JSON value that the caller
//! builds from, and reads back into, its own type. Keeping it typed at
//! both ends (rather than passing JSON text around) means a state that
//! cannot be serialised is an error at the checkpoint, not an empty string
//! that a resume would later read as "no progress".

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::StoreError;

/// A caller's state as committed by a checkpoint; [`ClientState::NONE`]
/// before the first one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ClientState(serde_json::Value);

impl ClientState {
    /// The state of a store never checkpointed.
    pub const NONE: ClientState = ClientState(serde_json::Value::Null);

    pub fn encode<T: Serialize>(state: &T) -> Result<ClientState, StoreError> {
        serde_json::to_value(state)
            .map(ClientState)
            .map_err(|error| StoreError::ClientState {
                action: "saved",
                reason: error.to_string(),
            })
    }

    /// The state as `T`, or `None` before the first checkpoint.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<Option<T>, StoreError> {
        if self.is_none() {
            return Ok(None);
        }
        T::deserialize(&self.0)
            .map(Some)
            .map_err(|error| StoreError::ClientState {
                action: "read",
                reason: format!("{error} (the manifest was edited or damaged)"),
            })
    }

    pub fn is_none(&self) -> bool {
        self.0.is_null()
    }

    /// Manifests of format 1 kept the state as JSON text inside a string.
    pub(crate) fn from_legacy_text(text: &str) -> Result<ClientState, serde_json::Error> {
        if text.is_empty() {
            return Ok(ClientState::NONE);
        }
        serde_json::from_str(text).map(ClientState)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Progress {
        iterations: u64,
        seconds: f64,
    }

    #[test]
    fn states_round_trip_and_failures_are_errors() {
        assert_eq!(ClientState::NONE.decode::<Progress>().unwrap(), None);
        let progress = Progress {
            iterations: 7,
            seconds: 1.5,
        };
        let state = ClientState::encode(&progress).unwrap();
        assert_eq!(state.decode::<Progress>().unwrap(), Some(progress));
        let wrong = ClientState::encode(&"not progress").unwrap();
        assert!(matches!(
            wrong.decode::<Progress>(),
            Err(StoreError::ClientState { action: "read", .. })
        ));
        // A map with non-string keys has no JSON form: an error, never "".
        let unencodable: std::collections::HashMap<(u8, u8), u8> = [((1, 2), 3)].into();
        assert!(matches!(
            ClientState::encode(&unencodable),
            Err(StoreError::ClientState {
                action: "saved",
                ..
            })
        ));
    }

    #[test]
    fn legacy_text_states_still_read() {
        let state = ClientState::from_legacy_text(r#"{"iterations":3,"seconds":0.5}"#).unwrap();
        assert_eq!(
            state.decode::<Progress>().unwrap(),
            Some(Progress {
                iterations: 3,
                seconds: 0.5
            })
        );
        assert!(ClientState::from_legacy_text("").unwrap().is_none());
    }
}
