// Throwaway harness (a binary crate depending on boomphf 0.6 with "parallel" and rayon):
// builds boomphf over N random u128 keys at each gamma, then times try_hash of 10 M keys drawn from the set.
// Run: encbench 46000000 1.7 2.5 4
use boomphf::Mphf;
use std::hint::black_box;
fn main() {
    let n: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let gammas: Vec<f64> = std::env::args().skip(2).map(|g| g.parse().unwrap()).collect();
    let mut x = 0x1234_5678_9abc_def0u64;
    let mut next = || { x ^= x << 13; x ^= x >> 7; x ^= x << 17; x };
    let keys: Vec<u128> = (0..n).map(|_| (u128::from(next()) << 64) | u128::from(next())).collect();
    let chunks: Vec<Vec<u128>> = keys.chunks(1 << 20).map(|c| c.to_vec()).collect();
    for g in gammas {
        let t = std::time::Instant::now();
        let phf = Mphf::from_chunked_iterator_parallel(g, &chunks, None, n as u64, 2);
        let build = t.elapsed().as_secs_f64();
        let m = 10_000_000;
        let probe: Vec<u128> = (0..m).map(|_| keys[(next() % n as u64) as usize]).collect();
        let t = std::time::Instant::now();
        let mut s = 0u64;
        for k in &probe { s = s.wrapping_add(phf.try_hash(black_box(k)).unwrap()); }
        let ns = t.elapsed().as_nanos() as f64 / m as f64;
        println!("gamma {g}: build {build:.1} s, lookup {ns:.1} ns ({s})");
    }
}
