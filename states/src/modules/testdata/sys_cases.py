"""The system-configuration state scenarios record_sys.py --sys runs through
Salt 3007.8 (see record_sys.py). Each case: optional `isolate` (folders to
overlay, files to hide: what it may change), `opts` (minion options, @TMP@
allowed), `masks` ([regex, replacement] for host-dependent words), `steps`."""

GRAINS = {"os": "Debian", "os_family": "Debian", "kernel": "Linux",
          "systemd": {"version": "252"}}

FILE_ROOTS = {
    "base/crontab.txt": "# from salt\n5 4 * * * /usr/bin/nightly\n",
    "base/crontab.j2": "MAILTO={{ mail }}\n{{ minute }} * * * * /usr/bin/poll\n",
    "base/bad-crontab.txt": "this is not a crontab line\n",
}

OP = "ini.options_present"
OA = "ini.options_absent"
SP = "ini.sections_present"
SA = "ini.sections_absent"

INI = "@TMP@/a.ini"

SYS_CASES = {
    "ini_options_present": {"steps": [
        {"state": OP, "args": {"name": INI, "sections": {"general": {"a": 1, "b": "two"}}}, "test": True},
        {"state": OP, "args": {"name": INI, "sections": {"general": {"a": 1, "b": "two"}}}},
        {"check": "cat @TMP@/a.ini"},
        {"state": OP, "args": {"name": INI, "sections": {"general": {"a": 1, "b": "two"}}}},
        {"state": OP, "args": {"name": INI, "sections": {"general": {"a": 1, "b": "two"}}}, "test": True},
        {"state": OP, "args": {"name": INI, "sections": {"general": {"a": 2, "c": True}, "other": {"x": "y"}}}, "test": True},
        {"state": OP, "args": {"name": INI, "sections": {"general": {"a": 2, "c": True}, "other": {"x": "y"}}}},
        {"check": "cat @TMP@/a.ini"},
        {"state": OP, "args": {"name": INI, "sections": {"top": "level", "general": {"a": 2}}}, "test": True},
        {"state": OP, "args": {"name": INI, "sections": {"top": "level", "general": {"a": 2}}}},
        {"check": "cat @TMP@/a.ini"},
        {"state": OP, "args": {"name": INI, "sections": {"top": "level", "general": {"a": 2}}}},
        {"state": OP, "args": {"name": INI}},
        {"state": OP, "args": {"name": INI}, "test": True},
        {"state": OP, "args": {"name": "@TMP@/nodir/x.ini", "sections": {"s": {"k": "v"}}}},
        {"state": OP, "args": {"name": "@TMP@/nodir/x.ini", "sections": {"s": {"k": "v"}}}, "test": True},
    ]},
    "ini_strict": {"steps": [
        {"sh": "printf 'lead = 1\\nkeep = 2\\n[one]\\nx = 1\\ny = 2\\n# a comment\\n[two]\\np = q\\n' > @TMP@/a.ini"},
        {"state": OP, "args": {"name": INI, "strict": True, "sections": {"keep": 2, "one": {"x": 1}}}, "test": True},
        {"state": OP, "args": {"name": INI, "strict": True, "sections": {"keep": 2, "one": {"x": 1}}}},
        {"check": "cat @TMP@/a.ini"},
        {"state": OP, "args": {"name": INI, "strict": True, "sections": {"keep": 2, "one": {"x": 1}}}},
        {"state": OP, "args": {"name": INI, "strict": True, "sections": {"one": {"x": 5, "new": "n"}}}},
        {"check": "cat @TMP@/a.ini"},
    ]},
    "ini_layout": {"steps": [
        {"sh": "printf '; top comment\\n[main]\\n  key1 = v1\\n#key2 = old\\nkey3=v3\\n    continued line\\nodd line here\\n\\n[empty]\\n' > @TMP@/a.ini"},
        {"state": OP, "args": {"name": INI, "sections": {"main": {"key2": "new", "key3": "v3b"}}}},
        {"check": "cat @TMP@/a.ini"},
        {"state": OP, "args": {"name": INI, "sections": {"main": {"key2": "new"}}}},
        {"sh": "printf 'a: 1\\n[s]\\nb: 2\\n' > @TMP@/c.ini"},
        {"state": OP, "args": {"name": "@TMP@/c.ini", "separator": ":", "sections": {"s": {"b": 3, "c": 4}}}},
        {"check": "cat @TMP@/c.ini"},
        {"state": OP, "args": {"name": "@TMP@/d.ini", "no_spaces": True, "sections": {"s": {"b": 3}}}},
        {"check": "cat @TMP@/d.ini"},
        {"sh": "printf '[s]\\nk v\\n' > @TMP@/e.ini"},
        {"state": OP, "args": {"name": "@TMP@/e.ini", "separator": " ", "sections": {"s": {"k": "w", "n": "m"}}}},
        {"check": "cat @TMP@/e.ini"},
    ]},
    "ini_absent": {"steps": [
        {"sh": "printf 'lead = 1\\n[one]\\nx = 1\\ny = 2\\n[two]\\np = q\\n' > @TMP@/a.ini"},
        {"state": OA, "args": {"name": INI, "sections": {"one": ["x", "nope"], "lead": "ignored"}}, "test": True},
        {"state": OA, "args": {"name": INI, "sections": {"one": ["x", "nope"], "lead": "ignored"}}},
        {"check": "cat @TMP@/a.ini"},
        {"state": OA, "args": {"name": INI, "sections": {"one": ["x", "nope"]}}},
        {"state": OA, "args": {"name": INI, "sections": {"one": ["x"]}}, "test": True},
        {"state": OA, "args": {"name": INI}},
        {"state": OA, "args": {"name": INI}, "test": True},
        {"state": OA, "args": {"name": "@TMP@/missing.ini", "sections": {"one": ["x"]}}},
        {"check": "ls @TMP@"},
        {"state": OA, "args": {"name": "@TMP@/missing.ini", "sections": {"one": ["x"]}}, "test": True},
    ]},
    "ini_sections": {"steps": [
        {"sh": "printf 'lead = 1\\n[one]\\nx = 1\\n[two]\\np = q\\n' > @TMP@/a.ini"},
        {"state": SP, "args": {"name": INI, "sections": ["one", "three"]}, "test": True},
        {"state": SP, "args": {"name": INI, "sections": ["one", "three"]}},
        {"check": "cat @TMP@/a.ini"},
        {"state": SP, "args": {"name": INI, "sections": {"four": {"k": "v"}}}, "test": True},
        {"state": SA, "args": {"name": INI, "sections": ["two", "nine"]}, "test": True},
        {"state": SA, "args": {"name": INI, "sections": ["two", "nine"]}},
        {"check": "cat @TMP@/a.ini"},
        {"state": SA, "args": {"name": INI, "sections": ["two", "nine"]}},
        {"state": SA, "args": {"name": INI}, "test": True},
        {"state": SA, "args": {"name": "@TMP@/missing.ini", "sections": ["x"]}},
        {"check": "ls @TMP@"},
        {"state": SA, "args": {"name": "@TMP@/missing.ini", "sections": ["x"]}, "test": True},
    ]},
}

