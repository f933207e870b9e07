//! Apache's password files as Salt's `file` eauth reads them (through
//! passlib): `htpasswd` lines `user:hash` with the hash in one of
//! Apache's forms — `$apr1$` and `$1$` (MD5-crypt), `$2y$`/`$2b$`/`$2a$`
//! (bcrypt), `{SHA}` (SHA-1, base64), `$6$` (SHA-512 crypt at the default
//! rounds), or plain text — and `htdigest` lines `user:realm:md5hex`.
//! DES crypt (13 characters) is refused rather than taken for plain text.

use base64::Engine;
use md5::{Digest, Md5};

/// The crypt alphabet (MD5-crypt's output and salts).
const ITOA64: &[u8; 64] = b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Compare without stopping at the first difference.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether the `htpasswd` file `text` has `user` with `password`.
pub fn check_htpasswd(text: &str, user: &str, password: &str) -> bool {
    let Some(hash) = text
        .lines()
        .filter_map(|l| l.trim().split_once(':'))
        .find(|(u, _)| *u == user)
        .map(|(_, h)| h)
    else {
        return false;
    };
    verify(hash, password)
}

/// Whether the `htdigest` file `text` has `user` in `realm` with
/// `password` (`md5(user:realm:password)` in hex).
pub fn check_htdigest(text: &str, realm: &str, user: &str, password: &str) -> bool {
    let want = hex(&Md5::digest(
        format!("{user}:{realm}:{password}").as_bytes(),
    ));
    text.lines().any(|l| {
        let mut f = l.trim().splitn(3, ':');
        f.next() == Some(user)
            && f.next() == Some(realm)
            && f.next()
                .is_some_and(|h| constant_time_eq(h.as_bytes(), want.as_bytes()))
    })
}

/// One htpasswd hash checked against `password`.
fn verify(hash: &str, password: &str) -> bool {
    let computed = if let Some(rest) = hash.strip_prefix("$apr1$") {
        md5_crypt(password, salt_of(rest), "$apr1$")
    } else if let Some(rest) = hash.strip_prefix("$1$") {
        md5_crypt(password, salt_of(rest), "$1$")
    } else if ["$2y$", "$2b$", "$2a$"].iter().any(|p| hash.starts_with(p)) {
        return bcrypt::verify(password, hash).unwrap_or(false);
    } else if hash.starts_with("{SHA}") {
        format!(
            "{{SHA}}{}",
            base64::engine::general_purpose::STANDARD.encode(sha1::Sha1::digest(password))
        )
    } else if let Some(rest) = hash.strip_prefix("$6$") {
        if rest.starts_with("rounds=") {
            tracing::warn!("htpasswd: $6$ hashes with explicit rounds are not supported");
            return false;
        }
        brine_states::modules::user::crypt::sha512_crypt(password, salt_of(rest))
    } else if hash.len() == 13 && hash.bytes().all(|b| ITOA64.contains(&b)) {
        tracing::warn!("htpasswd: DES crypt hashes are not supported (use bcrypt or apr1)");
        return false;
    } else {
        password.to_string()
    };
    constant_time_eq(computed.as_bytes(), hash.as_bytes())
}

/// The salt of `salt$digest`.
fn salt_of(rest: &str) -> &str {
    rest.split('$').next().unwrap_or("")
}

