//! Generic CFR solver (see issue 3).
