//! SHA-512 `crypt(3)` hashes (`$6$salt$...`), what `user.present` with
//! `hash_password: True` writes to `/etc/shadow` (Salt hashes with the C
//! library's `crypt`, whose first method is SHA-512).

use sha2::{Digest, Sha512};

const ITOA64: &[u8; 64] = b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const ROUNDS: usize = 5000;

/// The `$6$` hash of `password` with `salt` (at most 16 characters used).
pub fn sha512_crypt(password: &str, salt: &str) -> String {
    let p = password.as_bytes();
    let s = &salt.as_bytes()[..salt.len().min(16)];

    let b = Sha512::new()
        .chain_update(p)
        .chain_update(s)
        .chain_update(p)
        .finalize();

    let mut a = Sha512::new().chain_update(p).chain_update(s);
    let mut left = p.len();
    while left > 64 {
        a.update(&b[..]);
        left -= 64;
    }
    a.update(&b[..left]);
    let mut n = p.len();
    while n > 0 {
        if n & 1 == 1 {
            a.update(&b[..]);
        } else {
            a.update(p);
        }
        n >>= 1;
    }
    let a = a.finalize();

    let mut dp = Sha512::new();
    for _ in 0..p.len() {
        dp.update(p);
    }
    let dp = dp.finalize();
    let p_seq: Vec<u8> = dp.iter().cycle().take(p.len()).copied().collect();

    let mut ds = Sha512::new();
    for _ in 0..16 + usize::from(a[0]) {
        ds.update(s);
    }
    let ds = ds.finalize();
    let s_seq: Vec<u8> = ds.iter().cycle().take(s.len()).copied().collect();

    let mut c: Vec<u8> = a.to_vec();
    for i in 0..ROUNDS {
        let mut h = Sha512::new();
        if i % 2 == 1 {
            h.update(&p_seq);
        } else {
            h.update(&c);
        }
        if i % 3 != 0 {
            h.update(&s_seq);
        }
        if i % 7 != 0 {
            h.update(&p_seq);
        }
        if i % 2 == 1 {
            h.update(&c);
        } else {
            h.update(&p_seq);
        }
        c = h.finalize().to_vec();
    }

    let mut out = format!("$6${}$", String::from_utf8_lossy(s));
    let mut push = |b2: u8, b1: u8, b0: u8, n: usize| {
        let mut w = (u32::from(b2) << 16) | (u32::from(b1) << 8) | u32::from(b0);
        for _ in 0..n {
            out.push(char::from(ITOA64[(w & 0x3f) as usize]));
            w >>= 6;
        }
    };
    // The byte order the SHA-512 crypt specification fixes.
    for k in 0..21 {
        let i0 = k;
        let i1 = (k + 21) % 63;
        let i2 = (k + 42) % 63;
        let (x, y, z) = match k % 3 {
            0 => (i0, i1, i2),
            1 => (i1, i2, i0),
            _ => (i2, i0, i1),
        };
        push(c[x], c[y], c[z], 4);
    }
    push(0, 0, c[63], 2);
    out
}

/// A random 16-character salt from the crypt alphabet.
pub fn random_salt() -> String {
    let mut bytes = [0u8; 16];
    let ok = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
        .is_ok();
    if !ok {
        // No urandom: mix the clock and pid so two salts still differ.
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
            ^ u128::from(std::process::id());
        let h = Sha512::digest(seed.to_le_bytes());
        bytes.copy_from_slice(&h[..16]);
    }
    bytes
        .iter()
        .map(|b| char::from(ITOA64[usize::from(b & 0x3f)]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hashes Python's `crypt.crypt` (glibc) gave for the same input.
    #[test]
    fn matches_glibc() {
        assert_eq!(
            sha512_crypt("secret", "abcdefgh"),
            "$6$abcdefgh$ltjgWl6579NluT/Vi1nwEvcil.G5Nbc4NiXZaNGStk8PSwGfQv72N2CKPPrVACtLtip/cZ/1GM/O6IND4WQhG."
        );
        assert_eq!(
            sha512_crypt("", "saltsaltsaltsaltX"),
            "$6$saltsaltsaltsalt$ZoazQmGR9bC6QrJYR3tzNWcqLcufy5crjHpWJDgzT7.T1AcGT7.bjOq387RVyRrJnBux4dyLiO1lh8TYvVlJf/"
        );
        assert_eq!(
            sha512_crypt(&"x".repeat(200), "s"),
            "$6$s$tYpycEemO97Y6HIY845rF3yf.HlJ/gqSlTg8SL9qD.UzYKbnSYk9V/JBv0kBTBI/ivG1.4UzWg/OU93YJhcYX0"
        );
        let s = random_salt();
        assert_eq!(s.len(), 16);
        assert_ne!(s, random_salt());
    }
}
