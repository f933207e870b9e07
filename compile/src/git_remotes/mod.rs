//! The remotes of gitfs and git_pillar, fetched by the host's `git` and
//! exported into plain folders, with the manifests that name them: the
//! master's updates (at start, every interval), `brine-run
//! fileserver.update` / `git_pillar.update`, and a masterless minion's
//! (once per process for gitfs, before each pillar compile for
//! git_pillar, as Salt's are). What a compile reads of them is
//! `crate::gitfs_trees` and `crate::pillar::git`.
//!
//! - [`git`]: the host's git, bounded in time: mirror, list refs, export.
//! - [`gitfs`]: `gitfs_remotes` → saltenvs and their trees.
//! - [`pillar`]: the `git` ext_pillar's remotes → their branches' trees.

pub mod git;
pub mod gitfs;
pub mod pillar;
