//! A random stream keyed by (seed, iteration): iteration `t` draws the same
//! numbers whichever thread runs it, and a resumed run picks up the stream
//! at the next iteration with nothing to save but the seed.

use rand::SeedableRng;
use rand::rngs::SmallRng;

/// SplitMix64's finaliser: a bijection on u64 with good avalanche.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The generator for iteration `iteration` of a run seeded with `seed`.
pub fn iteration_rng(seed: u64, iteration: u64) -> SmallRng {
    SmallRng::seed_from_u64(mix(
        mix(seed) ^ iteration.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    ))
}

#[cfg(test)]
mod tests {
    use rand::Rng;

    use super::*;

    #[test]
    fn streams_depend_on_seed_and_iteration_only() {
        let a = iteration_rng(1, 5).next_u64();
        assert_eq!(a, iteration_rng(1, 5).next_u64());
        assert_ne!(a, iteration_rng(1, 6).next_u64());
        assert_ne!(a, iteration_rng(2, 5).next_u64());
    }
}