CRON = {"overlay": ["/var/spool/cron"]}
CP = "cron.present"
CA = "cron.absent"
TMPFILE_MASK = ["/tmp/__salt\\.tmp\\.[A-Za-z0-9_]{8}", "/tmp/__salt.tmp.<random>"]
# A kernel release names the host the answer was recorded on.
KERNEL_MASK = ["/lib/modules/[^\\s\"/]+", "/lib/modules/<kernel release>"]

SYS_CASES.update({
    "cron_present": {"isolate": CRON, "masks": [TMPFILE_MASK], "steps": [
        {"state": CP, "args": {"name": "/usr/bin/poll", "minute": "*/5"}, "test": True},
        {"state": CP, "args": {"name": "/usr/bin/poll", "minute": "*/5"}},
        {"check": "crontab -l"},
        {"state": CP, "args": {"name": "/usr/bin/poll", "minute": "*/5"}},
        {"state": CP, "args": {"name": "/usr/bin/poll", "minute": "*/5"}, "test": True},
        {"state": CP, "args": {"name": "/usr/bin/poll", "minute": "*/5", "hour": 3}, "test": True},
        {"state": CP, "args": {"name": "/usr/bin/poll", "minute": "*/5", "hour": 3}},
        {"check": "crontab -l"},
        {"state": CP, "args": {"name": "/usr/bin/backup --all", "identifier": "backup", "minute": 0,
                               "hour": 3, "dayweek": "1-5", "comment": "nightly backup"}},
        {"state": CP, "args": {"name": "/usr/bin/backup --full", "identifier": "backup", "minute": 0,
                               "hour": 3, "dayweek": "1-5", "comment": "nightly backup"}, "test": True},
        {"state": CP, "args": {"name": "/usr/bin/backup --full", "identifier": "backup", "minute": 0,
                               "hour": 3, "dayweek": "1-5", "comment": "nightly backup"}},
        {"check": "crontab -l"},
        {"state": CP, "args": {"name": "/usr/bin/backup --full", "identifier": "backup", "minute": 0,
                               "hour": 3, "dayweek": "1-5", "comment": "nightly backup", "commented": True}},
        {"state": CP, "args": {"name": "/usr/bin/backup --full", "identifier": "backup", "minute": 0,
                               "hour": 3, "dayweek": "1-5", "comment": "nightly backup", "commented": True}, "test": True},
        {"check": "crontab -l"},
        {"state": CP, "args": {"name": "/usr/bin/boot", "special": "@reboot", "comment": "at boot"}, "test": True},
        {"state": CP, "args": {"name": "/usr/bin/boot", "special": "@reboot", "comment": "at boot"}},
        {"state": CP, "args": {"name": "/usr/bin/boot", "special": "@reboot", "comment": "at boot"}},
        {"state": CP, "args": {"name": "/usr/bin/boot", "special": "@reboot", "comment": "at boot"}, "test": True},
        {"state": CP, "args": {"name": "/usr/bin/boot", "special": "@daily"}, "test": True},
        {"state": CP, "args": {"name": "/usr/bin/boot", "special": "@daily"}},
        {"check": "crontab -l"},
        {"state": CP, "args": {"name": "  /usr/bin/spaced  ", "minute": 7, "identifier": None}},
        {"state": CP, "args": {"name": "/usr/bin/spaced", "minute": 7, "identifier": None}, "test": True},
        {"check": "crontab -l"},
        {"state": CP, "args": {"name": "/usr/bin/rand", "minute": "random", "hour": 2}},
        {"state": CP, "args": {"name": "/usr/bin/rand", "minute": "random", "hour": 2}},
        {"state": CP, "args": {"name": "/usr/bin/rand", "minute": "random", "hour": 2}, "test": True},
        {"state": CP, "args": {"name": "/usr/bin/poll", "user": "nosuchuser1"}},
        {"state": CP, "args": {"name": "/usr/bin/bad", "minute": "99"}},
    ]},
    "cron_absent": {"isolate": CRON, "steps": [
        {"state": CA, "args": {"name": "/usr/bin/poll"}, "test": True},
        {"state": CA, "args": {"name": "/usr/bin/poll"}},
        {"sh": "printf '# Lines below here are managed by Salt, do not edit\\n* * * * * /usr/bin/poll\\n# keep me SALT_CRON_IDENTIFIER:keep\\n1 * * * * /usr/bin/keep\\n@daily /usr/bin/day\\n' | crontab -"},
        {"state": CA, "args": {"name": "/usr/bin/poll"}, "test": True},
        {"state": CA, "args": {"name": "/usr/bin/poll"}},
        {"check": "crontab -l"},
        {"state": CA, "args": {"name": "/usr/bin/poll"}},
        {"state": CA, "args": {"name": "/usr/bin/other", "identifier": "keep"}, "test": True},
        {"state": CA, "args": {"name": "/usr/bin/keep"}},
        {"state": CA, "args": {"name": "/usr/bin/other", "identifier": "keep"}},
        {"check": "crontab -l"},
        {"state": CA, "args": {"name": "/usr/bin/day", "special": "@daily"}, "test": True},
        {"state": CA, "args": {"name": "/usr/bin/day", "special": "@hourly"}},
        {"state": CA, "args": {"name": "/usr/bin/day", "special": "@daily"}},
        {"check": "crontab -l"},
    ]},
    "cron_env": {"isolate": CRON, "steps": [
        {"state": "cron.env_present", "args": {"name": "MAILTO", "value": "ops@example.com"}, "test": True},
        {"state": "cron.env_present", "args": {"name": "MAILTO", "value": "ops@example.com"}},
        {"state": "cron.env_present", "args": {"name": "MAILTO", "value": "ops@example.com"}},
        {"state": "cron.env_present", "args": {"name": "MAILTO", "value": "ops@example.com"}, "test": True},
        {"state": "cron.env_present", "args": {"name": "MAILTO", "value": "root"}, "test": True},
        {"state": "cron.env_present", "args": {"name": "MAILTO", "value": "root"}},
        {"check": "crontab -l"},
        {"state": "cron.env_present", "args": {"name": "EMPTY"}},
        {"state": "cron.env_present", "args": {"name": "EMPTY"}, "test": True},
        {"state": "cron.env_present", "args": {"name": "EMPTY"}},
        {"check": "crontab -l"},
        {"state": "cron.env_absent", "args": {"name": "MAILTO"}, "test": True},
        {"state": "cron.env_absent", "args": {"name": " MAILTO "}},
        {"state": "cron.env_absent", "args": {"name": "MAILTO"}},
        {"state": "cron.env_absent", "args": {"name": "MAILTO"}, "test": True},
        {"check": "crontab -l"},
    ]},
    "cron_file": {"isolate": CRON, "masks": [TMPFILE_MASK], "steps": [
        {"state": "cron.file", "args": {"name": "salt://crontab.txt"}, "test": True},
        {"state": "cron.file", "args": {"name": "salt://crontab.txt"}},
        {"check": "crontab -l"},
        {"state": "cron.file", "args": {"name": "salt://crontab.txt"}},
        {"state": "cron.file", "args": {"name": "salt://crontab.txt"}, "test": True},
        {"state": "cron.file", "args": {"name": "salt://crontab.j2", "template": "jinja",
                                        "context": {"mail": "ops", "minute": 5}}, "test": True},
        {"state": "cron.file", "args": {"name": "salt://crontab.j2", "template": "jinja",
                                        "context": {"mail": "ops", "minute": 5}}},
        {"check": "crontab -l"},
        {"state": "cron.file", "args": {"name": "salt://crontab.txt", "replace": False}},
        {"state": "cron.file", "args": {"name": "salt://bad-crontab.txt"}},
        {"check": "crontab -l"},
        {"state": "cron.file", "args": {"name": "salt://nope.txt"}},
        {"state": "cron.file", "args": {"name": "salt://nope.txt"}, "test": True},
        {"state": "cron.file", "args": {"name": "salt://crontab.txt", "user": "nosuchuser1"}},
        {"sh": "printf '1 1 * * * /usr/bin/local\\n' > @TMP@/local.cron"},
        {"state": "cron.file", "args": {"name": "@TMP@/local.cron"}},
        {"check": "crontab -l"},
    ]},
})

