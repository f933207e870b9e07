//! The `pip` state module (Salt's `salt/states/pip_state.py`): Python
//! packages installed or removed through the host's pip, as Salt runs it
//! (`cmd`: which pip `bin_env` names and how it runs; `version`: PEP 440
//! versions and requirement lines, which decide what is installed).

pub mod cmd;
mod installed;
mod removed;
pub mod version;

use crate::{StateFunction, StateModule};
use brine_core::sig;

/// The `pip` state module.
pub static MODULE: StateModule = StateModule {
    name: "pip",
    doc: "Python packages through pip: installed (a version, an upgrade, a \
requirements file) or removed, in the environment BIN_ENV names.",
    functions: &[
        StateFunction::new(
            "installed",
            sig!(
                name,
                pkgs = null,
                pip_bin = null,
                requirements = null,
                bin_env = null,
                use_wheel = false,
                no_use_wheel = false,
                log = null,
                proxy = null,
                timeout = null,
                repo = null,
                editable = null,
                find_links = null,
                index_url = null,
                extra_index_url = null,
                no_index = false,
                mirrors = null,
                build = null,
                target = null,
                download = null,
                download_cache = null,
                source = null,
                upgrade = false,
                force_reinstall = false,
                ignore_installed = false,
                exists_action = null,
                no_deps = false,
                no_install = false,
                no_download = false,
                install_options = null,
                global_options = null,
                user = null,
                cwd = null,
                pre_releases = false,
                cert = null,
                allow_all_external = false,
                allow_external = null,
                allow_unverified = null,
                process_dependency_links = false,
                env_vars = null,
                use_vt = false,
                trusted_host = null,
                no_cache_dir = false,
                cache_dir = null,
                no_binary = null,
                extra_args = null,
                **kwargs
            ),
            "Make sure the Python package NAME (a requirement such as 'pkg>=1.0'), \
or each of PKGS, or the REQUIREMENTS file's, is installed by the pip of BIN_ENV (a \
virtualenv, a python or a pip program; the host's python3 -m pip by default); \
UPGRADE installs the newest version the requirement allows.",
            installed::installed,
        ),
        StateFunction::new(
            "removed",
            sig!(
                name,
                requirements = null,
                bin_env = null,
                log = null,
                proxy = null,
                timeout = null,
                user = null,
                cwd = null,
                use_vt = false
            ),
            "Make sure the Python package NAME is not installed in BIN_ENV.",
            removed::removed,
        ),
    ],
};

#[cfg(test)]
mod tests {
    use super::MODULE;

    /// pip.installed and pip.removed against Salt 3007.8's recorded
    /// answers (`testdata/pip.json`: a virtualenv and hand-made wheels in
    /// each case's folder, no index, no network): the case of the exact
    /// pip command lines and the removals. Each pip run starts Python
    /// (about a second), so the whole set takes minutes:
    /// [`pip_states_match_salt_all`].
    #[test]
    fn pip_states_match_salt() {
        for case in ["pip_cmdlines", "pip_removed"] {
            crate::replay::replay(include_str!("../testdata/pip.json"), &MODULE, Some(case));
        }
    }

    /// Every recorded pip case (about four minutes; the README's
    /// long-test command runs it).
    #[test]
    #[ignore]
    fn pip_states_match_salt_all() {
        crate::replay::replay(include_str!("../testdata/pip.json"), &MODULE, None);
    }
}
