//! A hint to the CPU, shared by the store's lookups and the perfect hash's
//! queries.

/// Asks the CPU to start loading the cache line holding `address`. A
/// prefetch never faults and reads nothing the program sees, so any
/// address is sound; on targets without a stable prefetch it does nothing.
#[inline(always)]
pub(super) fn prefetch_line(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` is a hint: it neither dereferences the pointer
    // architecturally nor faults, whatever the address.
    #[allow(unsafe_code)]
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