# kernel.domainname is the UTS namespace's: each case has its own.
SYSCTL = {"overlay": ["/etc"]}
SY = "sysctl.present"
DN = "kernel.domainname"
CONF = "@TMP@/sysctl.conf"

SYS_CASES.update({
    "sysctl_present": {"isolate": SYSCTL, "steps": [
        {"sh": "sysctl -q -w kernel.domainname='(none)'"},
        {"state": SY, "args": {"name": DN, "value": "brine.test", "config": CONF}, "test": True},
        {"state": SY, "args": {"name": DN, "value": "brine.test", "config": CONF}},
        {"check": "cat @TMP@/sysctl.conf; sysctl -n kernel.domainname"},
        {"state": SY, "args": {"name": DN, "value": "brine.test", "config": CONF}},
        {"state": SY, "args": {"name": DN, "value": "brine.test", "config": CONF}, "test": True},
        {"sh": "sysctl -q -w kernel.domainname=other"},
        {"state": SY, "args": {"name": DN, "value": "brine.test", "config": CONF}, "test": True},
        {"state": SY, "args": {"name": DN, "value": "brine.test", "config": CONF}},
        {"check": "cat @TMP@/sysctl.conf; sysctl -n kernel.domainname"},
        {"state": SY, "args": {"name": DN, "value": "second", "config": CONF}, "test": True},
        {"state": SY, "args": {"name": DN, "value": "second", "config": CONF}},
        {"check": "cat @TMP@/sysctl.conf; sysctl -n kernel.domainname"},
        {"state": SY, "args": {"name": DN, "value": "second", "config": "@TMP@/other.conf"}, "test": True},
        {"state": SY, "args": {"name": DN, "value": "third", "config": "@TMP@/other.conf"}, "test": True},
        {"state": SY, "args": {"name": DN, "value": 42, "config": "@TMP@/sub/dir/int.conf"}},
        {"check": "cat @TMP@/sub/dir/int.conf; sysctl -n kernel.domainname"},
        {"state": SY, "args": {"name": DN, "value": "a  b", "config": CONF}},
        {"state": SY, "args": {"name": DN, "value": "a b", "config": CONF}, "test": True},
        {"state": SY, "args": {"name": DN, "value": "a b", "config": CONF}},
        {"check": "cat @TMP@/sysctl.conf"},
    ]},
    "sysctl_edges": {"isolate": SYSCTL, "steps": [
        {"sh": "sysctl -q -w kernel.domainname='(none)'"},
        {"sh": "printf '# comment\\n#kernel.domainname = old\\nvm.swappiness = 10\\n  kernel.domainname   =   x  y \\nlast line no newline' > @TMP@/sysctl.conf"},
        {"state": SY, "args": {"name": DN, "value": "x y", "config": CONF}, "test": True},
        {"state": SY, "args": {"name": DN, "value": "x y", "config": CONF}},
        {"check": "cat @TMP@/sysctl.conf; echo; sysctl -n kernel.domainname"},
        {"state": SY, "args": {"name": "kernel.nosuchkey1", "value": 1, "config": CONF}, "test": True},
        {"state": SY, "args": {"name": "kernel.nosuchkey1", "value": 1, "config": CONF}},
        {"check": "cat @TMP@/sysctl.conf"},
        {"state": SY, "args": {"name": DN, "value": "y", "config": "@TMP@"}, "test": True},
        {"state": SY, "args": {"name": DN, "value": "y", "config": "@TMP@"}},
        {"state": SY, "args": {"name": DN, "value": "viadefault"}, "test": True},
        {"state": SY, "args": {"name": DN, "value": "viadefault"}},
        {"check": "tail -n 2 /etc/sysctl.conf; sysctl -n kernel.domainname"},
    ]},
})

