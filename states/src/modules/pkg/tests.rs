//! Tests of the pkg states: decisions and texts with a fake package system
//! (unit tests only), and real installs of a tiny .deb through dpkg/apt-get
//! where that is possible. Expected texts are what real Salt 3007.8 gave.

use super::version::Scheme;
use super::*;
use crate::modules::group::tests::{ctx, is_root, low, strs};
use crate::modules::user::support::{run_argv, which};
use indexmap::IndexMap;
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// A fake package system for unit tests of the state logic only.
struct FakePkg {
    db: RefCell<PkgDb>,
    /// Repository candidates by name.
    repo: IndexMap<String, String>,
    /// What an install of each name really installs (None: fails).
    installs: IndexMap<String, Option<String>>,
}

impl FakePkg {
    fn new(installed: &[(&str, &str)], repo: &[(&str, &str)]) -> FakePkg {
        let mut db = PkgDb::default();
        for (n, v) in installed {
            db.installed.insert(n.to_string(), vec![v.to_string()]);
        }
        FakePkg {
            db: RefCell::new(db),
            repo: repo
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            installs: IndexMap::new(),
        }
    }
}

impl PkgProvider for FakePkg {
    fn scheme(&self) -> Scheme {
        Scheme::Debian
    }
    fn os_family(&self) -> &'static str {
        "Debian"
    }
    fn list_pkgs(&self) -> Result<PkgDb, PkgError> {
        Ok(self.db.borrow().clone())
    }
    fn latest_version(
        &self,
        names: &[String],
        _refresh: bool,
        _fromrepo: Option<&str>,
        _show_installed: bool,
    ) -> Result<IndexMap<String, String>, PkgError> {
        let db = self.db.borrow();
        Ok(names
            .iter()
            .map(|n| {
                let cand = self.repo.get(n).cloned().unwrap_or_default();
                let cur = db.installed.get(n).and_then(|v| v.last().cloned());
                let v = match cur {
                    Some(c) if version::compare(Scheme::Debian, &c, ">=", &cand, false) => {
                        String::new()
                    }
                    _ => cand,
                };
                (n.clone(), v)
            })
            .collect())
    }
    fn list_repo_pkgs(&self, targets: &[String]) -> IndexMap<String, Vec<String>> {
        targets
            .iter()
            .filter_map(|t| {
                let (n, v) = t.split_once('=').unwrap_or((t, ""));
                let cand = self.repo.get(n)?;
                (v.is_empty() || v == cand).then(|| (n.to_string(), vec![cand.clone()]))
            })
            .collect()
    }
    fn bin_pkg_info(&self, path: &Path) -> Result<BinPkgInfo, PkgError> {
        Err(PkgError::Command(format!(
            "{} does not exist on minion",
            path.display()
        )))
    }
    fn install(&self, req: &InstallRequest) -> Result<Map, PkgError> {
        let old = stringify(&self.db.borrow().current());
        for (n, _) in &req.pkgs {
            let got = match self.installs.get(n) {
                Some(v) => v.clone(),
                None => self.repo.get(n).cloned(),
            };
            if let Some(v) = got {
                self.db.borrow_mut().installed.insert(n.clone(), vec![v]);
            }
        }
        Ok(compare_dicts(&old, &stringify(&self.db.borrow().current())))
    }
    fn remove(
        &self,
        targets: &IndexMap<String, Option<String>>,
        _purge: bool,
    ) -> Result<Map, PkgError> {
        let old = stringify(&self.db.borrow().current());
        for n in targets.keys() {
            self.db.borrow_mut().installed.remove(n);
        }
        Ok(compare_dicts(&old, &stringify(&self.db.borrow().current())))
    }
    fn unpurge(&self, _names: &[String]) -> Option<Map> {
        None
    }
}

fn run(
    p: &dyn PkgProvider,
    fun: &str,
    name: &str,
    test: bool,
    args: &[(&str, Value)],
) -> StateReturn {
    let ctx = ctx();
    let low = low("pkg", fun, name, args);
    dispatch(
        p,
        &StateCall {
            low: &low,
            test,
            ctx: &ctx,
        },
        PkgFn::named(fun).expect("a pkg function"),
    )
}

