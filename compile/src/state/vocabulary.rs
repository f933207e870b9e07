//! Salt's state vocabulary, written once: the requisite keywords and the
//! other keys of a state declaration or low chunk that belong to the state
//! system rather than to the state function. The compiler and the minion's
//! requisite runtime (`brine_states::engine`) both read these.

/// The requisites (Salt's `STATE_REQUISITE_KEYWORDS`). An `extend` appends
/// to their lists instead of replacing them; a `listen` watcher drops them.
pub const REQUISITE_KEYWORDS: &[&str] = &[
    "onchanges",
    "onchanges_any",
    "onfail",
    "onfail_any",
    "onfail_all",
    "onfail_stop",
    "prereq",
    "prerequired",
    "watch",
    "watch_any",
    "require",
    "require_any",
    "listen",
];

/// The requisites a chunk waits on before it runs (what Salt's
/// `check_requisite` looks for): all but `listen`, which runs a watcher
/// after the whole run, and `onfail_stop`, a flag of `onfail`. The
/// compiler reads their keywords; the minion's requisite runtime matches
/// on the kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requisite {
    Require,
    RequireAny,
    Watch,
    WatchAny,
    Prereq,
    Onfail,
    OnfailAny,
    OnfailAll,
    Onchanges,
    OnchangesAny,
    Prerequired,
}

impl Requisite {
    /// Every kind a chunk waits on.
    pub const WAITING: [Requisite; 11] = [
        Requisite::Watch,
        Requisite::WatchAny,
        Requisite::Require,
        Requisite::RequireAny,
        Requisite::Prerequired,
        Requisite::Prereq,
        Requisite::Onfail,
        Requisite::OnfailAny,
        Requisite::OnfailAll,
        Requisite::Onchanges,
        Requisite::OnchangesAny,
    ];

    /// The kind a keyword spells ([`Requisite::key`] read back, so the
    /// keywords are written once).
    pub fn of_key(key: &str) -> Option<Requisite> {
        Requisite::WAITING.into_iter().find(|r| r.key() == key)
    }

    /// The keyword a state declaration or low chunk spells it with.
    pub const fn key(self) -> &'static str {
        match self {
            Requisite::Require => "require",
            Requisite::RequireAny => "require_any",
            Requisite::Watch => "watch",
            Requisite::WatchAny => "watch_any",
            Requisite::Prereq => "prereq",
            Requisite::Onfail => "onfail",
            Requisite::OnfailAny => "onfail_any",
            Requisite::OnfailAll => "onfail_all",
            Requisite::Onchanges => "onchanges",
            Requisite::OnchangesAny => "onchanges_any",
            Requisite::Prerequired => "prerequired",
        }
    }

    pub const fn is_onfail(self) -> bool {
        matches!(
            self,
            Requisite::Onfail | Requisite::OnfailAny | Requisite::OnfailAll
        )
    }

    pub const fn is_onchanges(self) -> bool {
        matches!(self, Requisite::Onchanges | Requisite::OnchangesAny)
    }

    pub const fn is_watch(self) -> bool {
        matches!(self, Requisite::Watch | Requisite::WatchAny)
    }

    /// The `_any` forms: met when one of the named states is.
    pub const fn is_any(self) -> bool {
        matches!(
            self,
            Requisite::RequireAny
                | Requisite::WatchAny
                | Requisite::OnfailAny
                | Requisite::OnchangesAny
        )
    }
}

/// The `_in` forms (Salt's `STATE_REQUISITE_IN_KEYWORDS`).
pub const REQUISITE_IN_KEYWORDS: &[&str] = &[
    "onchanges_in",
    "onfail_in",
    "prereq_in",
    "watch_in",
    "require_in",
    "listen_in",
];

/// The other keys the state system reads from a chunk (Salt's
/// `STATE_RUNTIME_KEYWORDS`): its identity, the run's options, and what
/// the publication adds.
pub const RUNTIME_KEYWORDS: &[&str] = &[
    "fun",
    "state",
    "check_cmd",
    "cmd_opts_exclude",
    "failhard",
    "onlyif",
    "unless",
    "creates",
    "retry",
    "order",
    "parallel",
    "reload_modules",
    "reload_grains",
    "reload_pillar",
    "runas",
    "runas_password",
    "fire_event",
    "saltenv",
    "umask",
    "use",
    "use_in",
    "__env__",
    "__sls__",
    "__id__",
    "__sls_included_from__",
    "__orchestration_jid__",
    "__pub_user",
    "__pub_arg",
    "__pub_jid",
    "__pub_fun",
    "__pub_tgt",
    "__pub_ret",
    "__pub_pid",
    "__pub_tgt_type",
    "__prereq__",
    "__prerequired__",
    "__umask__",
];

/// Keys that drive the state system and are never passed to a state
/// function's `**kwargs` (Salt's `STATE_INTERNAL_KEYWORDS`: the three
/// lists above).
pub fn is_internal_keyword(key: &str) -> bool {
    REQUISITE_KEYWORDS.contains(&key)
        || REQUISITE_IN_KEYWORDS.contains(&key)
        || RUNTIME_KEYWORDS.contains(&key)
}

/// The arguments Salt's `requisite_in` turns into requisites on other
/// states: the `_in` forms it handles, `use`/`use_in`, and `prereq` (whose
/// target gets `prerequired`).
pub const REQUISITE_IN_ARGS: &[&str] = &[
    "require_in",
    "watch_in",
    "onfail_in",
    "onchanges_in",
    "use",
    "use_in",
    "prereq",
    "prereq_in",
];

/// Requisites `use`/`use_in` never copy from the state used, besides the
/// [`REQUISITE_IN_ARGS`].
const NOT_COPIED_BY_USE: &[&str] = &["require", "watch", "onfail", "onfail_stop", "onchanges"];

/// Whether `use`/`use_in` copies an argument of the state used: not its
/// requisites, not its `name`/`names`.
pub fn copied_by_use(key: &str) -> bool {
    !(REQUISITE_IN_ARGS.contains(&key)
        || NOT_COPIED_BY_USE.contains(&key)
        || key == "name"
        || key == "names")
}

/// Requisites whose targets `verify_high` checks for direct recursion.
pub const RECURSION_CHECKED_REQUISITES: &[&str] = &["require", "watch", "prereq", "onchanges"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_agree() {
        for r in Requisite::WAITING {
            assert!(REQUISITE_KEYWORDS.contains(&r.key()), "{r:?}");
            assert_eq!(Requisite::of_key(r.key()), Some(r));
        }
        // Every other keyword is no kind a chunk waits on.
        let waited = |k: &&str| Requisite::WAITING.iter().any(|r| r.key() == *k);
        for k in REQUISITE_KEYWORDS.iter().filter(|k| !waited(k)) {
            assert_eq!(Requisite::of_key(k), None, "{k}");
        }
        assert_eq!(Requisite::of_key("require_in"), None);
        assert_eq!(Requisite::WAITING.len() + 2, REQUISITE_KEYWORDS.len());
        for k in REQUISITE_IN_ARGS {
            assert!(is_internal_keyword(k), "{k}");
        }
        for k in RECURSION_CHECKED_REQUISITES {
            assert!(REQUISITE_KEYWORDS.contains(k), "{k}");
        }
        assert!(is_internal_keyword("listen_in") && is_internal_keyword("__umask__"));
        assert!(!is_internal_keyword("name") && !is_internal_keyword("names"));
        assert!(copied_by_use("mode") && !copied_by_use("watch") && !copied_by_use("names"));
    }
}