HOSTS = {"hosts.file": "@TMP@/hosts"}
HP = "host.present"

SYS_CASES.update({
    "host_present": {"opts": HOSTS, "steps": [
        {"sh": "printf '# the hosts file\\n127.0.0.1\\tlocalhost\\n10.0.0.5\\tdb db.example # database\\nnotanip\\tweird\\n' > @TMP@/hosts"},
        {"state": HP, "args": {"name": "web", "ip": "10.0.0.9"}, "test": True},
        {"state": HP, "args": {"name": "web", "ip": "10.0.0.9"}},
        {"check": "cat @TMP@/hosts"},
        {"state": HP, "args": {"name": "web", "ip": "10.0.0.9"}},
        {"state": HP, "args": {"name": "web", "ip": "10.0.0.9"}, "test": True},
        {"state": HP, "args": {"name": "web2", "ip": "10.0.0.5"}, "test": True},
        {"state": HP, "args": {"name": "web2", "ip": "10.0.0.5"}},
        {"check": "cat @TMP@/hosts"},
        {"state": HP, "args": {"name": "web", "ip": ["10.0.0.9", "10.0.0.10"]}, "test": True},
        {"state": HP, "args": {"name": "web", "ip": ["10.0.0.9", "10.0.0.10"]}},
        {"check": "cat @TMP@/hosts"},
        {"state": HP, "args": {"name": "web", "ip": "10.0.0.9", "comment": "frontend"}, "test": True},
        {"state": HP, "args": {"name": "web", "ip": "10.0.0.9", "comment": "frontend"}},
        {"check": "cat @TMP@/hosts"},
        {"state": HP, "args": {"name": "web", "ip": "10.0.0.9", "comment": "frontend"}},
        {"state": HP, "args": {"name": "web", "ip": "10.0.0.9", "comment": "changed"}},
        {"state": HP, "args": {"name": "db", "ip": "10.0.0.7", "comment": "new db"}, "test": True},
        {"state": HP, "args": {"name": "db", "ip": "10.0.0.7", "comment": "new db"}},
        {"check": "cat @TMP@/hosts"},
        {"state": HP, "args": {"name": "newdb", "ip": "10.0.0.7", "clean": True}, "test": True},
        {"state": HP, "args": {"name": "db", "ip": "10.0.0.7", "clean": True}, "test": True},
        {"state": HP, "args": {"name": "db", "ip": "10.0.0.7", "clean": True}},
        {"check": "cat @TMP@/hosts"},
        {"state": HP, "args": {"name": "odd", "ip": "notanip"}},
        {"state": HP, "args": {"name": "six", "ip": "fe80::1"}},
        {"check": "cat @TMP@/hosts"},
    ]},
    "host_absent_only": {"opts": HOSTS, "steps": [
        {"sh": "printf '127.0.0.1\\tlocalhost\\n10.0.0.5\\tdb db.example alias3 # database\\n10.0.0.6\\tsolo\\n' > @TMP@/hosts"},
        {"state": "host.absent", "args": {"name": "db.example", "ip": "10.0.0.5"}, "test": True},
        {"state": "host.absent", "args": {"name": "db.example", "ip": "10.0.0.5"}},
        {"check": "cat @TMP@/hosts"},
        {"state": "host.absent", "args": {"name": "db.example", "ip": "10.0.0.5"}},
        {"state": "host.absent", "args": {"name": "solo", "ip": ["10.0.0.9", "10.0.0.6"]}, "test": True},
        {"state": "host.absent", "args": {"name": "solo", "ip": ["10.0.0.6", "10.0.0.9"]}},
        {"check": "cat @TMP@/hosts"},
        {"state": "host.only", "args": {"name": "10.0.0.5", "hostnames": ["db", " alias3 "]}},
        {"state": "host.only", "args": {"name": "10.0.0.5", "hostnames": ["db", "alias3"]}, "test": True},
        {"state": "host.only", "args": {"name": "10.0.0.5", "hostnames": "primary"}, "test": True},
        {"state": "host.only", "args": {"name": "10.0.0.5", "hostnames": "primary"}},
        {"check": "cat @TMP@/hosts"},
        {"state": "host.only", "args": {"name": "10.0.0.8", "hostnames": ["a", "b"]}},
        {"check": "cat @TMP@/hosts"},
        {"state": "host.only", "args": {"name": "10.0.0.8", "hostnames": []}},
        {"check": "cat @TMP@/hosts"},
        {"state": "host.present", "args": {"name": "x", "ip": "10.1.1.1"}},
        {"sh": "rm -f @TMP@/hosts"},
        {"state": "host.only", "args": {"name": "10.0.0.8", "hostnames": "fresh"}},
        {"check": "cat @TMP@/hosts"},
    ]},
})