/// MD5-crypt (Poul-Henning Kamp's, as FreeBSD and Apache's `$apr1$` use
/// it): the full `magic salt $ digest` string.
fn md5_crypt(password: &str, salt: &str, magic: &str) -> String {
    let pw = password.as_bytes();
    let salt = &salt.as_bytes()[..salt.len().min(8)];
    let alt = {
        let mut h = Md5::new();
        h.update(pw);
        h.update(salt);
        h.update(pw);
        h.finalize()
    };
    let mut h = Md5::new();
    h.update(pw);
    h.update(magic.as_bytes());
    h.update(salt);
    let mut left = pw.len();
    while left > 0 {
        let n = left.min(16);
        h.update(&alt[..n]);
        left -= n;
    }
    let mut i = pw.len();
    while i > 0 {
        if i & 1 == 1 {
            h.update([0u8]);
        } else {
            h.update(&pw[..1]);
        }
        i >>= 1;
    }
    let mut fin = h.finalize();
    for round in 0..1000 {
        let mut c = Md5::new();
        if round & 1 == 1 {
            c.update(pw);
        } else {
            c.update(fin);
        }
        if round % 3 != 0 {
            c.update(salt);
        }
        if round % 7 != 0 {
            c.update(pw);
        }
        if round & 1 == 1 {
            c.update(fin);
        } else {
            c.update(pw);
        }
        fin = c.finalize();
    }
    let mut out = String::new();
    let mut put = |v: u32, n: usize| {
        let mut v = v;
        for _ in 0..n {
            out.push(char::from(ITOA64[(v & 0x3f) as usize]));
            v >>= 6;
        }
    };
    for (a, b, c) in [(0, 6, 12), (1, 7, 13), (2, 8, 14), (3, 9, 15), (4, 10, 5)] {
        put(
            (u32::from(fin[a]) << 16) | (u32::from(fin[b]) << 8) | u32::from(fin[c]),
            4,
        );
    }
    put(u32::from(fin[11]), 2);
    format!("{magic}{}${out}", String::from_utf8_lossy(salt))
}

/// `hashutil.digest` of Salt's `text` files: the password's digest in hex.
pub fn hex_digest(kind: &str, password: &str) -> Option<String> {
    let b = password.as_bytes();
    Some(match kind {
        "md5" => hex(&Md5::digest(b)),
        "sha1" => hex(&sha1::Sha1::digest(b)),
        "sha224" => hex(&sha2::Sha224::digest(b)),
        "sha256" => hex(&sha2::Sha256::digest(b)),
        "sha384" => hex(&sha2::Sha384::digest(b)),
        "sha512" => hex(&sha2::Sha512::digest(b)),
        _ => return None,
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hashes from `openssl passwd` (apr1, 1, 6), `sha1 | base64`, and
    /// the published bcrypt vector for "U*U".
    #[test]
    fn apaches_hash_forms_verify() {
        let file = "\
alice:$apr1$xyz$NU.niW1.aK5j0LYFfMca4/
bob:$1$abcdefgh$cHJi5PXp/ki/ktXzqlk6I1
carol:{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=
dave:$6$saltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0U0aDehy0S5knV8wiOQSpT0Y77vwPZN.Pq.H91p5hVO1
erin:$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW
frank:plainsecret
greg:abJnggxhB/yWI
";
        assert!(check_htpasswd(file, "alice", "password"));
        assert!(!check_htpasswd(file, "alice", "passwore"));
        assert!(check_htpasswd(file, "bob", "secret"));
        assert!(check_htpasswd(file, "carol", "secret"));
        assert!(!check_htpasswd(file, "carol", "Secret"));
        assert!(check_htpasswd(file, "dave", "secret"));
        assert!(check_htpasswd(file, "erin", "U*U"));
        assert!(!check_htpasswd(file, "erin", "U*V"));
        assert!(check_htpasswd(file, "frank", "plainsecret"));
        // A DES hash is not taken for a plain-text password.
        assert!(!check_htpasswd(file, "greg", "abJnggxhB/yWI"));
        assert!(!check_htpasswd(file, "nobody", ""));
    }

    #[test]
    fn htdigest_and_text_digests() {
        let file = "alice:realm1:7d97099674fa7503adc2add5d746b98c\n";
        assert!(check_htdigest(file, "realm1", "alice", "secret"));
        assert!(!check_htdigest(file, "realm2", "alice", "secret"));
        assert!(!check_htdigest(file, "realm1", "alice", "Secret"));
        assert_eq!(
            hex_digest("sha1", "secret").as_deref(),
            Some("e5e9fa1ba31ecd1ae84f75caaa474f3a663f05f4")
        );
        assert_eq!(hex_digest("crc", "x"), None);
    }
}
