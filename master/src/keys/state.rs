//! Where a minion key stands: accepted, pending, rejected or denied.

/// The state a minion key is in; each is a directory of `pki_dir`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyState {
    Accepted,
    Pending,
    Rejected,
    Denied,
}

impl KeyState {
    /// All states in the order Salt's key listings use as dict order.
    pub const ALL: [KeyState; 4] = [
        KeyState::Accepted,
        KeyState::Pending,
        KeyState::Rejected,
        KeyState::Denied,
    ];

    /// Directory name under `pki_dir`, also the key of `--out json`.
    pub fn dir_name(self) -> &'static str {
        match self {
            KeyState::Accepted => "minions",
            KeyState::Pending => "minions_pre",
            KeyState::Rejected => "minions_rejected",
            KeyState::Denied => "minions_denied",
        }
    }

    /// Heading printed by salt-key's key outputter.
    pub fn heading(self) -> &'static str {
        match self {
            KeyState::Accepted => "Accepted Keys:",
            KeyState::Pending => "Unaccepted Keys:",
            KeyState::Rejected => "Rejected Keys:",
            KeyState::Denied => "Denied Keys:",
        }
    }

    /// Word used in "does not match any ... keys".
    pub fn adjective(self) -> &'static str {
        match self {
            KeyState::Accepted => "accepted",
            KeyState::Pending => "unaccepted",
            KeyState::Rejected => "rejected",
            KeyState::Denied => "denied",
        }
    }
}