# A Debian host without systemd's tools (a container image): /etc is an
# overlay, and timedatectl is hidden.
TZ_PLAIN = {"overlay": ["/etc", "/usr/bin"], "hide": ["/usr/bin/timedatectl"]}
TZ = "timezone.system"

SYS_CASES.update({
    "timezone_plain": {"isolate": TZ_PLAIN, "steps": [
        {"sh": "ln -sf /usr/share/zoneinfo/Etc/UTC /etc/localtime; echo Etc/UTC > /etc/timezone; rm -f /etc/default/rcS /etc/adjtime"},
        {"state": TZ, "args": {"name": "Etc/UTC"}},
        {"state": TZ, "args": {"name": "Etc/UTC"}, "test": True},
        {"state": TZ, "args": {"name": "Europe/Paris"}, "test": True},
        {"state": TZ, "args": {"name": "Europe/Paris"}},
        {"check": "readlink /etc/localtime; cat /etc/timezone"},
        {"state": TZ, "args": {"name": "Europe/Paris"}},
        {"state": TZ, "args": {"name": "Nowhere/Brine"}},
        {"state": TZ, "args": {"name": "Nowhere/Brine"}, "test": True},
        {"state": TZ, "args": {"name": "Europe/Paris", "utc": False}},
        {"sh": "printf '# hardware clock\\nUTC=no\\n' > /etc/default/rcS"},
        {"state": TZ, "args": {"name": "Europe/Paris"}, "test": True},
        {"state": TZ, "args": {"name": "Europe/Paris", "utc": False}},
        {"state": TZ, "args": {"name": "Europe/Paris", "utc": "yes"}, "test": True},
        {"state": TZ, "args": {"name": "Europe/Paris"}},
        {"check": "cat /etc/default/rcS; readlink /etc/localtime; cat /etc/timezone"},
        {"state": TZ, "args": {"name": "Europe/Paris"}},
        {"sh": "printf 'UTC=no\\n' > /etc/default/rcS"},
        {"state": TZ, "args": {"name": "America/New_York"}, "test": True},
        {"state": TZ, "args": {"name": "America/New_York"}},
        {"check": "cat /etc/default/rcS; readlink /etc/localtime; cat /etc/timezone"},
    ]},
    # This container as it is: timedatectl installed, systemd not running.
    "timezone_timedatectl": {"isolate": {"overlay": ["/etc"]}, "steps": [
        {"state": TZ, "args": {"name": "Etc/UTC"}},
        {"state": TZ, "args": {"name": "Nowhere/Brine"}},
    ]},
    "locale_present": {"isolate": {"overlay": ["/etc", "/usr/lib/locale"]}, "steps": [
        {"state": "locale.present", "args": {"name": "C.UTF-8"}},
        {"state": "locale.present", "args": {"name": "en_US.UTF-8"}, "test": True},
        {"state": "locale.present", "args": {"name": "en_US.UTF-8"}},
        {"check": "locale -a; grep -v '^#' /etc/locale.gen; ls /etc/locale.gen*"},
        {"state": "locale.present", "args": {"name": "en_US.UTF-8"}},
        {"state": "locale.present", "args": {"name": "en_US.utf8"}, "test": True},
        {"state": "locale.present", "args": {"name": "xx_YY.UTF-8"}},
        {"state": "locale.present", "args": {"name": "de_DE.UTF-8 UTF-8"}, "test": True},
    ]},
    "locale_system": {"isolate": {"overlay": ["/etc", "/usr/lib/locale"]}, "steps": [
        {"sh": "printf '#  File generated by update-locale\\n' > /etc/default/locale"},
        {"state": "locale.system", "args": {"name": "C.UTF-8"}, "test": True},
        {"state": "locale.system", "args": {"name": "C.UTF-8"}},
        {"check": "cat /etc/default/locale; ls /etc/default/locale*"},
        {"state": "locale.system", "args": {"name": "C.UTF-8"}},
        {"state": "locale.system", "args": {"name": "C.UTF-8"}, "test": True},
        {"state": "locale.system", "args": {"name": "POSIX"}},
        {"check": "cat /etc/default/locale"},
        {"sh": "rm /etc/default/locale"},
        {"state": "locale.system", "args": {"name": "C.UTF-8"}},
        {"check": "cat /etc/default/locale"},
    ]},
})

SYS_CASES.update({
    # This container: systemctl installed, systemd not running (Salt's
    # offline mode); /etc an overlay in case a mask is written.
    "service_masks": {"isolate": {"overlay": ["/etc", "/run"]}, "steps": [
        {"state": "service.masked", "args": {"name": "cron"}, "test": True},
        {"state": "service.masked", "args": {"name": "cron"}},
        {"check": "ls -la /etc/systemd/system/cron.service 2>&1 | cut -c1-10"},
        {"state": "service.masked", "args": {"name": "cron"}},
        {"state": "service.unmasked", "args": {"name": "cron"}, "test": True},
        {"state": "service.unmasked", "args": {"name": "cron"}},
        {"state": "service.masked", "args": {"name": "cron", "runtime": True}},
        {"state": "service.unmasked", "args": {"name": "cron", "runtime": True}},
    ]},
})

ALT = {"overlay": ["/etc", "/var/lib/dpkg"]}
AI = "alternatives.install"
ALT_LINK = "@TMP@/bin/brinealt"

