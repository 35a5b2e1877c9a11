//! The fixed-size record each infostate occupies, and what a table of them
//! costs in each backend. Sizes are computed, never guessed, so that the
//! trainer can say before a run whether it fits on the machine.

/// How regrets and strategy sums are stored in a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordEncoding {
    /// One `f32` per regret and per strategy sum.
    F32,
    /// One `i16` per value, with one `f32` scale for the regrets and one for
    /// the strategy sums of each record: half the page cache of `F32`.
    I16Scaled,
}

impl RecordEncoding {
    pub const ALL: [RecordEncoding; 2] = [RecordEncoding::F32, RecordEncoding::I16Scaled];

    pub const fn name(self) -> &'static str {
        match self {
            RecordEncoding::F32 => "f32",
            RecordEncoding::I16Scaled => "i16+scale",
        }
    }
}

use thiserror::Error;

use crate::record::{MAX_ACTIONS, Record};

/// The scale that maps the largest magnitude to `i16::MAX`.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn scale_of(values: &[f32]) -> f32 {
    let largest = values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    if largest > 0.0 && largest.is_finite() {
        largest / f32::from(i16::MAX)
    } else {
        1.0
    }
}

/// `value / scale` rounded half away from zero, clamped to ±`i16::MAX`.
///
/// Written without `f32::round`, which on the baseline x86-64 target is a
/// call into libm (no SSE4.1), made ten times per record update: the
/// truncating conversion is one instruction, and below 2^23 the fraction
/// it leaves is exact, so the result equals `round().clamp()` bit for bit
/// (NaN included, which gives 0 both ways).
#[cfg(any(test, not(target_arch = "x86_64")))]
fn quantise(value: f32, scale: f32) -> i16 {
    let limit = f32::from(i16::MAX);
    let scaled = (value / scale).clamp(-limit, limit);
    let whole = scaled as i16;
    let fraction = scaled - f32::from(whole);
    whole + i16::from(fraction >= 0.5) - i16::from(fraction <= -0.5)
}

/// The first `width` of `values` (the rest taken as zero): their scale and
/// quantised values, as `scale_of` and `quantise` give them.
#[inline]
fn quantise_lanes(values: &[f32; MAX_ACTIONS], width: usize) -> (f32, [i16; MAX_ACTIONS]) {
    let lanes: [f32; MAX_ACTIONS] =
        std::array::from_fn(|lane| if lane < width { values[lane] } else { 0.0 });
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of the x86-64 baseline: every x86_64 target
    // enables it, so the CPU running this has it.
    #[allow(unsafe_code)]
    unsafe {
        sse2::quantise_lanes(&lanes)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let scale = scale_of(&lanes);
        (scale, lanes.map(|value| quantise(value, scale)))
    }
}