fn json(v: &Map) -> String {
    Value::Map(v.clone()).to_json().to_string()
}

#[test]
fn fake_provider_installed_test_mode() {
    let p = FakePkg::new(
        &[("adduser", "3.134")],
        &[("sl", "5.02-1+b1"), ("adduser", "3.134")],
    );
    let r = run(&p, "installed", "sl", true, &[]);
    assert_eq!(r.result, None);
    assert_eq!(
        r.comment,
        "The following packages would be installed/updated: sl"
    );
    assert_eq!(json(&r.changes), r#"{"sl":{"new":"5.02-1+b1","old":""}}"#);

    let pkgs = Value::List(vec![
        Value::Map(
            [("sl".to_string(), Value::Str("5.02-1".into()))]
                .into_iter()
                .collect(),
        ),
        Value::Str("brinex-nosuch".into()),
    ]);
    let r = run(&p, "installed", "x", true, &[("pkgs", pkgs)]);
    assert_eq!(
        r.comment,
        "The following packages would be installed/updated: sl, brinex-nosuch"
    );
    assert_eq!(
        json(&r.changes),
        r#"{"sl":{"new":"installed","old":""},"brinex-nosuch":{"new":"installed","old":""}}"#
    );

    let r = run(&p, "installed", "adduser", true, &[]);
    assert_eq!(
        (r.result, r.comment.as_str()),
        (Some(true), "All specified packages are already installed")
    );
    let r = run(
        &p,
        "installed",
        "adduser",
        false,
        &[("version", Value::Str("3.134".into()))],
    );
    assert_eq!(
        r.comment,
        "All specified packages are already installed and are at the desired version"
    );
    let r = run(
        &p,
        "installed",
        "adduser",
        false,
        &[("version", Value::Str("3.1*".into()))],
    );
    assert_eq!(
        r.comment,
        "All specified packages are already installed and are at the desired version"
    );
    let r = run(
        &p,
        "installed",
        "x",
        false,
        &[("pkgs", Value::List(vec![]))],
    );
    assert_eq!(
        (r.result, r.comment.as_str()),
        (Some(true), "No packages to install provided")
    );
    let r = run(
        &p,
        "installed",
        "x",
        false,
        &[
            ("pkgs", strs(&["a"])),
            ("sources", Value::List(vec![Value::Map(Map::default())])),
        ],
    );
    assert_eq!(
        r.comment,
        "Only one of \"pkgs\" and \"sources\" is permitted."
    );
    let r = run(&p, "installed", "x", false, &[("sources", strs(&["a"]))]);
    assert_eq!(
        r.comment,
        "Invalidly formatted 'sources' parameter. See minion log."
    );
    let r = run(&p, "installed", "x", false, &[("pkgs", strs(&["a", "a"]))]);
    assert_eq!(r.result, Some(false));
    assert!(r.comment.starts_with(
        "You are passing a list of packages that contains duplicated packages names: ['a', 'a']."
    ));
    let r = run(
        &p,
        "installed",
        "x",
        false,
        &[("pkgs", Value::Str("a".into()))],
    );
    assert_eq!(r.result, Some(false));
    assert!(r.comment.contains("'pkgs'"), "{}", r.comment);
    let r = run(
        &p,
        "installed",
        "x",
        false,
        &[("pkg_verify", Value::Bool(true))],
    );
    assert_eq!(r.comment, "pkg.verify not implemented");
}

#[test]
fn fake_provider_installed_for_real_comments() {
    let mut p = FakePkg::new(
        &[],
        &[
            ("sl", "5.02-1+b1"),
            ("cowsay", "3.03"),
            ("fortune-mod", "1.99"),
            ("fortunes-with-a-long-name", "1.99"),
        ],
    );
    p.installs.insert("broken".into(), None);
    let r = run(&p, "installed", "sl", false, &[]);
    assert_eq!(
        (r.result, r.comment.as_str()),
        (
            Some(true),
            "The following packages were installed/updated: sl"
        )
    );
    assert_eq!(json(&r.changes), r#"{"sl":{"old":"","new":"5.02-1+b1"}}"#);
    // A summary of 20 characters or more is only counted.
    let r = run(
        &p,
        "installed",
        "x",
        false,
        &[("pkgs", strs(&["cowsay", "fortune-mod"]))],
    );
    assert_eq!(
        r.comment,
        "The following packages were installed/updated: cowsay, fortune-mod"
    );
    let r = run(
        &p,
        "installed",
        "x",
        false,
        &[(
            "pkgs",
            strs(&["fortunes-with-a-long-name", "cowsay", "fortune-mod", "sl"]),
        )],
    );
    assert_eq!(r.comment, "1 targeted package was installed/updated.\nThe following packages were already installed: cowsay, fortune-mod, sl");
    let r = run(&p, "installed", "broken", false, &[]);
    assert_eq!(
        (r.result, r.comment.as_str()),
        (
            Some(false),
            "The following packages failed to install/update: broken"
        )
    );
}

#[test]
fn fake_provider_latest_and_removed() {
    let p = FakePkg::new(
        &[("adduser", "3.134"), ("dpkg", "1.21.22")],
        &[
            ("adduser", "3.134"),
            ("dpkg", "1.21.23"),
            ("sl", "5.02-1+b1"),
        ],
    );
    let r = run(&p, "latest", "sl", true, &[]);
    assert_eq!(
        r.comment,
        "The following packages would be installed/upgraded: sl"
    );
    assert_eq!(json(&r.changes), r#"{"sl":{"new":"5.02-1+b1","old":""}}"#);
    let r = run(&p, "latest", "brinex-nosuch", false, &[]);
    assert_eq!(
        (r.result, r.comment.as_str()),
        (Some(false), "No information found for 'brinex-nosuch'.")
    );
    let r = run(&p, "latest", "adduser", false, &[]);
    assert_eq!(
        (r.result, r.comment.as_str()),
        (Some(true), "Package adduser is already up-to-date")
    );
    let r = run(
        &p,
        "latest",
        "x",
        true,
        &[("pkgs", strs(&["adduser", "dpkg"]))],
    );
    assert_eq!(
        r.comment,
        "The following packages would be installed/upgraded: dpkg\nThe following packages are already up-to-date: adduser (3.134)"
    );
    let r = run(
        &p,
        "latest",
        "x",
        false,
        &[("pkgs", strs(&["adduser", "dpkg"]))],
    );
    assert_eq!(
        r.comment,
        "The following packages were successfully installed/upgraded: dpkg The following packages were already up-to-date: adduser"
    );
    let r = run(
        &p,
        "latest",
        "x",
        false,
        &[("pkgs", strs(&["adduser", "dpkg"]))],
    );
    assert_eq!(r.comment, "All packages are up-to-date (adduser, dpkg).");

    let r = run(
        &p,
        "removed",
        "x",
        true,
        &[("pkgs", strs(&["dpkg", "brinex-nosuch"]))],
    );
    assert_eq!(
        (r.result, r.comment.as_str()),
        (None, "The following packages will be removed: dpkg.")
    );
    assert_eq!(json(&r.changes), r#"{"dpkg":{"new":"removed","old":""}}"#);
    let r = run(
        &p,
        "removed",
        "x",
        false,
        &[("pkgs", strs(&["dpkg", "brinex-nosuch"]))],
    );
    assert_eq!(
        r.comment,
        "The following packages were not installed: brinex-nosuch The following packages were removed: dpkg."
    );
    assert_eq!(json(&r.changes), r#"{"dpkg":{"new":"","old":"1.21.23"}}"#);
    let r = run(&p, "removed", "dpkg", false, &[]);
    assert_eq!(r.comment, "All specified packages are already absent");
    let r = run(
        &p,
        "removed",
        "adduser",
        false,
        &[("version", Value::Str("9.9".into()))],
    );
    assert_eq!(
        r.comment,
        "All specified packages (matching specified versions) are already absent"
    );
    let r = run(&p, "purged", "dpkg", false, &[]);
    assert_eq!(
        r.comment,
        "None of the targeted packages are installed or partially installed"
    );
    let ctx = ctx();
    let low = low(
        "pkg",
        "mod_watch",
        "x",
        &[("sfun", Value::Str("held".into()))],
    );
    let r = mod_watch(&StateCall {
        low: &low,
        test: false,
        ctx: &ctx,
    });
    assert_eq!(
        (r.result, r.comment.as_str()),
        (
            Some(false),
            "pkg.held does not work with the watch requisite"
        )
    );
}

/// Builds `brine-test-pkg` .debs in a scratch folder.
fn build_debs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for v in ["1.0", "2.0"] {
        let root = dir.join(format!("brine-test-pkg_{v}"));
        std::fs::create_dir_all(root.join("DEBIAN")).unwrap();
        std::fs::create_dir_all(root.join("usr/share/brine-test-pkg")).unwrap();
        std::fs::write(
            root.join("DEBIAN/control"),
            format!("Package: brine-test-pkg\nVersion: {v}\nArchitecture: all\nMaintainer: brine <brine@example.invalid>\nDescription: brine test package\n"),
        )
        .unwrap();
        std::fs::write(root.join("usr/share/brine-test-pkg/hello"), "hi\n").unwrap();
        let r = run_argv(&["dpkg-deb", "--build", root.to_str().unwrap()], &[], None).unwrap();
        assert_eq!(r.retcode, 0, "{}", r.stderr);
        out.push(dir.join(format!("brine-test-pkg_{v}.deb")));
    }
    out
}

struct Purge(PathBuf);
impl Drop for Purge {
    fn drop(&mut self) {
        let _ = run_argv(&["dpkg", "-P", "brine-test-pkg"], &[], None);
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn sources(path: &Path) -> Value {
    let mut m = Map::default();
    m.insert(
        "brine-test-pkg".into(),
        Value::Str(path.display().to_string()),
    );
    Value::List(vec![Value::Map(m)])
}

/// A real install, upgrade, reinstall, removal and purge of a local .deb
/// through apt-get, with the answers real Salt gave for the same sequence.
#[test]
fn real_deb_lifecycle() {
    if !is_root() || which("dpkg-deb").is_none() || which("apt-get").is_none() {
        println!("skipped: needs root, dpkg-deb and apt-get");
        return;
    }
    let _dpkg = DPKG_LOCK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = std::env::temp_dir().join(format!("brinet-debs-{}", std::process::id()));
    let _guard = Purge(dir.clone());
    let _ = run_argv(&["dpkg", "-P", "brine-test-pkg"], &[], None);
    let debs = build_debs(&dir);
    let apt = apt::Apt::new(None, None, None);
    let no_refresh = ("refresh", Value::Bool(false));
    let go = |fun: &str, test: bool, args: &[(&str, Value)]| {
        let mut a = args.to_vec();
        a.push(no_refresh.clone());
        run(&apt, fun, "brine-test-pkg", test, &a)
    };
    let s1 = ("sources", sources(&debs[0]));
    let s2 = ("sources", sources(&debs[1]));

    let r = go("installed", true, std::slice::from_ref(&s1));
    assert_eq!(
        (r.result, r.comment.as_str()),
        (
            None,
            "The following packages would be installed/updated: brine-test-pkg"
        )
    );
    assert_eq!(
        json(&r.changes),
        r#"{"brine-test-pkg":{"new":"installed","old":""}}"#
    );
    assert!(!Path::new("/usr/share/brine-test-pkg/hello").exists());

    let r = go("installed", false, std::slice::from_ref(&s1));
    assert_eq!(
        (r.result, r.comment.as_str()),
        (
            Some(true),
            "The following packages were installed/updated: brine-test-pkg"
        )
    );
    assert_eq!(
        json(&r.changes),
        r#"{"brine-test-pkg":{"old":"","new":"1.0"}}"#
    );
    assert!(Path::new("/usr/share/brine-test-pkg/hello").exists());

    let r = go("installed", false, std::slice::from_ref(&s1));
    assert_eq!(
        (r.result, r.comment.as_str()),
        (Some(true), "All specified packages are already installed")
    );
    let r = go("installed", false, std::slice::from_ref(&s2));
    assert_eq!(
        json(&r.changes),
        r#"{"brine-test-pkg":{"old":"1.0","new":"2.0"}}"#
    );
    let r = go("installed", false, &[]);
    assert_eq!(r.comment, "All specified packages are already installed");
    let r = go("installed", false, &[("version", Value::Str("2.0".into()))]);
    assert_eq!(
        r.comment,
        "All specified packages are already installed and are at the desired version"
    );
    let r = go(
        "installed",
        true,
        &[s2.clone(), ("reinstall", Value::Bool(true))],
    );
    assert_eq!(
        (r.result, r.comment.as_str()),
        (
            None,
            "The following packages would be reinstalled: brine-test-pkg"
        )
    );
    let r = go(
        "installed",
        false,
        &[s2.clone(), ("reinstall", Value::Bool(true))],
    );
    assert_eq!(
        (r.result, r.comment.as_str()),
        (Some(true), "Package brine-test-pkg was reinstalled.")
    );
    assert_eq!(
        json(&r.changes),
        r#"{"brine-test-pkg":{"old":"2.0","new":"2.0"}}"#
    );
    let r = go("latest", false, &[]);
    assert_eq!(r.comment, "Package brine-test-pkg is already up-to-date");
    let r = go("installed", false, &[("version", Value::Str("3.0".into()))]);
    assert_eq!((r.result, r.changes.is_empty()), (Some(false), true));
    assert_eq!(
        r.comment,
        "Problem encountered installing package(s). Additional info follows:\n\nerrors:\n    - E: Version '3.0' for 'brine-test-pkg' was not found"
    );

    let r = go("removed", true, &[]);
    assert_eq!(
        (r.result, r.comment.as_str()),
        (
            None,
            "The following packages will be removed: brine-test-pkg."
        )
    );
    assert_eq!(
        json(&r.changes),
        r#"{"brine-test-pkg":{"new":"removed","old":""}}"#
    );
    let r = go("removed", false, &[]);
    assert_eq!(
        (r.result, r.comment.as_str()),
        (Some(true), "All targeted packages were removed.")
    );
    assert_eq!(
        json(&r.changes),
        r#"{"brine-test-pkg":{"new":"","old":"2.0"}}"#
    );
    assert!(!Path::new("/usr/share/brine-test-pkg/hello").exists());
    let r = go("removed", false, &[]);
    assert_eq!(r.comment, "All specified packages are already absent");

    let r = go("installed", false, std::slice::from_ref(&s1));
    assert_eq!(r.result, Some(true));
    let r = go("purged", true, &[]);
    assert_eq!(
        (r.result, r.comment.as_str()),
        (
            None,
            "The following packages will be purged: brine-test-pkg."
        )
    );
    let r = go("purged", false, &[]);
    assert_eq!(
        (r.result, r.comment.as_str()),
        (Some(true), "All targeted packages were purged.")
    );
    assert_eq!(
        json(&r.changes),
        r#"{"removed":{},"installed":{"brine-test-pkg":{"new":"","old":"1.0"}}}"#
    );
    let r = go("purged", false, &[]);
    assert_eq!(
        r.comment,
        "None of the targeted packages are installed or partially installed"
    );

    let missing = dir.join("nonexist.deb");
    let r = go("installed", false, &[("sources", sources(&missing))]);
    assert_eq!(r.result, Some(false));
    assert_eq!(
        r.comment,
        format!(
            "An error was encountered while installing package(s): {} does not exist on minion",
            missing.display()
        )
    );
    let r = go(
        "installed",
        false,
        &[("sources", sources(Path::new("rel/x.deb")))],
    );
    assert_eq!(r.result, Some(false));
    assert!(
        r.comment
            .contains("is either not absolute or an invalid protocol"),
        "{}",
        r.comment
    );
}

/// Values of every type for every argument: a failed state or an answer,
/// never a panic (fake package system).
#[test]
fn fake_provider_odd_arguments_never_panic() {
    let keys = [
        "name",
        "version",
        "pkgs",
        "sources",
        "refresh",
        "fromrepo",
        "skip_verify",
        "reinstall",
        "allow_updates",
        "normalize",
        "ignore_epoch",
        "pkg_verify",
        "hold",
        "sfun",
        "install_recommends",
    ];
    for fun in ["installed", "latest", "removed", "purged"] {
        for key in keys {
            for v in crate::modules::group::tests::odd_values() {
                for test in [true, false] {
                    let p = FakePkg::new(&[("a", "1.0")], &[("a", "2.0")]);
                    let _ = run(&p, fun, "a", test, &[(key, v.clone())]);
                    let _ = run(&p, fun, "", test, &[(key, v.clone())]);
                }
            }
        }
    }
}