SYS_CASES.update({
    "alternatives_states": {"isolate": ALT, "steps": [
        {"sh": "mkdir -p @TMP@/bin; for f in a1 a2; do printf '#!/bin/sh\\n' > @TMP@/$f; chmod +x @TMP@/$f; done"},
        {"state": AI, "args": {"name": "brinealt", "link": ALT_LINK, "path": "@TMP@/a1", "priority": 10}, "test": True},
        {"state": AI, "args": {"name": "brinealt", "link": ALT_LINK, "path": "@TMP@/a1", "priority": 10}},
        {"check": "readlink @TMP@/bin/brinealt /etc/alternatives/brinealt; update-alternatives --display brinealt"},
        {"state": AI, "args": {"name": "brinealt", "link": ALT_LINK, "path": "@TMP@/a1", "priority": 10}},
        {"state": AI, "args": {"name": "brinealt", "link": ALT_LINK, "path": "@TMP@/a2", "priority": "5"}},
        {"state": "alternatives.set", "args": {"name": "brinealt", "path": "@TMP@/a2"}, "test": True},
        {"state": "alternatives.set", "args": {"name": "brinealt", "path": "@TMP@/a2"}},
        {"check": "readlink /etc/alternatives/brinealt; update-alternatives --display brinealt | head -1"},
        {"state": "alternatives.set", "args": {"name": "brinealt", "path": "@TMP@/a2"}},
        {"state": "alternatives.set", "args": {"name": "brinealt", "path": "@TMP@/nope"}},
        {"state": "alternatives.auto", "args": {"name": "brinealt"}, "test": True},
        {"state": "alternatives.auto", "args": {"name": "brinealt"}},
        {"check": "readlink /etc/alternatives/brinealt"},
        {"state": "alternatives.auto", "args": {"name": "brinealt"}},
        {"state": "alternatives.remove", "args": {"name": "brinealt", "path": "@TMP@/a2"}, "test": True},
        {"state": "alternatives.remove", "args": {"name": "brinealt", "path": "@TMP@/a2"}},
        {"state": "alternatives.remove", "args": {"name": "brinealt", "path": "@TMP@/a2"}},
        {"state": "alternatives.set", "args": {"name": "brinealt", "path": "@TMP@/a1"}},
        {"state": "alternatives.remove", "args": {"name": "brinealt", "path": "@TMP@/a1"}},
        {"check": "ls @TMP@/bin; ls /etc/alternatives/brinealt 2>&1"},
        {"state": "alternatives.remove", "args": {"name": "brinealt", "path": "@TMP@/a1"}},
        {"state": "alternatives.auto", "args": {"name": "brinealt"}},
        {"state": "alternatives.set", "args": {"name": "brinealt", "path": "@TMP@/a1"}},
        {"state": AI, "args": {"name": "brinealt2", "link": "@TMP@/bin/b2", "path": "@TMP@/nope", "priority": 1}},
        {"state": AI, "args": {"name": "brinealt2", "link": "@TMP@/bin/b2", "path": "@TMP@/nope", "priority": 1}, "test": True},
    ]},
})

DC = "debconf.set"
SYS_CASES.update({
    "debconf_set": {"isolate": {"overlay": ["/var/cache/debconf"]}, "steps": [
        {"state": DC, "args": {"name": "brinepkg", "data": {"brinepkg/q": {"type": "string", "value": "hello"}}}, "test": True},
        {"state": DC, "args": {"name": "brinepkg", "data": {"brinepkg/q": {"type": "string", "value": "hello"}}}},
        {"check": "debconf-get-selections | grep brinepkg"},
        {"state": DC, "args": {"name": "brinepkg", "data": {"brinepkg/q": {"type": "string", "value": "hello"}}}},
        {"state": DC, "args": {"name": "brinepkg", "data": {"brinepkg/q": {"type": "string", "value": "hello"}}}, "test": True},
        {"state": DC, "args": {"name": "brinepkg", "data": {
            "brinepkg/q": {"type": "string", "value": "hello"},
            "brinepkg/b": {"type": "boolean", "value": True},
            "brinepkg/p": {"type": "password", "value": "secret"},
            "brinepkg/n": {"type": "string", "value": 42},
            "brinepkg/m": {"type": "multiselect", "value": "a, b"}}}},
        {"check": "debconf-get-selections | grep brinepkg | sort"},
        {"state": DC, "args": {"name": "brinepkg", "data": {
            "brinepkg/q": {"type": "string", "value": "hello"},
            "brinepkg/b": {"type": "boolean", "value": 1},
            "brinepkg/p": {"type": "password", "value": "secret"},
            "brinepkg/n": {"type": "string", "value": 42},
            "brinepkg/m": {"type": "multiselect", "value": "a, b"}}}},
        {"state": DC, "args": {"name": "brinepkg", "data": {"brinepkg/b": {"type": "boolean", "value": False}}}, "test": True},
        {"state": DC, "args": {"name": "brinepkg", "data": {"brinepkg/q": {"type": "string", "value": "hello"},
                                                             "brinepkg/e": {"type": "string", "value": ""}}}},
        {"state": DC, "args": {"name": "brinepkg", "data": {"brinepkg/e": {"type": "string", "value": ""}}}},
        {"state": DC, "args": {"name": "brinepkg", "data": {}}},
        {"state": DC, "args": {"name": "otherpkg", "data": {"otherpkg/x": {"type": "string"}}}},
        {"state": DC, "args": {"name": "otherpkg", "data": {"otherpkg/x": {"type": "string", "value": "v"}}}},
        {"check": "debconf-get-selections | grep otherpkg"},
    ]},
})

MT = "mount.mounted"
UM = "mount.unmounted"
FSTAB = "@TMP@/fstab"
TMPFS = {"name": "@TMP@/mnt", "device": "tmpfs", "fstype": "tmpfs", "mkmnt": True, "config": FSTAB}
NOEXEC = dict(TMPFS, opts="noexec")