/// `scale_of` and `quantise` four lanes at a time, equal to them bit
/// for bit (tested against them). Encoding a record one value at a time was
/// 7% of full play's training time: fourteen dependent divisions and
/// saturating conversions, and the compiler would not vectorise them.
/// SSE2 is part of every x86-64 CPU, so this needs no run-time check.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128, __m128i, _mm_add_epi32, _mm_and_ps, _mm_andnot_ps, _mm_castps_si128,
        _mm_castsi128_ps, _mm_cmpge_ps, _mm_cmple_ps, _mm_cmpunord_ps, _mm_cvtepi32_ps,
        _mm_cvtss_f32, _mm_cvttps_epi32, _mm_div_ps, _mm_extract_epi16, _mm_max_ps, _mm_min_ps,
        _mm_movehl_ps, _mm_packs_epi32, _mm_set1_epi32, _mm_set1_ps, _mm_setr_ps, _mm_shuffle_ps,
        _mm_sub_epi32, _mm_sub_ps,
    };

    use crate::record::MAX_ACTIONS;

    /// `lanes` with every NaN made 0.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn without_nan(lanes: __m128) -> __m128 {
        _mm_andnot_ps(_mm_cmpunord_ps(lanes, lanes), lanes)
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn quantise_lanes(lanes: &[f32; MAX_ACTIONS]) -> (f32, [i16; MAX_ACTIONS]) {
        let low = _mm_setr_ps(lanes[0], lanes[1], lanes[2], lanes[3]);
        let high = _mm_setr_ps(lanes[4], lanes[5], lanes[6], lanes[7]);
        // The largest magnitude, NaN skipped as `f32::max` skips it in
        // `scale_of`'s fold from 0.
        let magnitude = _mm_castsi128_ps(_mm_set1_epi32(0x7fff_ffff));
        let largest = _mm_max_ps(
            without_nan(_mm_and_ps(low, magnitude)),
            without_nan(_mm_and_ps(high, magnitude)),
        );
        let largest = _mm_max_ps(largest, _mm_movehl_ps(largest, largest));
        let largest = _mm_max_ps(largest, _mm_shuffle_ps::<0b01>(largest, largest));
        let largest = _mm_cvtss_f32(largest);
        let scale = if largest > 0.0 && largest.is_finite() {
            largest / f32::from(i16::MAX)
        } else {
            1.0
        };
        let packed = _mm_packs_epi32(quantise4(low, scale), quantise4(high, scale));
        let shorts = [
            _mm_extract_epi16::<0>(packed),
            _mm_extract_epi16::<1>(packed),
            _mm_extract_epi16::<2>(packed),
            _mm_extract_epi16::<3>(packed),
            _mm_extract_epi16::<4>(packed),
            _mm_extract_epi16::<5>(packed),
            _mm_extract_epi16::<6>(packed),
            _mm_extract_epi16::<7>(packed),
        ];
        (scale, shorts.map(|short| short as i16))
    }

    /// `quantise` of four lanes, as 32-bit integers within
    /// ±`i16::MAX`: NaN is made 0 before the clamp instead of by the
    /// conversion, which then never sees a value out of range.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn quantise4(values: __m128, scale: f32) -> __m128i {
        let limit = f32::from(i16::MAX);
        let scaled = without_nan(_mm_div_ps(values, _mm_set1_ps(scale)));
        let scaled = _mm_min_ps(_mm_max_ps(scaled, _mm_set1_ps(-limit)), _mm_set1_ps(limit));
        let whole = _mm_cvttps_epi32(scaled);
        let fraction = _mm_sub_ps(scaled, _mm_cvtepi32_ps(whole));
        // A true comparison is all ones: -1 as an integer.
        let up = _mm_castps_si128(_mm_cmpge_ps(fraction, _mm_set1_ps(0.5)));
        let down = _mm_castps_si128(_mm_cmple_ps(fraction, _mm_set1_ps(-0.5)));
        _mm_add_epi32(_mm_sub_epi32(whole, up), down)
    }
}

/// A record: regrets and strategy sums padded to `max_actions`, the
/// iteration of the last update (for lazy discounting), and a 32-bit key
/// fingerprint that catches lookups of keys outside the universe.
///
/// The width is checked once, when the layout is made, against
/// [`MAX_ACTIONS`]: every buffer that holds an encoded record is
/// [`RecordLayout::MAX_BYTES`] long, so no valid layout can overrun one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordLayout {
    max_actions: u8,
    encoding: RecordEncoding,
}

/// A record width no [`Record`] can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("a record holds 1 to {max} actions; {requested} were asked for", max = MAX_ACTIONS)]
pub struct WidthError {
    pub requested: usize,
}

/// Bytes of a key in stores that keep keys (memory and LMDB).
pub const KEY_BYTES: u64 = 16;
/// boomphf documents 3 to 6 bits per key; estimates use the upper end (the
/// mmap store's load factor of 3 measured 5.0 bits a key at 20 M keys).
pub const PHF_BITS_PER_KEY_MAX: u64 = 6;
/// A memory-index entry: the key, a `u32` slot id, and hash-table slack at
/// a 7/8 load factor, rounded up.
pub const MEMORY_INDEX_BYTES_PER_KEY: u64 = 24;

impl RecordLayout {
    const HEADER_BYTES: u64 = 8; // last-update iteration (u32) + key fingerprint (u32)

    /// The longest encoded record of any layout: [`MAX_ACTIONS`] in `f32`.
    pub const MAX_BYTES: usize = Self::HEADER_BYTES as usize + 8 * MAX_ACTIONS;

    /// A layout of `max_actions` values of each kind. `const`, so that a
    /// fixed layout is checked when the program is compiled.
    pub const fn new(max_actions: usize, encoding: RecordEncoding) -> Result<Self, WidthError> {
        if max_actions == 0 || max_actions > MAX_ACTIONS {
            return Err(WidthError {
                requested: max_actions,
            });
        }
        Ok(RecordLayout {
            max_actions: max_actions as u8,
            encoding,
        })
    }

    /// Actions per record: the widest decision the table can store.
    pub const fn max_actions(&self) -> usize {
        self.max_actions as usize
    }

