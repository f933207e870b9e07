//! Salt's `archive` state module: `archive.extracted`, with the return
//! dicts of Salt 3007.8's `salt/states/archive.py`.
//!
//! - [`extracted`]: the state, in Salt's order of checks.
//! - [`formats`]: tar (gzip, bzip2, xz) and zip read in-process, shared
//!   with the `archive.*` execution functions.
//! - [`cached`]: Salt's `file.cached` as `archive.extracted` calls it for a
//!   remote or `salt://` source.

pub mod cached;
mod extracted;
pub mod formats;
mod owner;

use crate::{StateFunction, StateModule};
use brine_core::sig;

/// The `archive` state module.
pub static MODULE: StateModule = StateModule {
    name: "archive",
    doc: "Archives (tar, gzip/bzip2/xz-compressed tar, zip) unpacked into a folder.",
    functions: &[StateFunction::new(
        "extracted",
        sig!(
            name,
            source,
            source_hash = null,
            source_hash_name = null,
            source_hash_update = false,
            skip_files_list_verify = false,
            skip_verify = false,
            password = null,
            options = null,
            list_options = null,
            force = false,
            overwrite = false,
            clean = false,
            clean_parent = false,
            user = null,
            group = null,
            if_missing = null,
            trim_output = false,
            use_cmd_unzip = null,
            extract_perms = true,
            enforce_toplevel = true,
            enforce_ownership_on = null,
            archive_format = null,
            use_etag = false,
            signature = null,
            source_hash_sig = null,
            signed_by_any = null,
            signed_by_all = null,
            keyring = null,
            gnupghome = null,
            **kwargs
        ),
        "The archive SOURCE (salt://, a path, http(s):// with SOURCE_HASH or \
SKIP_VERIFY) is unpacked into the folder NAME unless all its files are already \
there (if_missing, overwrite, clean, enforce_toplevel, user/group, trim_output).",
        extracted::extracted,
    )],
};

#[cfg(test)]
mod tests {
    #[test]
    fn archive_states_match_salt() {
        crate::modules::file::tests::replay(
            include_str!("../testdata/archive.json"),
            &super::MODULE,
            None,
        );
    }
}
