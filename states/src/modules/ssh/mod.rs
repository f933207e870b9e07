//! The host side of Salt's `ssh` module that the `ssh_auth` and
//! `ssh_known_hosts` states and the `ssh.*` execution functions share:
//! authorized_keys files and known_hosts files.

pub mod authorized;
pub mod known_hosts;

#[cfg(test)]
mod tests {
    /// `ssh_auth` and `ssh_known_hosts` against Salt 3007.8's recorded
    /// answers (`testdata/ssh.json`: files under the case's folder, keys
    /// given, no network).
    #[test]
    fn ssh_states_match_salt() {
        crate::replay::replay(
            include_str!("../testdata/ssh.json"),
            &crate::modules::ssh_auth::MODULE,
            None,
        );
    }
}
