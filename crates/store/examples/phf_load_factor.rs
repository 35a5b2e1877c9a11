//! The perfect hash's build time, query time and size by load factor, for
//! choosing the mmap store's (`GAMMA` in `src/mmap/mod.rs`).
//!
//! usage: cargo run --release -p store --example phf_load_factor -- KEYS GAMMA...
//!
//! Builds boomphf over KEYS distinct 128-bit keys from a list on every
//! core (as the store's build does), then queries every key once on one
//! thread in a scattered order; two rounds, each load factor in turn.
//! Prints a table with each figure as a ratio against the first load
//! factor's in the same round.

use std::time::Instant;

use boomphf::Mphf;

fn key(i: u64) -> u128 {
    u128::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) ^ 0xABCD
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parsed = args.split_first().and_then(|(keys, gammas)| {
        let keys: u64 = keys.parse().ok().filter(|&keys| keys > 0)?;
        let gammas: Option<Vec<f64>> = gammas
            .iter()
            .map(|gamma| gamma.parse().ok().filter(|&gamma: &f64| gamma >= 1.0))
            .collect();
        Some((keys, gammas.filter(|gammas| !gammas.is_empty())?))
    });
    let Some((count, gammas)) = parsed else {
        eprintln!(
            "usage: phf_load_factor KEYS GAMMA... (KEYS above 0, each GAMMA at least 1.0), e.g. 20000000 1.7 3 5"
        );
        std::process::exit(2);
    };
    let keys: Vec<u128> = (0..count).map(key).collect();
    // A stride coprime with the count visits every key once, scattered.
    let stride = (1..)
        .map(|k| 7919 * k)
        .find(|s| gcd(*s, count) == 1)
        .unwrap_or(1);
    let probes: Vec<u128> = (0..count).map(|i| key((i * stride) % count)).collect();
    println!(
        "| round | gamma | build (s) | query (ns/key, one thread) | bytes/key | build vs first | query vs first |"
    );
    println!("|---|---|---|---|---|---|---|");
    for round in 1..=2 {
        let mut first = None;
        for &gamma in &gammas {
            let start = Instant::now();
            let phf = Mphf::new_parallel(gamma, &keys, None);
            let build = start.elapsed().as_secs_f64();
            let start = Instant::now();
            let slots: u64 = probes.iter().map(|probe| phf.hash(probe)).sum();
            let query = start.elapsed().as_secs_f64() * 1e9 / count as f64;
            // Every slot once: the sum of 0..count.
            assert_eq!(slots, count * (count - 1) / 2, "not a minimal perfect hash");
            let bytes = postcard::to_stdvec(&phf).map_or(0, |bytes| bytes.len());
            let (build0, query0) = *first.get_or_insert((build, query));
            println!(
                "| {round} | {gamma} | {build:.3} | {query:.1} | {:.2} | {:.2}x | {:.2}x |",
                bytes as f64 / count as f64,
                build / build0,
                query / query0
            );
        }
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}