# Mounts made here live in the case's mount namespace and end with it.
SYS_CASES.update({
    "mount_tmpfs": {"isolate": {"overlay": []}, "steps": [
        {"sh": "touch @TMP@/fstab"},
        {"state": MT, "args": TMPFS, "test": True},
        {"state": MT, "args": TMPFS},
        {"check": "findmnt -n -o SOURCE,FSTYPE @TMP@/mnt; cat @TMP@/fstab"},
        {"state": MT, "args": TMPFS},
        {"state": MT, "args": TMPFS, "test": True},
        {"state": MT, "args": NOEXEC, "test": True},
        {"state": MT, "args": NOEXEC},
        {"check": "findmnt -n -o OPTIONS @TMP@/mnt | tr , '\\n' | grep noexec; cat @TMP@/fstab"},
        {"state": MT, "args": NOEXEC},
        {"state": MT, "args": NOEXEC, "watch": True},
        {"state": UM, "args": {"name": "@TMP@/mnt"}, "test": True},
        {"state": UM, "args": {"name": "@TMP@/mnt"}},
        {"check": "findmnt -n @TMP@/mnt || echo not mounted"},
        {"state": UM, "args": {"name": "@TMP@/mnt"}},
        {"state": UM, "args": {"name": "@TMP@/mnt"}, "watch": True},
        {"state": UM, "args": {"name": "@TMP@/mnt", "persist": True, "config": FSTAB}, "test": True},
        {"state": UM, "args": {"name": "@TMP@/mnt", "persist": True, "config": FSTAB, "device": "other"}},
        {"state": UM, "args": {"name": "@TMP@/mnt", "persist": True, "config": FSTAB}},
        {"check": "cat @TMP@/fstab"},
        {"state": UM, "args": {"name": "@TMP@/mnt", "persist": True, "config": FSTAB}},
        {"state": UM, "args": {"name": ""}},
    ]},
    "mount_devices": {"isolate": {"overlay": []}, "steps": [
        {"sh": "touch @TMP@/fstab; mkdir @TMP@/m2 @TMP@/src @TMP@/bmnt; mount -t tmpfs othertmp @TMP@/m2"},
        {"state": MT, "args": {"name": "@TMP@/m2", "device": "tmpfs", "fstype": "tmpfs", "persist": False}, "test": True},
        {"state": MT, "args": {"name": "@TMP@/m2", "device": "tmpfs", "fstype": "tmpfs", "persist": False}},
        {"check": "findmnt -n -o SOURCE @TMP@/m2"},
        {"state": MT, "args": {"name": "@TMP@/m2/", "device": "tmpfs", "fstype": "tmpfs", "persist": False}},
        {"state": MT, "args": {"name": "@TMP@/m2", "device": "tmpfsX", "fstype": "tmpfs", "persist": False,
                               "device_name_regex": ["othertmp", "tmp"]}},
        {"state": MT, "args": {"name": "@TMP@/bmnt", "device": "@TMP@/src", "fstype": "none", "opts": "bind", "config": FSTAB}},
        {"check": "findmnt -n -o TARGET @TMP@/bmnt; cat @TMP@/fstab"},
        {"state": MT, "args": {"name": "@TMP@/bmnt", "device": "@TMP@/src", "fstype": "none", "opts": "bind", "config": FSTAB}},
        {"state": MT, "args": {"name": "@TMP@/bmnt", "device": "@TMP@/src", "fstype": "none", "opts": ["bind"],
                               "config": FSTAB, "bind_mount_copy_active_opts": False}},
        {"state": MT, "args": {"name": "@TMP@/nodir", "device": "tmpfs", "fstype": "tmpfs", "persist": False}, "test": True},
        {"state": MT, "args": {"name": "@TMP@/nodir", "device": "tmpfs", "fstype": "tmpfs", "persist": False}},
        {"state": MT, "args": {"name": "@TMP@/nodir", "device": "tmpfs", "fstype": "tmpfs", "mount": False, "config": FSTAB}, "test": True},
        {"state": MT, "args": {"name": "@TMP@/nodir", "device": "tmpfs", "fstype": "tmpfs", "mount": False, "persist": False}},
        {"state": MT, "args": {"name": "@TMP@/nodir", "device": "tmpfs", "fstype": "tmpfs", "mount": False, "mkmnt": True, "persist": False}, "test": True},
        {"state": MT, "args": {"name": "@TMP@/nodir", "device": "tmpfs", "fstype": "tmpfs", "mount": False, "mkmnt": True, "config": FSTAB}},
        {"state": MT, "args": {"name": "@TMP@/nodir", "device": "tmpfs", "fstype": "tmpfs", "mount": False, "config": FSTAB}, "test": True},
        {"state": MT, "args": {"name": "@TMP@/nodir", "device": "tmpfs", "fstype": "tmpfs", "mount": False, "config": FSTAB, "opts": "ro"}, "test": True},
        {"check": "ls -d @TMP@/nodir; cat @TMP@/fstab"},
        {"state": MT, "args": {"name": "@TMP@/m3", "device": "weird", "fstype": "nosuchfs", "mkmnt": True, "persist": False}},
        {"state": MT, "args": {"name": "@TMP@/m4", "device": "tmpfs", "fstype": "tmpfs", "mkmnt": True, "config": "@TMP@/nofstab"}},
        {"state": MT, "args": {"name": "@TMP@/m5", "device": "UUID=\"ABCD-1234\"", "fstype": "vfat", "mount": False, "config": FSTAB}, "test": True},
        {"state": MT, "args": {"name": "@TMP@/m5", "device": "LABEL=nosuchlabel", "fstype": "ext4", "config": FSTAB}},
        {"state": MT, "args": {"name": "", "device": "tmpfs", "fstype": "tmpfs"}},
        {"state": MT, "args": {"name": "@TMP@/m6", "device": "", "fstype": "tmpfs"}},
        {"state": MT, "args": {"name": "@TMP@/m6", "device": "tmpfs", "fstype": ""}},
    ]},
    # Not a swap area: swapon refuses it (a real one would be swapped on
    # the whole host, beyond the namespace).
    "mount_swap": {"isolate": {"overlay": []}, "steps": [
        {"sh": "touch @TMP@/fstab; head -c 4096 /dev/zero > @TMP@/notswap; chmod 600 @TMP@/notswap"},
        {"state": "mount.swap", "args": {"name": "@TMP@/notswap", "config": FSTAB}, "test": True},
        {"state": "mount.swap", "args": {"name": "@TMP@/notswap", "config": FSTAB}},
        {"check": "cat @TMP@/fstab; cat /proc/swaps | wc -l"},
        {"state": "mount.swap", "args": {"name": "@TMP@/notswap", "config": FSTAB}},
        {"state": "mount.swap", "args": {"name": "@TMP@/notswap", "config": FSTAB}, "test": True},
        {"state": "mount.swap", "args": {"name": "@TMP@/notswap", "persist": False}},
        {"sh": "printf 'none\\t\\t@TMP@/other\\tnfs\\tdefaults\\t0 0\\n' > @TMP@/fstab2"},
        {"state": "mount.swap", "args": {"name": "@TMP@/other", "config": "@TMP@/fstab2"}},
        {"check": "cat @TMP@/fstab2"},
    ]},
})

