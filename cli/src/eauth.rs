//! Salt's external-authentication options, shared by `brine` and
//! `brine-run`: `-a`/`--auth`/`--eauth`/`--external-auth EAUTH`,
//! `-T`/`--make-token` (keep the token in `token_file`), `--username`,
//! `--password`; and the prompts Salt shows for what is not given
//! (`username: `, and `password: ` without echo on a terminal).

use super::{Matches, Opt};
use std::io::{BufRead, IsTerminal, Write};

/// The options, in every spelling Salt accepts.
pub const OPTIONS: [Opt; 6] = [
    Opt::value(
        "auth",
        Some('a'),
        "EAUTH",
        "authenticate with the external auth system EAUTH (pam, file, ...)",
    ),
    Opt::value("eauth", None, "EAUTH", "same as --auth"),
    Opt::value("external-auth", None, "EAUTH", "same as --auth"),
    Opt::flag(
        "make-token",
        Some('T'),
        "keep the token from --auth in token_file (~/.salt_token) for later calls",
    ),
    Opt::value("username", None, "USER", "the user name for --auth"),
    Opt::value("password", None, "PASSWORD", "the password for --auth"),
];

/// What the command line asked of external auth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EauthArgs {
    pub eauth: String,
    pub username: Option<String>,
    pub password: Option<String>,
    pub make_token: bool,
}

impl EauthArgs {
    /// `-a` and its companions, when `-a` was given.
    pub fn from_matches(m: &Matches) -> Option<EauthArgs> {
        let eauth = m
            .value_of_any(&["auth", "eauth", "external-auth"])
            .filter(|e| !e.is_empty())?;
        Some(EauthArgs {
            eauth: eauth.to_string(),
            username: m.value("username").map(str::to_string),
            password: m.value("password").map(str::to_string),
            make_token: m.flag("make-token"),
        })
    }

    /// The user name and password: given, else asked for as Salt asks
    /// (an empty user name is the user running the command).
    pub fn credentials(&self, current_user: &str) -> std::io::Result<(String, String)> {
        let username = match &self.username {
            Some(u) => u.clone(),
            None => prompt("username: ", false)?,
        };
        let username = if username.is_empty() {
            current_user.to_string()
        } else {
            username
        };
        let password = match &self.password {
            Some(p) => p.clone(),
            None => prompt("password: ", true)?,
        };
        Ok((username, password))
    }
}

/// One line from the user after `label` — on stdout, as Python's
/// `input`; a hidden one (without echo on a terminal) on stderr, as
/// `getpass`.
pub fn prompt(label: &str, hidden: bool) -> std::io::Result<String> {
    let mut err = std::io::stderr();
    if hidden {
        write!(err, "{label}")?;
        err.flush()?;
    } else {
        let mut out = std::io::stdout();
        write!(out, "{label}")?;
        out.flush()?;
    }
    let stdin = std::io::stdin();
    let restore = if hidden && stdin.is_terminal() {
        use nix::sys::termios::{tcgetattr, tcsetattr, LocalFlags, SetArg};
        match tcgetattr(&stdin) {
            Ok(old) => {
                let mut quiet = old.clone();
                quiet.local_flags.remove(LocalFlags::ECHO);
                let _ = tcsetattr(&stdin, SetArg::TCSANOW, &quiet);
                Some(old)
            }
            Err(_) => None,
        }
    } else {
        None
    };
    let mut line = String::new();
    let read = stdin.lock().read_line(&mut line);
    if let Some(old) = restore {
        let _ = nix::sys::termios::tcsetattr(&stdin, nix::sys::termios::SetArg::TCSANOW, &old);
        writeln!(err)?;
    }
    if read? == 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("no answer to {:?}", label.trim_end()),
        ));
    }
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_spelling_of_auth_and_its_companions() {
        let m = Matches {
            opts: vec![
                ("eauth", Some("pam".into())),
                ("make-token", None),
                ("username", Some("op".into())),
            ],
            positionals: vec![],
        };
        let e = EauthArgs::from_matches(&m);
        assert_eq!(
            e,
            Some(EauthArgs {
                eauth: "pam".into(),
                username: Some("op".into()),
                password: None,
                make_token: true,
            })
        );
        assert_eq!(EauthArgs::from_matches(&Matches::default()), None);
    }
}
