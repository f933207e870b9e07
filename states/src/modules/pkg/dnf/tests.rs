//! Tests of the dnf/rpm provider: output parsing, and the commands run
//! for holds and package info (through a fake runner).

mod parsing {
    use super::super::*;

    #[test]
    fn parses_rpm_and_dnf_output() {
        let qa = "bash_|-(none)_|-5.1.8_|-6.el9_|-x86_64_|-(none)_|-1700000000\n\
                  glibc_|-(none)_|-2.34_|-60.el9_|-i686_|-(none)_|-1700000000\n\
                  shadow-utils_|-2_|-4.9_|-8.el9_|-x86_64_|-(none)_|-1700000000\n\
                  junk\n";
        let db = parse_rpm_qa(qa, "x86_64");
        assert_eq!(
            db.installed.get("bash"),
            Some(&vec!["5.1.8-6.el9".to_string()])
        );
        assert!(db.installed.contains_key("glibc.i686"));
        assert_eq!(
            db.installed.get("shadow-utils"),
            Some(&vec!["2:4.9-8.el9".to_string()])
        );
        let avail = "Available Packages\nnginx.x86_64   1:1.20.1-14.el9   appstream\ntree.noarch 1.8.0-10.el9 baseos\n";
        let a = parse_list_available(avail, "x86_64");
        assert_eq!(
            a[0],
            (
                "nginx".to_string(),
                "1:1.20.1-14.el9".to_string(),
                "x86_64".to_string()
            )
        );
        assert_eq!(a[1].0, "tree");
        let d = Dnf::new("dnf", "x86_64".into(), None);
        assert_eq!(d.normalize_name("bash.x86_64"), "bash");
        assert_eq!(d.normalize_name("glibc.i686"), "glibc.i686");
        assert_eq!(d.split_arch("glibc.i686"), ("glibc", ".i686".to_string()));
    }

    #[test]
    fn commands_go_through_the_runner() {
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = seen.clone();
        let d = Dnf::new("dnf", "x86_64".into(), None).with_runner(Arc::new(
            move |argv: &[String], _env: &[(&str, &str)]| {
                log.lock().map_err(|e| e.to_string())?.push(argv.to_vec());
                match argv.first().map(String::as_str) {
                    Some("rpm") => Ok(CommandResult {
                        stdout: "bash_|-(none)_|-5.1.8_|-9.el9_|-x86_64_|-(none)_|-1\n".into(),
                        ..Default::default()
                    }),
                    _ => Err("no such command".to_string()),
                }
            },
        ));
        let db = d.list_pkgs().unwrap();
        assert_eq!(
            db.installed.get("bash"),
            Some(&vec!["5.1.8-9.el9".to_string()])
        );
        let r = d.call(&["--quiet", "check-update"]);
        assert_eq!((r.retcode, r.stderr.as_str()), (127, "no such command"));
        let seen = seen.lock().unwrap();
        assert_eq!(seen[0][..2], ["rpm".to_string(), "-qa".to_string()]);
        assert_eq!(
            seen[1],
            ["dnf", "--quiet", "check-update"].map(String::from)
        );
    }
}

mod hold_and_info {
    use super::super::*;
    use std::sync::Mutex;

    /// What a fake runner was asked to run: argv and extra environment.
    type Calls = Arc<Mutex<Vec<(Vec<String>, Vec<(String, String)>)>>>;

    /// A provider for `bin` whose commands answer from `answers` (the
    /// first whose key starts the command line; else exit 0, no output).
    fn fake(bin: &str, answers: &[(&str, i32, &str)]) -> (Dnf, Calls) {
        let calls: Calls = Arc::default();
        let answers: Vec<(String, i32, String)> = answers
            .iter()
            .map(|(k, rc, out)| (k.to_string(), *rc, out.to_string()))
            .collect();
        let seen = calls.clone();
        let run: Runner = Arc::new(move |argv: &[String], env: &[(&str, &str)]| {
            let env = env.iter().map(|(k, v)| (k.to_string(), v.to_string()));
            seen.lock()
                .map_err(|e| e.to_string())?
                .push((argv.to_vec(), env.collect()));
            let line = argv.join(" ");
            let (retcode, stdout) = answers
                .iter()
                .find(|(k, _, _)| line.starts_with(k.as_str()))
                .map_or((0, String::new()), |(_, rc, out)| (*rc, out.clone()));
            Ok(CommandResult {
                retcode,
                stdout,
                ..Default::default()
            })
        });
        let mut d = Dnf::new(bin, "x86_64".into(), None).with_runner(run);
        d.versionlock_pkg = versionlock_pkg(bin, &Map::default());
        (d, calls)
    }

