use store::{Record, RecordLayout, RecordEncoding};
use std::hint::black_box;
fn main() {
    let layout = RecordLayout::new(7, RecordEncoding::I16Scaled).unwrap();
    let mut records = Vec::new();
    let mut x = 12345u64;
    for _ in 0..1024 {
        let mut r = Record::default();
        for i in 0..7 { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); r.regrets[i] = ((x >> 40) as f32 - 8e6) / 1000.0; r.strategy_sum[i] = (x >> 44) as f32 / 7.0; }
        r.last_iteration = 5;
        records.push(r);
    }
    let len = layout.bytes() as usize;
    let mut encoded = vec![[0u8; 64]; 1024];
    let n = 20_000_000;
    let mut digest = 0u64;
    let t = std::time::Instant::now();
    for i in 0..n {
        let out = &mut encoded[i & 1023];
        layout.encode(7, black_box(&records[i & 1023]), &mut out[..len]);
        black_box(&out);
    }
    for e in &encoded { for b in e { digest = digest.wrapping_mul(31).wrapping_add(u64::from(*b)); } }
    let enc = t.elapsed().as_nanos() as f64 / n as f64;
    println!("encode {enc:.1} ns, digest {digest:x}");
}
