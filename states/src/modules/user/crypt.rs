//! SHA-512 `crypt(3)` hashes (`$6$salt$...`), what `user.present` with
//! `hash_password: True` writes to `/etc/shadow` (Salt hashes with the C
//! library's `crypt`, whose first method is SHA-512). The rounds come from
//! RustCrypto's `sha-crypt`; this module only lays out the result as glibc
//! prints it.

use base64ct::{Base64ShaCrypt, Encoding};
use sha_crypt::Params;

/// The salt alphabet of `crypt(3)`.
const ITOA64: &[u8; 64] = b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Where each byte of the final digest goes before the crypt-Base64
/// encoding (the byte order the SHA-crypt specification fixes).
const SHA512_ORDER: [usize; 64] = [
    42, 21, 0, 1, 43, 22, 23, 2, 44, 45, 24, 3, 4, 46, 25, 26, 5, 47, 48, 27, 6, 7, 49, 28, 29, 8,
    50, 51, 30, 9, 10, 52, 31, 32, 11, 53, 54, 33, 12, 13, 55, 34, 35, 14, 56, 57, 36, 15, 16, 58,
    37, 38, 17, 59, 60, 39, 18, 19, 61, 40, 41, 20, 62, 63,
];

/// Salt's salts are at most 16 characters; glibc ignores the rest.
const MAX_SALT: usize = 16;

/// The `$6$` hash of `password` with `salt` (at most 16 bytes used), with
/// the default 5000 rounds, which glibc leaves out of the string.
pub fn sha512_crypt(password: &str, salt: &str) -> String {
    let salt = &salt.as_bytes()[..salt.len().min(MAX_SALT)];
    let digest = sha_crypt::sha512_crypt(password.as_bytes(), salt, Params::RECOMMENDED);
    let ordered: Vec<u8> = SHA512_ORDER.iter().map(|&i| digest[i]).collect();
    format!(
        "$6${}${}",
        String::from_utf8_lossy(salt),
        Base64ShaCrypt::encode_string(&ordered)
    )
}

/// A random 16-character salt from the crypt alphabet.
pub fn random_salt() -> String {
    let mut bytes = [0u8; MAX_SALT];
    if getrandom::fill(&mut bytes).is_err() {
        // No entropy source: mix the clock and pid so two salts still differ.
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
            ^ u128::from(std::process::id());
        bytes.copy_from_slice(&seed.to_le_bytes());
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
