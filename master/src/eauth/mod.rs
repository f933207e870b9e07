//! Who may do what on the master, as Salt decides it, for every way in:
//! brine-api's logins, `brine -a <eauth>` (and `-T`'s kept token), and
//! local users who are not root under `publisher_acl`. A caller's path:
//! [`backends`] (who a login is: `auto`, `sharedsecret`, `file` with
//! [`htpasswd`], [`pam`]) → [`tokens`] (a login kept, stored by the
//! master) → [`acl`] (may they: Salt's permission expressions).
//! [`publisher_acl`] is the local users' side: their key files and the
//! blacklist; [`caller`] puts it together for the master: who a request
//! of the CLI is and whether they may publish it.

pub mod acl;
pub mod backends;
pub mod caller;
pub mod htpasswd;
pub mod pam;
pub mod publisher_acl;
pub mod tokens;

pub use backends::{Eauth, EauthError, Login};
