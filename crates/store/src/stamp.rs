//! The iteration a record was last updated at, in the 32 bits every
//! record layout keeps for it, far past 2^32 iterations.
//!
//! Lazy discounting needs each record's last iteration. Up to 2^31 the
//! stamp is the iteration itself, as in every store written before this
//! encoding (format version 3), so those stores read the same. Past it a
//! stamp counts steps of [`COARSE_STEP`] iterations, rounded up: a record
//! updated at iteration `t` is discounted as of the end of `t`'s step, and
//! the increments made within one step weigh alike, which moves a weight
//! by at most `COARSE_STEP / t` (under 5e-7 there; a record's `i16`
//! quantisation is 3e-5). A cluster's ranks make the same approximation at
//! each sync. A record caught up to an iteration is caught up to the end of
//! its step, so no stretch of iterations is discounted twice or skipped.
//!
//! That reaches [`LAST_ITERATION`], about 2.2e12: 7 years at 10,000
//! iterations a second, 70 days at 40 times that on a cluster.

/// Stamps below this are exact iterations.
pub const EXACT_BELOW: u64 = 1 << 31;

/// Iterations per stamp past [`EXACT_BELOW`].
pub const COARSE_STEP: u64 = 1 << 10;

/// The stamp that no iteration has: a record stamped with it is never
/// discounted (every iteration is at or before it).
pub const NEVER_DISCOUNTED: u32 = u32::MAX;

/// The last iteration a stamp holds, below [`NEVER_DISCOUNTED`].
pub const LAST_ITERATION: u64 = decode(NEVER_DISCOUNTED - 1);

/// The stamp of `iteration`: the iteration itself below [`EXACT_BELOW`],
/// the step that ends at or after it above. Past [`LAST_ITERATION`] it
/// saturates; callers refuse such iterations first.
pub const fn encode(iteration: u64) -> u32 {
    if iteration < EXACT_BELOW {
        return iteration as u32;
    }
    let steps = (iteration - EXACT_BELOW).div_ceil(COARSE_STEP);
    let stamp = EXACT_BELOW + steps;
    if stamp >= NEVER_DISCOUNTED as u64 {
        NEVER_DISCOUNTED - 1
    } else {
        stamp as u32
    }
}

/// The iteration a stamp stands for: the end of its step.
pub const fn decode(stamp: u32) -> u64 {
    let stamp = stamp as u64;
    if stamp < EXACT_BELOW {
        stamp
    } else {
        EXACT_BELOW + (stamp - EXACT_BELOW) * COARSE_STEP
    }
}

/// The iteration a record updated at `iteration` is discounted as of:
/// `iteration` itself below [`EXACT_BELOW`], the end of its step above.
pub const fn discounted_as_of(iteration: u64) -> u64 {
    decode(encode(iteration))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_below_2_to_the_31_are_the_iterations_themselves() {
        for iteration in [0, 1, 2, 1_000_000, EXACT_BELOW - 1] {
            assert_eq!(u64::from(encode(iteration)), iteration);
            assert_eq!(decode(encode(iteration)), iteration);
        }
    }

    #[test]
    fn past_2_to_the_31_a_stamp_is_the_end_of_its_step() {
        assert_eq!(encode(EXACT_BELOW), EXACT_BELOW as u32);
        assert_eq!(decode(encode(EXACT_BELOW + 1)), EXACT_BELOW + COARSE_STEP);
        assert_eq!(
            decode(encode(EXACT_BELOW + COARSE_STEP)),
            EXACT_BELOW + COARSE_STEP
        );
        assert_eq!(
            decode(encode(EXACT_BELOW + COARSE_STEP + 1)),
            EXACT_BELOW + 2 * COARSE_STEP
        );
        for iteration in [EXACT_BELOW + 7, 5_000_000_000, 1 << 40, LAST_ITERATION] {
            let as_of = discounted_as_of(iteration);
            assert!(as_of >= iteration && as_of - iteration < COARSE_STEP);
            // A stamp read back stamps the same.
            assert_eq!(encode(as_of), encode(iteration));
        }
    }

    #[test]
    fn stamps_keep_the_order_of_iterations() {
        let mut previous = 0;
        for iteration in (0..64)
            .map(|shift| 1u64 << shift)
            .filter(|&i| i <= LAST_ITERATION)
        {
            let stamp = encode(iteration);
            assert!(stamp >= previous, "{iteration}");
            previous = stamp;
        }
        assert!(encode(LAST_ITERATION) < NEVER_DISCOUNTED);
        const { assert!(LAST_ITERATION > 2_000_000_000_000) };
    }
}
