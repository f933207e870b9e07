//! Salt's `fileserver` runner: what the master's file server serves —
//! its environments and, per environment, its files, folders, empty
//! folders and links (the `roots` backend: `file_roots`; `gitfs`: the
//! trees its last update exported, `crate::gitfs`), and `update`, which
//! fetches gitfs's remotes (local roots are read as they are).

use super::runner::{Answer, Runner, RunnerError};
use crate::daemon::MasterConfig;
use brine_compile::opts;
use brine_compile::roots::Roots;
use brine_core::{sig, Map, Value};
use brine_runtime::modules::Params;

pub(super) const FUNCTIONS: &[Runner] = &[
    Runner {
        name: "dir_list",
        sig: sig!(saltenv = "base", backend = null),
        doc: "The folders the file server serves in SALTENV (default base), sorted.",
        run: |config, p| Box::pin(async move { listing(config, p, List::Dirs) }),
    },
    Runner {
        name: "empty_dir_list",
        sig: sig!(saltenv = "base", backend = null),
        doc: "The folders of SALTENV (default base) with nothing in them, sorted.",
        run: |config, p| Box::pin(async move { listing(config, p, List::EmptyDirs) }),
    },
    Runner {
        name: "envs",
        sig: sig!(backend = null, sources = false),
        doc: "The environments the file server serves (file_roots' keys), sorted.",
        run: |config, p| Box::pin(async move { envs(config, p) }),
    },
    Runner {
        name: "file_list",
        sig: sig!(saltenv = "base", backend = null),
        doc: "The files the file server serves in SALTENV (default base), sorted.",
        run: |config, p| Box::pin(async move { listing(config, p, List::Files) }),
    },
    Runner {
        name: "symlink_list",
        sig: sig!(saltenv = "base", backend = null),
        doc: "The symbolic links of SALTENV (default base) that point inside their root, \
link → target.",
        run: |config, p| Box::pin(async move { listing(config, p, List::Links) }),
    },
    Runner {
        name: "update",
        sig: sig!(backend = null, **kwargs),
        doc: "Bring the file server's backends up to date: True (local roots are read \
as they are, nothing is fetched).",
        run: |config, p| Box::pin(async move { update(config, p) }),
    },
];

#[derive(Clone, Copy)]
enum List {
    Files,
    Dirs,
    EmptyDirs,
    Links,
}

/// The folders per saltenv of the backend asked (`backend=`: one name,
/// or a list; none: every configured backend, in order).
fn served(
    config: &MasterConfig,
    p: &mut Params,
) -> indexmap::IndexMap<String, Vec<std::path::PathBuf>> {
    let asked: Option<Vec<String>> = match p.take("backend") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            brine_core::args::split_input(&v)
                .iter()
                .map(|b| b.trim_start_matches('-').to_string())
                .collect(),
        ),
    };
    let configured = opts::configured_roots(&config.opts, "file_roots");
    match asked {
        None => brine_compile::gitfs_trees::compose(&config.opts, configured, None),
        Some(names) => {
            let mut out = indexmap::IndexMap::new();
            for name in names {
                let part = brine_compile::gitfs_trees::compose(
                    &config.opts,
                    configured.clone(),
                    Some(&name),
                );
                for (env, dirs) in part {
                    out.entry(env).or_insert_with(Vec::new).extend(dirs);
                }
            }
            out
        }
    }
}

fn strings(v: Vec<String>) -> Value {
    Value::List(v.into_iter().map(Value::Str).collect())
}

fn envs(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let served = served(config, &mut p);
    let _sources = p.take("sources");
    p.finish()?;
    let mut names: Vec<String> = served.keys().cloned().collect();
    names.sort();
    names.dedup();
    Ok(Answer::data(strings(names)))
}

fn listing(config: &MasterConfig, mut p: Params, what: List) -> Result<Answer, RunnerError> {
    let saltenv = p
        .take("saltenv")
        .filter(|v| !v.is_null())
        .map_or_else(|| "base".to_string(), |v| v.to_python_str());
    let served = served(config, &mut p);
    p.finish()?;
    let roots = Roots::new(served).following_links(&config.opts);
    let dirs = roots.dirs(&saltenv);
    Ok(Answer::data(match what {
        List::Files => strings(brine_states::fileclient::list_files(dirs, "")),
        List::Dirs => strings(brine_states::fileclient::list_dirs(dirs, "")),
        List::EmptyDirs => strings(
            brine_states::fileclient::list_dirs(dirs, "")
                .into_iter()
                .filter(|d| {
                    dirs.iter().any(|root| {
                        std::fs::read_dir(root.join(d)).is_ok_and(|mut e| e.next().is_none())
                    })
                })
                .collect(),
        ),
        List::Links => Value::Map(
            brine_states::fileclient::list_symlinks(dirs, "")
                .into_iter()
                .map(|(l, t)| (l, Value::Str(t)))
                .collect::<Map>(),
        ),
    }))
}

fn update(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let gitfs_asked = match p.take("backend") {
        None | Some(Value::Null) => true,
        Some(v) => brine_core::args::split_input(&v)
            .iter()
            .any(|b| b.trim_start_matches('-') == "gitfs"),
    };
    let _ = p.kwargs_with_pub("fileserver.update");
    p.finish()?;
    if gitfs_asked && brine_compile::git_remotes::gitfs::enabled(&config.opts) {
        brine_compile::git_remotes::gitfs::Gitfs::from_opts(&config.opts, &config.cachedir)
            .and_then(|g| g.update())
            .map_err(|e| RunnerError::Failed(e.to_string()))?;
    }
    Ok(Answer::data(Value::Bool(true)))
}
