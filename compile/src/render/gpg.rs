//! Salt's `gpg` renderer (`#!yaml|gpg`, `#!jinja|yaml|gpg`): every
//! `-----BEGIN PGP MESSAGE----- … -----END PGP MESSAGE-----` block found
//! in the rendered data's strings, anywhere it sits, decrypted by the
//! host's `gpg` with the keyring in `gpg_keydir` (default: `gpgkeys` beside
//! the configuration file), as Salt's renderer runs it. A string that held
//! a block loses its trailing newlines once decrypted (Salt strips them).
//! A block that does not decrypt fails the render while
//! `gpg_decrypt_must_succeed` (Salt 3007's default) is on, and is left as
//! it was, with a warning, when it is off.
//!
//! `gpg` is a program of the host, run with a time and size bound; its
//! answer depends on a keyring outside the tree, so a compile that used it
//! is never given again from what it read ([`crate::inputs`]).
//!
//! Salt renders state files on the minion, with the minion's keyring;
//! brine's master compiles them. So a state compile the master runs for a
//! minion ([`DEFER_OPTION`]) decrypts nothing: each string holding a block
//! is marked ([`defer`]) and the minion opens it with its own keyring
//! ([`Gpg::open_deferred`], `crate::state::deferred_gpg`).

use brine_core::{Map, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The start and end of an ASCII-armoured message.
const BEGIN: &str = "-----BEGIN PGP MESSAGE-----";
const END: &str = "-----END PGP MESSAGE-----";

/// How long one decryption may take (gpg asks nobody: a key without
/// passphrase, `--no-tty`).
const GPG_TIMEOUT: Duration = Duration::from_secs(30);

/// The most a decrypted block may hold.
const MAX_PLAINTEXT: usize = 16 << 20;

/// Set in the options of a state compile the master runs for a minion:
/// the minion decrypts the state files' blocks.
pub const DEFER_OPTION: &str = "__gpg_on_minion";

/// Starts a string whose blocks the minion decrypts (private-use
/// characters, which no YAML or Jinja source yields by accident).
const DEFERRED: &str = "\u{F8FF}brine-gpg\u{F8FF}";

/// Every string of `v` that holds a block, marked for the minion.
pub fn defer(v: Value) -> Value {
    match v {
        Value::Str(s) if s.contains(BEGIN) && !s.starts_with(DEFERRED) => {
            Value::Str(format!("{DEFERRED}{s}"))
        }
        Value::List(l) => Value::List(l.into_iter().map(defer).collect()),
        Value::Map(m) => Value::Map(m.into_iter().map(|(k, x)| (k, defer(x))).collect()),
        other => other,
    }
}

/// What the renderer needs of the options.
#[derive(Debug, Clone, PartialEq)]
pub struct Gpg {
    /// The GnuPG home holding the keys.
    pub keydir: PathBuf,
    /// `gpg_decrypt_must_succeed` (default true).
    pub must_succeed: bool,
}

impl Gpg {
    /// From the options a render sees: `gpg_keydir`, else `gpgkeys` in
    /// `config_dir` (or the folder of `conf_file`).
    pub fn of(opts: &Map) -> Gpg {
        let text = |k: &str| {
            opts.get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let keydir = match text("gpg_keydir") {
            Some(d) => PathBuf::from(d),
            None => {
                let dir = text("config_dir").map(PathBuf::from).or_else(|| {
                    text("conf_file").and_then(|f| Path::new(f).parent().map(Path::to_path_buf))
                });
                dir.unwrap_or_else(|| PathBuf::from("/etc/salt"))
                    .join("gpgkeys")
            }
        };
        let must_succeed = opts
            .get("gpg_decrypt_must_succeed")
            .is_none_or(Value::is_truthy);
        Gpg {
            keydir,
            must_succeed,
        }
    }

    /// Every block in `v` decrypted (Salt's `_decrypt_object`).
    pub fn decrypt(&self, v: Value) -> Result<Value, String> {
        Ok(match v {
            Value::Str(s) => Value::Str(self.decrypt_text(&s)?),
            Value::List(l) => Value::List(
                l.into_iter()
                    .map(|x| self.decrypt(x))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Map(m) => Value::Map(
                m.into_iter()
                    .map(|(k, x)| Ok((k, self.decrypt(x)?)))
                    .collect::<Result<Map, String>>()?,
            ),
            other => other,
        })
    }

    /// Every block in `v` decrypted where it sits, in order: what was
    /// decrypted before a block that fails stays decrypted, as Salt's
    /// renderer leaves a mutable pillar value it worked on in place.
    pub fn decrypt_in_place(&self, v: &mut Value) -> Result<(), String> {
        match v {
            Value::Str(s) => *s = self.decrypt_text(s)?,
            Value::List(l) => l.iter_mut().try_for_each(|x| self.decrypt_in_place(x))?,
            Value::Map(m) => m.values_mut().try_for_each(|x| self.decrypt_in_place(x))?,
            _ => {}
        }
        Ok(())
    }

    /// The marked strings of `v` ([`defer`]) decrypted where they sit; the
    /// first failure's words. Whether any was found.
    pub fn open_deferred(&self, v: &mut Value) -> Result<bool, String> {
        match v {
            Value::Str(s) => match s.strip_prefix(DEFERRED) {
                Some(marked) => {
                    *s = self.decrypt_text(marked)?;
                    Ok(true)
                }
                None => Ok(false),
            },
            Value::List(l) => l
                .iter_mut()
                .try_fold(false, |found, x| Ok(self.open_deferred(x)? || found)),
            Value::Map(m) => m
                .values_mut()
                .try_fold(false, |found, x| Ok(self.open_deferred(x)? || found)),
            _ => Ok(false),
        }
    }

    /// The blocks of one string decrypted in place; with any found, the
    /// trailing newlines taken off.
    pub fn decrypt_text(&self, s: &str) -> Result<String, String> {
        if !s.contains(BEGIN) {
            return Ok(s.to_string());
        }
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        let mut found = false;
        while let Some(at) = rest.find(BEGIN) {
            let Some(len) = rest[at..].find(END) else {
                break;
            };
            let block = &rest[at..at + len + END.len()];
            out.push_str(&rest[..at]);
            out.push_str(&self.decrypt_block(block)?);
            rest = &rest[at + len + END.len()..];
            found = true;
        }
        out.push_str(rest);
        if found {
            let trimmed = out.trim_end_matches('\n').len();
            out.truncate(trimmed);
        }
        Ok(out)
    }

    /// One block through `gpg -d`; the block itself when it cannot be
    /// decrypted and that may pass.
    fn decrypt_block(&self, block: &str) -> Result<String, String> {
        crate::inputs::volatile(|| "a gpg block was decrypted".into());
        let (plain, status) = match run_gpg(&self.keydir, block.as_bytes()) {
            Ok(out) => out,
            Err(e) => (Vec::new(), e.into_bytes()),
        };
        if !plain.is_empty() {
            return Ok(String::from_utf8_lossy(&plain).into_owned());
        }
        let why = format!(
            "Could not decrypt cipher {}, received: {}",
            bytes_repr(block.as_bytes()),
            bytes_repr(&status)
        );
        if self.must_succeed {
            return Err(why);
        }
        tracing::warn!("{why}");
        Ok(block.to_string())
    }
}

/// Python's `repr()` of bytes (`b'...'`), as Salt's messages show them.
fn bytes_repr(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    let mut out = format!("b{quote}");
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            c if c as char == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(c as char),
            c => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out.push(quote);
    out
}

/// `gpg --homedir KEYDIR --status-fd 2 --no-tty -d`, `input` on stdin:
/// stdout and stderr, bounded in time and size.
fn run_gpg(keydir: &Path, input: &[u8]) -> Result<(Vec<u8>, Vec<u8>), String> {
    let mut cmd = Command::new("gpg");
    cmd.arg("--homedir")
        .arg(keydir)
        .args(["--status-fd", "2", "--no-tty", "-d"]);
    let out = crate::command::run(cmd, input, GPG_TIMEOUT, MAX_PLAINTEXT).map_err(|e| match e {
        crate::command::CommandError::Spawn(e) => format!("GPG unavailable: {e}"),
        other => other.to_string(),
    })?;
    Ok((out.stdout, out.stderr))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_as_salt_reads_them() {
        let mut o = Map::default();
        o.insert("conf_file".into(), Value::from("/etc/brine/minion"));
        assert_eq!(Gpg::of(&o).keydir, PathBuf::from("/etc/brine/gpgkeys"));
        assert!(Gpg::of(&o).must_succeed);
        o.insert("gpg_keydir".into(), Value::from("/k"));
        o.insert("gpg_decrypt_must_succeed".into(), Value::Bool(false));
        assert_eq!(
            Gpg::of(&o),
            Gpg {
                keydir: "/k".into(),
                must_succeed: false
            }
        );
    }

    #[test]
    fn text_without_a_block_is_left_alone() {
        let g = Gpg::of(&Map::default());
        assert_eq!(g.decrypt_text("plain\n").unwrap(), "plain\n");
        // Python: repr(b"a\n'b'\x01") == 'b"a\\n\'b\'\\x01"'
        assert_eq!(bytes_repr(b"a\n'b'\x01"), "b\"a\\n'b'\\x01\"");
    }
}