    /// The command lines run that start with `prefix`.
    fn ran(calls: &Calls, prefix: &str) -> Vec<Vec<String>> {
        calls
            .lock()
            .unwrap()
            .iter()
            .map(|(argv, _)| argv.clone())
            .filter(|argv| argv.join(" ").starts_with(prefix))
            .collect()
    }

    fn strs(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn json(v: Value) -> String {
        serde_json::to_string(&v.to_json()).unwrap()
    }

    fn answers(m: IndexMap<String, HoldAnswer>) -> String {
        json(Value::Map(
            m.into_iter()
                .map(|(k, a)| {
                    let v = a.into_value(&k);
                    (k, v)
                })
                .collect(),
        ))
    }

    const DNF_LIST: &str =
        "Last metadata expiration check: 0:12:34 ago on Thu 26 Nov 2026 10:00:00 AM UTC.\n\
        bash-0:5.1.8-9.el9.*\n\
        vim-enhanced-2:8.2.2637-20.el9_1.*\n\
        python3-dnf-plugin-versionlock-0:4.3.0-13.el9.*\n";

    const YUM_LIST: &str = "Loaded plugins: fastestmirror, versionlock\n\
        0:bash-4.2.46-35.el7_9.*\n\
        2:vim-enhanced-7.4.629-8.el7_9.*\n\
        versionlock list done\n";

    const DNF5_LIST: &str = "# Added by 'versionlock add' command on 2026-11-26 10:00:00\n\
        Package name: bash\n\
        evr = 5.2.26-3.fc40\n\
        \n\
        # Added by 'versionlock add' command on 2026-11-26 10:01:00\n\
        Package name: vim-enhanced\n\
        evr = 2:9.1.158-1.fc40\n";

    /// What Salt 3007.8's `_get_hold` finds in the same lines.
    #[test]
    fn parses_versionlock_lists() {
        assert_eq!(
            parse_versionlock_list(DNF_LIST, "dnf", false),
            strs(&["bash", "vim-enhanced", "python3-dnf-plugin-versionlock"])
        );
        assert_eq!(
            parse_versionlock_list(DNF_LIST, "dnf", true),
            strs(&[
                "bash-0:5.1.8-9.el9.*",
                "vim-enhanced-2:8.2.2637-20.el9_1.*",
                "python3-dnf-plugin-versionlock-0:4.3.0-13.el9.*"
            ])
        );
        assert_eq!(
            parse_versionlock_list(YUM_LIST, "yum", false),
            strs(&["bash", "vim-enhanced"])
        );
        assert_eq!(
            parse_versionlock_list(YUM_LIST, "yum", true),
            strs(&[
                "0:bash-4.2.46-35.el7_9.*",
                "2:vim-enhanced-7.4.629-8.el7_9.*"
            ])
        );
        for full in [true, false] {
            assert_eq!(
                parse_versionlock_list(DNF5_LIST, "dnf5", full),
                strs(&["bash", "vim-enhanced"])
            );
        }
        assert_eq!(lock_in_line("no lock here", false, false), None);
        assert_eq!(lock_in_line("", true, true), None);
    }

    #[test]
    fn versionlock_package_by_release() {
        let grains = |os: &str, rel: &str, major: &str| {
            let mut g = Map::default();
            g.insert("os".into(), Value::Str(os.into()));
            g.insert("osrelease".into(), Value::Str(rel.into()));
            g.insert("osmajorrelease".into(), Value::Str(major.into()));
            g
        };
        let cases = [
            (
                "dnf",
                grains("Fedora", "40", "40"),
                "python3-dnf-plugin-versionlock",
            ),
            (
                "dnf",
                grains("Fedora", "25", "25"),
                "python3-dnf-plugins-extras-versionlock",
            ),
            (
                "dnf",
                grains("Rocky", "9.4", "9"),
                "python3-dnf-plugin-versionlock",
            ),
            (
                "dnf",
                grains("CentOS", "7.9", "7"),
                "python2-dnf-plugin-versionlock",
            ),
            (
                "dnf5",
                grains("Fedora", "41", "41"),
                "python3-dnf-plugin-versionlock",
            ),
            (
                "yum",
                grains("CentOS", "7.9", "7"),
                "yum-plugin-versionlock",
            ),
            ("dnf", Map::default(), "python3-dnf-plugin-versionlock"),
        ];
        for (bin, g, want) in cases {
            assert_eq!(versionlock_pkg(bin, &g), want, "{bin} {g:?}");
        }
    }

    const RPM_QA_WITH_PLUGIN: &str =
        "bash_|-(none)_|-5.1.8_|-9.el9_|-x86_64_|-(none)_|-1716000000\n\
        python3-dnf-plugin-versionlock_|-(none)_|-4.3.0_|-13.el9_|-noarch_|-(none)_|-1716000000\n";

    #[test]
    fn holds_need_the_versionlock_plugin() {
        let (d, _) = fake(
            "dnf",
            &[(
                "rpm -qa",
                0,
                "bash_|-(none)_|-5.1.8_|-9.el9_|-x86_64_|-(none)_|-1\n",
            )],
        );
        assert_eq!(
            d.hold_ready(),
            Err(PkgError::Invocation(
                "Cannot proceed, python3-dnf-plugin-versionlock is not installed.".into()
            ))
        );
        let (d, _) = fake("dnf", &[("rpm -qa", 0, RPM_QA_WITH_PLUGIN)]);
        assert_eq!(d.hold_ready(), Ok(()));
    }

    #[test]
    fn dnf_hold_and_unhold() {
        let (d, calls) = fake(
            "dnf",
            &[
                ("dnf versionlock list", 0, DNF_LIST),
                ("dnf versionlock add broken", 1, ""),
                ("dnf versionlock delete broken", 1, ""),
            ],
        );
        let r = d
            .hold(&strs(&["bash", "curl", "broken"]), true, false)
            .unwrap();
        assert_eq!(
            answers(r),
            r#"{"bash":{"name":"bash","changes":{},"result":true,"comment":"Package bash is already set to be held."},"curl":{"name":"curl","changes":{"new":"hold","old":""},"result":true,"comment":"Package curl is now being held."},"broken":{"name":"broken","changes":{},"result":false,"comment":"Package broken was unable to be held."}}"#
        );
        assert_eq!(
            ran(&calls, "dnf"),
            vec![
                strs(&["dnf", "versionlock", "list"]),
                strs(&["dnf", "versionlock", "add", "curl"]),
                strs(&["dnf", "versionlock", "add", "broken"]),
            ]
        );

        let (d, calls) = fake("dnf", &[("dnf versionlock list", 0, DNF_LIST)]);
        let r = d
            .hold(&strs(&["vim-enhanced", "curl"]), false, false)
            .unwrap();
        assert_eq!(
            answers(r),
            r#"{"vim-enhanced":{"name":"vim-enhanced","changes":{"new":"","old":"hold"},"result":true,"comment":"Package vim-enhanced is no longer held."},"curl":{"name":"curl","changes":{},"result":true,"comment":"Package curl is not being held."}}"#
        );
        assert_eq!(
            ran(&calls, "dnf versionlock delete"),
            vec![strs(&["dnf", "versionlock", "delete", "vim-enhanced"])]
        );

        // A delete that fails.
        let mut list = DNF_LIST.to_string();
        list.push_str("broken-0:1.0-1.el9.*\n");
        let (d, _) = fake(
            "dnf",
            &[
                ("dnf versionlock list", 0, &list),
                ("dnf versionlock delete broken", 1, ""),
            ],
        );
        let r = d.hold(&strs(&["broken"]), false, false).unwrap();
        assert_eq!(
            r.get("broken").map(|a| (a.result, a.comment.as_str())),
            Some((Some(false), "Package broken was unable to be unheld."))
        );
    }

    #[test]
    fn test_mode_changes_nothing() {
        let (d, calls) = fake("dnf", &[("dnf versionlock list", 0, DNF_LIST)]);
        let r = d.hold(&strs(&["bash", "curl"]), true, true).unwrap();
        assert_eq!(
            answers(r),
            r#"{"bash":{"name":"bash","changes":{},"result":true,"comment":"Package bash is already set to be held."},"curl":{"name":"curl","changes":{},"result":null,"comment":"Package curl is set to be held."}}"#
        );
        let r = d.hold(&strs(&["bash", "curl"]), false, true).unwrap();
        assert_eq!(
            answers(r),
            r#"{"bash":{"name":"bash","changes":{},"result":null,"comment":"Package bash is set to be unheld."},"curl":{"name":"curl","changes":{},"result":true,"comment":"Package curl is not being held."}}"#
        );
        assert_eq!(ran(&calls, "dnf").len(), 2, "only the two lists");
    }

    #[test]
    fn yum_unhold_deletes_the_full_lock() {
        let (d, calls) = fake("yum", &[("yum versionlock list", 0, YUM_LIST)]);
        let r = d
            .hold(&strs(&["vim-enhanced", "vim"]), false, false)
            .unwrap();
        assert_eq!(r.get("vim-enhanced").and_then(|a| a.result), Some(true));
        // "vim" matches *vim* but is not the package the lock holds.
        assert_eq!(
            r.get("vim").map(|a| a.comment.as_str()),
            Some("Package vim is not being held.")
        );
        assert_eq!(
            ran(&calls, "yum versionlock delete"),
            vec![strs(&[
                "yum",
                "versionlock",
                "delete",
                "2:vim-enhanced-7.4.629-8.el7_9.*"
            ])]
        );
        // Holding asks for the names.
        let r = d.hold(&strs(&["bash"]), true, false).unwrap();
        assert_eq!(r.get("bash").and_then(|a| a.result), Some(true));
        assert!(ran(&calls, "yum versionlock add").is_empty());
    }

    #[test]
    fn dnf5_holds_by_name() {
        let (d, calls) = fake("dnf5", &[("dnf5 versionlock list", 0, DNF5_LIST)]);
        let r = d.hold(&strs(&["bash", "curl"]), true, false).unwrap();
        assert_eq!(r.get("bash").and_then(|a| a.result), Some(true));
        let r = d.hold(&strs(&["vim-enhanced"]), false, false).unwrap();
        assert_eq!(r.get("vim-enhanced").and_then(|a| a.result), Some(true));
        assert_eq!(
            ran(&calls, "dnf5 versionlock "),
            vec![
                strs(&["dnf5", "versionlock", "list"]),
                strs(&["dnf5", "versionlock", "add", "curl"]),
                strs(&["dnf5", "versionlock", "list"]),
                strs(&["dnf5", "versionlock", "delete", "vim-enhanced"]),
            ]
        );
    }

    const RPM_INFO: &str = include_str!("../testdata/rpm_info.txt");
    /// Salt 3007.8's yumpkg.info_installed over the same rpm output
    /// (`default` and `all_versions=True`), as JSON.
    const RPM_INFO_SALT: &str = include_str!("../testdata/rpm_info.json");

    #[test]
    fn parses_rpm_info_as_salt() {
        let salt: serde_json::Value = serde_json::from_str(RPM_INFO_SALT).unwrap();
        let ours = parse_rpm_info(RPM_INFO, true, false);
        assert_eq!(
            json(Value::Map(ours)),
            serde_json::to_string(&salt["default"]).unwrap()
        );
        let ours = parse_rpm_info(RPM_INFO, true, true);
        assert_eq!(
            json(Value::Map(ours)),
            serde_json::to_string(&salt["all_versions"]).unwrap()
        );
        assert!(parse_rpm_info("", true, false).is_empty());
        assert!(parse_rpm_info("package nosuch is not installed\n", true, false).is_empty());
    }

    #[test]
    fn loose_versions_order_as_salts() {
        let cmp = |a: &str, b: &str| loose_cmp(&loose_parts(a), &loose_parts(b));
        use std::cmp::Ordering::*;
        assert_eq!(
            cmp("5.14.0-427.13.1.el9_4", "5.14.0-70.13.1.el9_0"),
            Greater
        );
        assert_eq!(cmp("1.10", "1.9"), Greater);
        assert_eq!(cmp("1.010", "1.10"), Equal);
        assert_eq!(
            cmp("2:4.9-8.el9", "10.0-1"),
            Less,
            "'2' < '10' padded, ':' after"
        );
        assert_eq!(cmp("1.0a", "1.0"), Greater);
        assert_eq!(
            loose_parts("2:4.9-8.el9_1"),
            vec![
                Loose::Num("2".into()),
                Loose::Text(":".into()),
                Loose::Num("4".into()),
                Loose::Num("9".into()),
                Loose::Text("-".into()),
                Loose::Num("8".into()),
                Loose::Text("el".into()),
                Loose::Num("9".into()),
                Loose::Text("_".into()),
                Loose::Num("1".into()),
            ]
        );
        assert_eq!(split_dashes("a---b--c-----d"), vec!["a", "b--c", "d"]);
    }

    #[test]
    fn info_queries() {
        let all = info_query(None, "%{LONGSIZE}").unwrap();
        assert!(all.starts_with(r"name: %{NAME}\nrelocations: "));
        assert!(all.contains(r"size: %{LONGSIZE}\n"));
        assert!(all.ends_with(
            r"edition: %|EPOCH?{%{EPOCH}:}|%{VERSION}-%{RELEASE}\ndescription:\n%{DESCRIPTION}\n-----\n"
        ));
        let some = info_query(Some(&strs(&["size", "version", "bogus"])), "%{SIZE}").unwrap();
        assert_eq!(
            some,
            r"size: %{SIZE}\nversion: %{VERSION}\nname: %{NAME}\nedition: %|EPOCH?{%{EPOCH}:}|%{VERSION}-%{RELEASE}\n-----\n"
        );
        let with_descr = info_query(Some(&strs(&["description", "arch"])), "%{SIZE}").unwrap();
        assert!(with_descr.ends_with(r"description:\n%{DESCRIPTION}\n-----\n"));
        assert_eq!(
            info_query(Some(&strs(&["description", "bogus"])), "%{SIZE}"),
            Err(PkgError::Command("No valid attributes found.".into()))
        );
    }

    #[test]
    fn info_installed_runs_rpm_as_salt() {
        let (d, calls) = fake(
            "dnf",
            &[
                ("rpm --querytags", 0, "NAME\nLONGSIZE\nVERSION\n"),
                ("rpm -q", 1, RPM_INFO),
            ],
        );
        let r = d
            .info_installed(&strs(&["bash", "nosuch"]), Map::default())
            .unwrap();
        assert_eq!(r.retcode, 0, "rpm's exit code is ignored");
        assert_eq!(
            r.info.keys().collect::<Vec<_>>(),
            vec!["kernel-core", "bash", "shadow-utils"]
        );
        let seen = calls.lock().unwrap().clone();
        let query = info_query(None, "%{LONGSIZE}").unwrap();
        assert_eq!(seen[0].0, strs(&["rpm", "--querytags"]));
        assert_eq!(
            seen[1],
            (
                strs(&["rpm", "-q", "bash", "nosuch", "--queryformat", &query]),
                vec![("TZ".to_string(), "UTC".to_string())]
            )
        );

        let mut kw = Map::default();
        kw.insert("attr".into(), Value::Str("version,arch".into()));
        kw.insert("root".into(), Value::Str("/mnt/sysimage".into()));
        kw.insert("failhard".into(), Value::Bool(false));
        let (d, calls) = fake("dnf", &[("rpm --querytags", 0, "NAME\nSIZE\n")]);
        d.info_installed(&[], kw).unwrap();
        let query = info_query(Some(&strs(&["version", "arch"])), "%{SIZE}").unwrap();
        assert_eq!(
            ran(&calls, "rpm --root"),
            vec![strs(&[
                "rpm",
                "--root",
                "/mnt/sysimage",
                "-qa",
                "--queryformat",
                &query
            ])]
        );

        let mut kw = Map::default();
        kw.insert("attr".into(), Value::Str("bogus".into()));
        assert_eq!(
            d.info_installed(&[], kw),
            Err(PkgError::Command("No valid attributes found.".into()))
        );
    }
}
