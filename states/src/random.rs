//! Cheap randomness for the runtime's retry splay and the `test` states'
//! coin tosses: not for secrets.

/// A number in `0..n` (0 when n <= 0), random enough for a retry splay
/// or a coin toss.
pub fn below(n: i64) -> i64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    if n <= 0 {
        0
    } else {
        (h.finish() % n as u64) as i64
    }
}