    pub const fn encoding(&self) -> RecordEncoding {
        self.encoding
    }

    /// Every layout's record is a whole number of 4-byte words, so a record's
    /// leading key check is aligned for an atomic 32-bit load.
    pub const fn bytes(&self) -> u64 {
        let values = 2 * self.max_actions as u64;
        match self.encoding {
            RecordEncoding::F32 => Self::HEADER_BYTES + 4 * values,
            RecordEncoding::I16Scaled => Self::HEADER_BYTES + 8 + 2 * values,
        }
    }

    /// A 32-bit digest of a key, different from any hash the index uses, kept
    /// in each record so that a lookup of a foreign key is caught.
    #[inline]
    pub fn key_check(key: u128) -> u32 {
        let folded = (key as u64) ^ ((key >> 64) as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        let mixed = (folded ^ (folded >> 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // Never 0, so that an unwritten (zeroed) slot matches no key.
        ((mixed >> 32) as u32).max(1)
    }

    /// Writes `record` (and the key check) into `out`, which is exactly
    /// [`Self::bytes`] long. Little-endian, so files move between machines.
    pub fn encode(&self, key_check: u32, record: &Record, out: &mut [u8]) {
        let width = self.max_actions as usize;
        out[0..4].copy_from_slice(&key_check.to_le_bytes());
        out[4..8].copy_from_slice(&record.stamp.to_le_bytes());
        match self.encoding {
            RecordEncoding::F32 => {
                let values = record.regrets[..width]
                    .iter()
                    .chain(&record.strategy_sum[..width]);
                for (chunk, value) in out[8..].chunks_exact_mut(4).zip(values) {
                    chunk.copy_from_slice(&value.to_le_bytes());
                }
            }
            RecordEncoding::I16Scaled => {
                let (regret_scale, regrets) = quantise_lanes(&record.regrets, width);
                let (sum_scale, sums) = quantise_lanes(&record.strategy_sum, width);
                out[8..12].copy_from_slice(&regret_scale.to_le_bytes());
                out[12..16].copy_from_slice(&sum_scale.to_le_bytes());
                let mut bytes = [0u8; 4 * MAX_ACTIONS];
                let (regret_bytes, sum_bytes) = bytes.split_at_mut(2 * MAX_ACTIONS);
                for lane in 0..MAX_ACTIONS {
                    regret_bytes[2 * lane..][..2].copy_from_slice(&regrets[lane].to_le_bytes());
                    sum_bytes[2 * lane..][..2].copy_from_slice(&sums[lane].to_le_bytes());
                }
                out[16..][..2 * width].copy_from_slice(&regret_bytes[..2 * width]);
                out[16 + 2 * width..][..2 * width].copy_from_slice(&sum_bytes[..2 * width]);
            }
        }
    }

    /// Reads a record written by [`Self::encode`]; returns its key check.
    pub fn decode(&self, bytes: &[u8], record: &mut Record) -> u32 {
        let width = self.max_actions as usize;
        let word = |at: usize| [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
        *record = Record::default();
        record.stamp = u32::from_le_bytes(word(4));
        match self.encoding {
            RecordEncoding::F32 => {
                for action in 0..width {
                    record.regrets[action] = f32::from_le_bytes(word(8 + 4 * action));
                    record.strategy_sum[action] =
                        f32::from_le_bytes(word(8 + 4 * (width + action)));
                }
            }
            RecordEncoding::I16Scaled => {
                let regret_scale = f32::from_le_bytes(word(8));
                let sum_scale = f32::from_le_bytes(word(12));
                let short = |at: usize| f32::from(i16::from_le_bytes([bytes[at], bytes[at + 1]]));
                for action in 0..width {
                    record.regrets[action] = short(16 + 2 * action) * regret_scale;
                    record.strategy_sum[action] = short(16 + 2 * (width + action)) * sum_scale;
                }
            }
        }
        u32::from_le_bytes(word(0))
    }

    /// What the record looks like after a round trip through this layout.
    /// Backends that keep records decoded apply it after every update, so
    /// that every backend holds the same values.
    pub fn quantise(&self, record: &mut Record) {
        if self.encoding == RecordEncoding::F32 {
            return;
        }
        let mut bytes = [0u8; Self::MAX_BYTES];
        let length = self.bytes() as usize;
        self.encode(0, record, &mut bytes[..length]);
        self.decode(&bytes[..length], record);
    }

    /// Estimated bytes for `keys` records per backend: (disk, resident).
    pub fn footprint(&self, keys: u64) -> Footprint {
        let records = keys * self.bytes();
        let phf = (keys * PHF_BITS_PER_KEY_MAX).div_ceil(8);
        Footprint {
            memory_resident: records + keys * MEMORY_INDEX_BYTES_PER_KEY,
            lmdb_disk_at_least: keys * (KEY_BYTES + self.bytes()),
            mmap_disk: records + phf,
            mmap_resident_floor: phf,
        }
    }
}

/// What a table of one layout costs, per backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// The memory backend holds everything in RAM.
    pub memory_resident: u64,
    /// LMDB stores key and value per entry, plus B-tree pages on top.
    pub lmdb_disk_at_least: u64,
    /// The mmap backend's data file plus its saved perfect hash.
    pub mmap_disk: u64,
    /// What the mmap backend must keep resident: the perfect hash. The
    /// records are paged in and out by the kernel.
    pub mmap_resident_floor: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantise_rounds_half_away_from_zero_like_f32_round() {
        let by_round =
            |value: f32, scale: f32| (value / scale).round().clamp(-32767.0, 32767.0) as i16;
        let mut checked = 0u64;
        // Every float from 0 to 2^16 in steps of a few ulps, both signs, and
        // every half-integer and its neighbours (the ties and near-ties).
        let mut bits = 0u32;
        while f32::from_bits(bits) < 65_536.0 {
            for value in [f32::from_bits(bits), -f32::from_bits(bits)] {
                assert_eq!(quantise(value, 1.0), by_round(value, 1.0), "{value:e}");
                checked += 1;
            }
            bits += 97;
        }
        for half in -70_000..70_000 {
            let tie = half as f32 + 0.5;
            for value in [tie, tie.next_up(), tie.next_down()] {
                assert_eq!(quantise(value, 1.0), by_round(value, 1.0), "{value:e}");
                checked += 1;
            }
        }
        for value in [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN,
        ] {
            assert_eq!(quantise(value, 1.0), by_round(value, 1.0), "{value:e}");
        }
        for scale in [1e-3f32, 0.37, 3.0, 1234.5] {
            for step in -10_000..10_000 {
                let value = step as f32 * 0.731;
                assert_eq!(quantise(value, scale), by_round(value, scale));
            }
        }
        assert!(checked > 10_000_000, "{checked}");
    }

    /// The four-lane encoder equals the one-value-at-a-time reference bit
    /// for bit: every width, special values, ties at the half and values
    /// spread over many magnitudes.
    #[test]
    fn quantising_all_lanes_at_once_equals_one_at_a_time() {
        let specials = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -2.5,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            1e-30,
            -7.25e6,
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut checked = 0;
        for round in 0..200_000 {
            let mut values = [0.0f32; MAX_ACTIONS];
            for value in &mut values {
                let bits = next();
                *value = if bits % 7 == 0 {
                    specials[(bits >> 8) as usize % specials.len()]
                } else {
                    // Mantissa and sign at random, magnitudes from 2^-20 to 2^20.
                    let exponent = (bits >> 32) % 41;
                    let mantissa = (bits >> 8) as u32 & 0x7f_ffff;
                    let magnitude = f32::from_bits(((exponent as u32 + 107) << 23) | mantissa);
                    if bits & 1 == 0 { magnitude } else { -magnitude }
                };
            }
            if round % 5 == 0 {
                // Largest magnitude `i16::MAX`: a scale of exactly 1, and the
                // other lanes ties at the half.
                values[0] = if round % 2 == 0 { 32767.0 } else { -32767.0 };
                for (lane, value) in values.iter_mut().enumerate().skip(1) {
                    let whole = (next() % 65_534) as f32 - 32_767.0;
                    *value = whole + if lane % 2 == 0 { 0.5 } else { -0.5 };
                }
            }
            let width = 1 + round % MAX_ACTIONS;
            let (scale, quantised) = quantise_lanes(&values, width);
            let expected_scale = scale_of(&values[..width]);
            assert_eq!(
                scale.to_bits(),
                expected_scale.to_bits(),
                "{values:?} width {width}"
            );
            for lane in 0..MAX_ACTIONS {
                let expected = if lane < width {
                    quantise(values[lane], expected_scale)
                } else {
                    0
                };
                assert_eq!(
                    quantised[lane], expected,
                    "{values:?} width {width} lane {lane}"
                );
                checked += 1;
            }
        }
        assert!(checked >= 1_600_000, "{checked}");
    }

    #[test]
    fn record_sizes() {
        let bidding = RecordLayout::new(7, RecordEncoding::F32).unwrap();
        assert_eq!(bidding.bytes(), 64);
        let play = RecordLayout::new(5, RecordEncoding::F32).unwrap();
        // The brief's 40 B per record is the values alone; the header adds 8.
        assert_eq!(play.bytes(), 48);
        let compact = RecordLayout::new(5, RecordEncoding::I16Scaled).unwrap();
        assert_eq!(compact.bytes(), 36);
        let widest = RecordLayout::new(MAX_ACTIONS, RecordEncoding::F32).unwrap();
        assert_eq!(widest.bytes() as usize, RecordLayout::MAX_BYTES);
    }

    #[test]
    fn encoding_round_trips() {
        let mut record = Record::default();
        for action in 0..7 {
            record.regrets[action] = action as f32 * 1.5 - 4.0;
            record.strategy_sum[action] = action as f32 * 100.25;
        }
        record.stamp = 77;
        for encoding in RecordEncoding::ALL {
            let layout = RecordLayout::new(7, encoding).unwrap();
            let mut bytes = vec![0u8; layout.bytes() as usize];
            layout.encode(0xABCD, &record, &mut bytes);
            let mut back = Record::default();
            assert_eq!(layout.decode(&bytes, &mut back), 0xABCD);
            assert_eq!(back.stamp, 77);
            // i16 rounding is at most half a step of (largest magnitude / 32767).
            let (regret_step, sum_step) = match encoding {
                RecordEncoding::F32 => (0.0, 0.0),
                RecordEncoding::I16Scaled => (5.0 / 32767.0, 601.5 / 32767.0),
            };
            for action in 0..7 {
                let regret_error = (back.regrets[action] - record.regrets[action]).abs();
                let sum_error = (back.strategy_sum[action] - record.strategy_sum[action]).abs();
                assert!(
                    regret_error <= regret_step / 2.0 + 1e-6,
                    "{encoding:?} regret {action}: {regret_error}"
                );
                assert!(
                    sum_error <= sum_step / 2.0 + 1e-4,
                    "{encoding:?} sum {action}: {sum_error}"
                );
            }
            // Quantising twice changes nothing more.
            let mut once = record;
            layout.quantise(&mut once);
            let mut twice = once;
            layout.quantise(&mut twice);
            assert_eq!(once, twice);
        }
    }

    #[test]
    fn widths_beyond_a_record_are_refused_and_every_valid_one_round_trips() {
        for encoding in RecordEncoding::ALL {
            for bad in [0, MAX_ACTIONS + 1, 255] {
                assert_eq!(
                    RecordLayout::new(bad, encoding),
                    Err(WidthError { requested: bad })
                );
            }
            // The widest layout used to overrun a 64-byte buffer in quantise
            // and in the mmap backend.
            for width in 1..=MAX_ACTIONS {
                let layout = RecordLayout::new(width, encoding).unwrap();
                assert_eq!(layout.bytes() % 4, 0, "key checks stay word-aligned");
                let mut record = Record::default();
                record.regrets[width - 1] = -3.0;
                record.strategy_sum[width - 1] = 9.0;
                let mut once = record;
                layout.quantise(&mut once);
                let mut bytes = [0u8; RecordLayout::MAX_BYTES];
                layout.encode(5, &record, &mut bytes[..layout.bytes() as usize]);
                let mut back = Record::default();
                layout.decode(&bytes[..layout.bytes() as usize], &mut back);
                assert_eq!(back, once);
                assert_eq!(back.strategy_sum[width - 1], 9.0);
            }
        }
    }

    #[test]
    fn key_checks_are_never_zero() {
        assert_ne!(RecordLayout::key_check(0), 0);
        assert_ne!(RecordLayout::key_check(1), RecordLayout::key_check(2));
        assert_ne!(RecordLayout::key_check(1), RecordLayout::key_check(1 << 64));
    }

    #[test]
    fn footprints_scale_linearly() {
        let layout = RecordLayout::new(7, RecordEncoding::F32).unwrap();
        let one = layout.footprint(1_000_000);
        assert_eq!(one.mmap_disk, 64_000_000 + 750_000);
        assert_eq!(one.mmap_resident_floor, 750_000);
        assert_eq!(one.memory_resident, 88_000_000);
        assert_eq!(
            layout.footprint(2_000_000).lmdb_disk_at_least,
            2 * one.lmdb_disk_at_least
        );
    }
}