# A simulated kernel: lsmod, modprobe and rmmod replaced by scripts over a
# list of loaded modules, and /lib/modules/RELEASE made up, so that the
# loading and persistence paths run (this kernel has no modules at all).
FAKE_KMOD = " && ".join([
    "K=/usr/lib/modules/$(uname -r)/kernel/drivers",
    "mkdir -p $K /etc/brine-kmod",
    "touch $K/dummy.ko $K/bonding.ko.xz $K/tls.ko $K/mii.ko $K/with-dash.ko",
    "printf 'kernel/fs/builtin_fs.ko\\n' > /usr/lib/modules/$(uname -r)/modules.builtin",
    "printf 'mii\\n' > /etc/brine-kmod/loaded",
    "rm -f /usr/sbin/lsmod /usr/sbin/modprobe /usr/sbin/rmmod",
    "printf '#!/bin/sh\\necho \"Module                  Size  Used by\"\\n"
    "while read m; do echo \"$m 16384 0\"; done < /etc/brine-kmod/loaded\\n' > /usr/sbin/lsmod",
    "printf '#!/bin/sh\\nm=$1\\nls /usr/lib/modules/$(uname -r)/kernel/drivers/$m.ko* >/dev/null 2>&1 || "
    "{ echo \"modprobe: FATAL: Module $m not found in directory /lib/modules/$(uname -r)\" >&2; exit 1; }\\n"
    "grep -qx $m /etc/brine-kmod/loaded || echo $m >> /etc/brine-kmod/loaded\\n"
    "[ $m = bonding ] && ! grep -qx tls /etc/brine-kmod/loaded && echo tls >> /etc/brine-kmod/loaded\\n"
    "exit 0\\n' > /usr/sbin/modprobe",
    "printf '#!/bin/sh\\nm=$1\\ngrep -qx $m /etc/brine-kmod/loaded || "
    "{ echo \"rmmod: ERROR: Module $m is not currently loaded\" >&2; exit 1; }\\n"
    "grep -vx $m /etc/brine-kmod/loaded > /etc/brine-kmod/l; mv /etc/brine-kmod/l /etc/brine-kmod/loaded\\n' > /usr/sbin/rmmod",
    "chmod +x /usr/sbin/lsmod /usr/sbin/modprobe /usr/sbin/rmmod",
])
KP = "kmod.present"
KA = "kmod.absent"
CONF_LS = "cat /etc/brine-kmod/loaded; echo --; cat /etc/modules-load.d/salt_managed.conf; echo --; ls /etc/modules-load.d"

SYS_CASES.update({
    # This container's kernel: no /proc/modules, no /lib/modules.
    "kmod_real": {"isolate": {"overlay": ["/etc"]}, "masks": [KERNEL_MASK], "steps": [
        {"state": KP, "args": {"name": "dummy"}, "test": True},
        {"state": KP, "args": {"name": "dummy"}},
        {"state": KP, "args": {"name": "dummy", "persist": True}},
        {"state": KA, "args": {"name": "dummy"}},
        {"state": KA, "args": {"name": "dummy", "persist": True}, "test": True},
    ]},
    "kmod_simulated": {"isolate": {"overlay": ["/etc", "/usr/sbin", "/usr/lib"]}, "masks": [KERNEL_MASK],
                       "steps": [
        {"sh": FAKE_KMOD},
        {"state": KP, "args": {"name": "mii"}},
        {"state": KP, "args": {"name": "dummy"}, "test": True},
        {"state": KP, "args": {"name": "dummy"}},
        {"check": CONF_LS},
        {"state": KP, "args": {"name": "dummy"}},
        {"state": KP, "args": {"name": "dummy", "persist": True}, "test": True},
        {"state": KP, "args": {"name": "dummy", "persist": True}},
        {"check": CONF_LS},
        {"state": KP, "args": {"name": "dummy", "persist": True}},
        {"state": KP, "args": {"name": "bonding", "persist": True}},
        {"check": CONF_LS},
        {"state": KP, "args": {"name": "placeholder", "mods": ["mii", "nosuchmod"]}},
        {"state": KP, "args": {"name": "placeholder", "mods": ["mii", "nosuchmod"]}, "test": True},
        {"state": KP, "args": {"name": "with_dash"}},
        {"state": KA, "args": {"name": "dummy", "persist": True}, "test": True},
        {"state": KA, "args": {"name": "dummy", "persist": True}},
        {"check": CONF_LS},
        {"state": KA, "args": {"name": "dummy", "persist": True}},
        {"state": KP, "args": {"name": "dummy", "persist": True}},
        {"check": CONF_LS},
        {"state": KA, "args": {"name": "dummy", "persist": True, "comment": False}},
        {"check": CONF_LS},
        {"state": KA, "args": {"name": "mii"}},
        {"state": KA, "args": {"name": "mii"}},
        {"state": KA, "args": {"name": "tls", "persist": True}},
        {"sh": "echo ghost >> /etc/modules-load.d/salt_managed.conf"},
        {"state": KA, "args": {"name": "ghost", "persist": True}},
        {"state": KA, "args": {"name": "placeholder", "mods": ["mii", "dummy"]}},
    ]},
})
