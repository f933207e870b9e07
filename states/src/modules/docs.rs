//! What each state module and function is for, in our own words: what
//! `sys.list_state_modules`, `sys.list_state_functions` and `sys.state_doc`
//! answer. A test checks this table against [`super::lookup`].

/// A state module's documentation: its own, and one entry per function.
pub struct ModuleDoc {
    pub name: &'static str,
    pub doc: &'static str,
    pub functions: &'static [(&'static str, &'static str)],
}

/// Every state module brine has, by name.
pub static DOCS: &[ModuleDoc] = &[
    ModuleDoc {
        name: "cmd",
        doc: "Run commands and scripts as states: a command runs unless its conditions \
(unless, onlyif, creates) say it is not needed, and a non-zero exit fails the state.",
        functions: &[
            (
                "run",
                "Run the command NAME (cwd, runas, env, shell, timeout, stateful, \
creates, unless, onlyif); the state fails when it exits non-zero.",
            ),
            (
                "script",
                "Fetch the script SOURCE (salt:// or a path; default NAME) and run \
it with ARGS (cwd, runas, env, template, timeout).",
            ),
            (
                "wait",
                "Run the command NAME only when a state it watches changed.",
            ),
            (
                "wait_script",
                "Run the script only when a state it watches changed.",
            ),
            (
                "watch",
                "Run the command NAME only when a state it watches changed (an \
older name of cmd.wait).",
            ),
        ],
    },
    ModuleDoc {
        name: "file",
        doc: "Manage files and folders: their content (from a source, a template or \
text), owner, group and mode; links; lines replaced or appended.",
        functions: &[
            ("absent", "Remove the file or folder NAME if it exists."),
            (
                "append",
                "Add the lines TEXT (or from SOURCE) to the file NAME where they are \
not already in it.",
            ),
            (
                "directory",
                "The folder NAME exists, with USER, GROUP, DIR_MODE/FILE_MODE, \
optionally made with its parents (makedirs) and applied recursively (recurse).",
            ),
            ("exists", "Fail unless NAME exists; change nothing."),
            (
                "managed",
                "The file NAME holds SOURCE (salt://, a path, rendered with \
TEMPLATE), CONTENTS or nothing, with USER, GROUP and MODE; the diff is the change.",
            ),
            ("missing", "Fail if NAME exists; change nothing."),
            (
                "replace",
                "Replace what the regular expression PATTERN matches in the file \
NAME with REPL (count, flags, append_if_not_found, prepend_if_not_found).",
            ),
            (
                "symlink",
                "NAME is a symbolic link to TARGET (force, makedirs, user, \
group).",
            ),
            (
                "touch",
                "Create NAME empty if it is missing, else update its times.",
            ),
        ],
    },
    ModuleDoc {
        name: "group",
        doc: "Manage local groups: present with a GID and members, or absent.",
        functions: &[
            ("absent", "Remove the group NAME if it exists."),
            (
                "present",
                "The group NAME exists, with GID, and MEMBERS (or ADDUSERS and \
DELUSERS) as given.",
            ),
        ],
    },
    ModuleDoc {
        name: "pkg",
        doc: "Manage packages through the system's package manager (apt or dnf): \
installed, at their latest version, removed or purged.",
        functions: &[
            (
                "installed",
                "The package NAME (or PKGS, with versions) is installed; \
refresh updates the package lists first.",
            ),
            (
                "latest",
                "The package NAME (or PKGS) is installed at the newest version \
available.",
            ),
            (
                "mod_watch",
                "What a watch requisite on a pkg state runs: the state's own \
function again.",
            ),
            (
                "purged",
                "The package NAME (or PKGS) is removed with its configuration \
files.",
            ),
            ("removed", "The package NAME (or PKGS) is not installed."),
        ],
    },
    ModuleDoc {
        name: "service",
        doc: "Manage systemd services: running or stopped, enabled at boot or not, \
masked or not; a watch restarts (or reloads) a running service.",
        functions: &[
            (
                "dead",
                "The service NAME is stopped (and disabled with enable=False).",
            ),
            ("disabled", "The service NAME does not start at boot."),
            ("enabled", "The service NAME starts at boot."),
            (
                "masked",
                "The service NAME is masked (runtime=True: until reboot).",
            ),
            (
                "mod_watch",
                "What a watch requisite on a service state runs: restart (or \
reload with reload=True) the running service, start a stopped one.",
            ),
            (
                "running",
                "The service NAME is running (and enabled at boot with \
enable=True).",
            ),
            ("unmasked", "The service NAME is not masked."),
        ],
    },
    ModuleDoc {
        name: "test",
        doc: "States that do nothing but answer as told: to try requisites, outputters \
and failures without touching the host.",
        functions: &[
            (
                "check_pillar",
                "Fail unless the pillar keys listed under PRESENT exist and \
those under each type name (string, integer, boolean, listing, dictionary) have that \
type.",
            ),
            (
                "configurable_test_state",
                "Answer the RESULT, CHANGES and COMMENT given \
(changes and result may be 'Random').",
            ),
            ("fail_with_changes", "Fail, reporting a pretend change."),
            ("fail_without_changes", "Fail, with no changes."),
            (
                "mod_watch",
                "What a watch requisite on a test state runs: succeed with a \
pretend change.",
            ),
            (
                "nop",
                "Succeed without doing anything; any arguments are accepted.",
            ),
            ("show_notification", "Succeed with TEXT as the comment."),
            (
                "succeed_with_changes",
                "Succeed, reporting a pretend change.",
            ),
            ("succeed_without_changes", "Succeed, with no changes."),
        ],
    },
    ModuleDoc {
        name: "user",
        doc: "Manage local users: present with their uid, groups, home, shell and \
password, or absent.",
        functions: &[
            (
                "absent",
                "Remove the user NAME if it exists (purge: with the home \
folder).",
            ),
            (
                "present",
                "The user NAME exists with the UID, GID, GROUPS, HOME, SHELL, \
PASSWORD and other fields given.",
            ),
        ],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The table names what the modules run, no more and no less.
    #[test]
    fn docs_match_the_modules() {
        for m in DOCS {
            let module = super::super::lookup(m.name).expect(m.name);
            for (f, doc) in m.functions {
                assert!(module.has_function(f), "{}.{f}", m.name);
                assert!(!doc.is_empty());
            }
            for f in ["nope", "call"] {
                assert!(!module.has_function(f));
            }
        }
        let mut names: Vec<_> = DOCS.iter().map(|m| m.name).collect();
        let sorted = {
            let mut s = names.clone();
            s.sort();
            s
        };
        assert_eq!(names, sorted);
        names.dedup();
        assert_eq!(names.len(), DOCS.len());
    }
}
