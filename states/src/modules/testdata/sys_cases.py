"""The system-configuration state scenarios record.py --sys runs through
Salt 3007.8 (see record.py). Each case: optional `isolate` (folders to
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
