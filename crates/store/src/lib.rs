//! Storage backends (see issue 4).
