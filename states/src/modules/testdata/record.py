#!/usr/bin/env python3
"""Record what Salt 3007.8 answers for the file/cmd state scenarios below.

usage: record.py SALT_CALL WORKDIR [CASE...]
  (e.g. /tmp/saltvenv/bin/salt-call /tmp/stm-rec)
The serialize case needs Python's `toml` package importable by salt-call
(e.g. `pip install --target DIR toml` and PYTHONPATH=DIR): without it
Salt has no toml serializer.
Writes file.json and cmd.json next to this script; with CASE names only
those cases are recorded again, the others are kept. Each scenario runs in its
own folder (written @TMP@ in the scenarios and in the answers); `sh` steps
prepare or change files, `check` steps record what a shell command prints
afterwards (contents, modes) so the tests can compare real effects too.
"""
import json, os, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))

FILE_ROOTS = {
    "base/plain.txt": "hello\nworld\n",
    "base/conf.ini.j2": "[server]\nhost = {{ grains['id'] }}\nport = {{ port }}\nname = {{ name }}\nmode = {{ mode }}\nlevel = {{ level }}\n",
    "base/pillar.j2": "{{ pillar['num'] }} {{ pillar['parts']['a'] }} {{ opts['id'] }} {{ saltenv }}\n",
    "base/bin.dat": "\u0000\u0001\u0002binary\n",
    "base/s.sh": "#!/bin/sh\necho \"args:$#:$1\"\necho err >&2\nexit 3\n",
    "base/t.sh.j2": "#!/bin/sh\necho '{{ greeting }} from {{ grains['id'] }}'\n",
    "base/stateful.sh": "#!/bin/sh\necho 'changed=yes comment=\"did it\" extra=1'\n",
    "base/sub/deep.txt": "deep\n",
    "dev/plain.txt": "dev file\n",
    # file.recurse sources (a key ending in / is an empty folder).
    "base/rtree/a.txt": "a\n",
    "base/rtree/skip.log": "log\n",
    "base/rtree/sub/b.conf": "b={{ b }}\n",
    "base/rtree/sub/deep/c.txt": "c\n",
    "base/rtree/empty/": "",
    "base/rtreex/other.txt": "other\n",
    "base/rtpl/x.conf": "x={{ x }} id={{ grains['id'] }}\n",
    "base/lines.j2": "{{ greeting }} line\nsecond\n",
    "base/cache_me.txt": "cache me\n",
    "base/acc.j2": "{% for k in accumulator|sort %}{{ k }}: {{ accumulator[k]|join(',') }}\n{% endfor %}",
}
PILLAR = {"motd": "line one\nline two\n", "parts": {"a": "alpha", "b": "beta"}, "num": 42}
GRAINS = {"shell": "/bin/bash"}

M = "file.managed"
FILE_CASES = {
    "managed_contents": [
        {"state": M, "args": {"name": "@TMP@/a", "contents": "hello"}},
        {"check": "stat -c %a @TMP@/a; cat @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/a", "contents": "hello"}},
        {"state": M, "args": {"name": "@TMP@/a", "contents": "hello\nthere\n"}, "test": True},
        {"state": M, "args": {"name": "@TMP@/a", "contents": "hello\nthere\n"}},
        {"check": "cat @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/a", "contents": ["x", "y", 3, True]}},
        {"check": "cat @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/a", "contents": "no newline", "contents_newline": False}},
        {"check": "od -c @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/a", "contents": "with\r\ncrlf\n"}},
        {"check": "od -c @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/a", "contents": "héllo wörld"}},
        {"state": M, "args": {"name": "@TMP@/a", "contents": 12}},
        {"check": "cat @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/b", "contents": ""}},
        {"check": "stat -c %a:%s @TMP@/b"},
        {"state": M, "args": {"name": "@TMP@/b", "contents": "", "allow_empty": False}},
    ],
    "managed_diffs": [
        {"sh": "printf 'no newline at end' > @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/a", "contents": "no newline at end"}},
        {"sh": "for i in $(seq 1 30); do echo line$i; done > @TMP@/b"},
        {"state": M, "args": {"name": "@TMP@/b", "contents": "\n".join(
            ("LINE%d" % i if i in (3, 17) else "line%d" % i) for i in range(1, 31) if i != 25) + "\nline31"}},
        {"check": "cat @TMP@/b"},
        {"sh": "printf 'a\\nb\\nc\\n' > @TMP@/c"},
        {"state": M, "args": {"name": "@TMP@/c", "contents": "a\nc\n"}},
        {"state": M, "args": {"name": "@TMP@/c", "contents": "z\na\nc\nq\n"}},
        {"state": M, "args": {"name": "@TMP@/c", "contents": "totally\ndifferent\n"}, "test": True},
        {"state": M, "args": {"name": "@TMP@/c", "contents": "x\n", "show_changes": False}},
        {"sh": "printf 'one\\ntwo' > @TMP@/d"},
        {"state": M, "args": {"name": "@TMP@/d", "contents": "one\ntwo\nthree"}},
        {"sh": "printf 'same\\n' > @TMP@/e; chmod 640 @TMP@/e"},
        {"state": M, "args": {"name": "@TMP@/e", "contents": "changed"}},
        {"check": "stat -c %a @TMP@/e"},
    ],
    "managed_modes": [
        {"state": M, "args": {"name": "@TMP@/a", "contents": "x", "mode": 600}},
        {"check": "stat -c %a @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/b", "contents": "x", "mode": "0755"}},
        {"check": "stat -c %a @TMP@/b"},
        {"state": M, "args": {"name": "@TMP@/b", "contents": "x", "mode": 644}, "test": True},
        {"state": M, "args": {"name": "@TMP@/b", "contents": "x", "mode": 644}},
        {"check": "stat -c %a @TMP@/b"},
        {"state": M, "args": {"name": "@TMP@/b", "contents": "y", "mode": "0o600"}},
        {"check": "stat -c %a @TMP@/b"},
        {"state": M, "args": {"name": "@TMP@/b", "contents": "y", "mode": "0600"}},
        {"state": M, "args": {"name": "@TMP@/b", "contents": "y", "mode": "999"}},
        {"state": M, "args": {"name": "@TMP@/c", "source": "salt://plain.txt", "mode": 640}},
        {"check": "stat -c %a @TMP@/c"},
        {"state": M, "args": {"name": "@TMP@/c", "replace": False, "mode": "0644"}, "test": True},
        {"state": M, "args": {"name": "@TMP@/c", "replace": False, "mode": "0644"}},
        {"state": M, "args": {"name": "@TMP@/c", "replace": False}},
        {"state": M, "args": {"name": "@TMP@/c", "contents": "other", "replace": False}},
        {"check": "cat @TMP@/c"},
        {"state": M, "args": {"name": "@TMP@/d", "mode": "0600"}},
        {"check": "stat -c %a:%s @TMP@/d"},
        {"state": M, "args": {"name": "@TMP@/e"}, "test": True},
        {"state": M, "args": {"name": "@TMP@/e"}},
        {"state": M, "args": {"name": "@TMP@/e"}},
    ],
    "managed_owner": [
        {"state": M, "args": {"name": "@TMP@/a", "contents": "x", "user": "nobody", "group": "nogroup"}},
        {"check": "stat -c %U:%G:%a @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/a", "contents": "x", "user": "nobody", "group": "nogroup"}},
        {"state": M, "args": {"name": "@TMP@/a", "contents": "x", "user": "root"}, "test": True},
        {"state": M, "args": {"name": "@TMP@/a", "contents": "x", "user": "root", "group": "root"}},
        {"check": "stat -c %U:%G @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/a", "contents": "x", "user": "nosuchuser1", "group": "nosuchgroup1"}},
        {"state": M, "args": {"name": "@TMP@/a", "contents": "x", "user": "nosuchuser1"}, "test": True},
        {"state": M, "args": {"name": "@TMP@/a", "contents": "x", "owner": "nobody"}},
        {"check": "stat -c %U @TMP@/a"},
    ],
    "managed_source": [
        {"state": M, "args": {"name": "@TMP@/a", "source": "salt://plain.txt"}, "test": True},
        {"state": M, "args": {"name": "@TMP@/a", "source": "salt://plain.txt"}},
        {"check": "stat -c %a @TMP@/a; cat @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/a", "source": "salt://plain.txt"}},
        {"state": M, "args": {"name": "@TMP@/a", "source": "salt://plain.txt?saltenv=dev"}, "test": True},
        {"state": M, "args": {"name": "@TMP@/a", "source": "salt://plain.txt?saltenv=dev"}},
        {"check": "cat @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/a", "source": "salt://plain.txt", "source_hash": "md5=0123"}},
        {"state": M, "args": {"name": "@TMP@/b", "source": "salt://sub/deep.txt", "source_hash": "abc"}},
        {"state": M, "args": {"name": "@TMP@/c", "source": "salt://nope.txt"}},
        {"state": M, "args": {"name": "@TMP@/c", "source": "salt://nope.txt"}, "test": True},
        {"state": M, "args": {"name": "@TMP@/c", "source": "salt://../etc/passwd"}},
        {"state": M, "args": {"name": "@TMP@/c", "source": "salt:///etc/passwd"}},
        {"state": M, "args": {"name": "@TMP@/c", "source": ["salt://nope.txt", "salt://sub/deep.txt"]}},
        {"check": "cat @TMP@/c"},
        {"state": M, "args": {"name": "@TMP@/d", "source": ["salt://nope.txt", "salt://nope2.txt"]}},
        {"state": M, "args": {"name": "@TMP@/d", "source": "salt://plain.txt", "contents": "x"}},
        {"state": M, "args": {"name": "@TMP@/e", "source": "salt://bin.dat"}},
        {"sh": "echo text > @TMP@/f"},
        {"state": M, "args": {"name": "@TMP@/f", "source": "salt://bin.dat"}},
        {"sh": "printf 'local src\\n' > @TMP@/src.txt"},
        {"state": M, "args": {"name": "@TMP@/g", "source": "@TMP@/src.txt"}},
        {"state": M, "args": {"name": "@TMP@/h", "source": "file://@TMP@/src.txt"}},
        {"state": M, "args": {"name": "@TMP@/i", "source": "@TMP@/src.txt",
                              "source_hash": "sha256=0000000000000000000000000000000000000000000000000000000000000000"}},
        {"state": M, "args": {"name": "@TMP@/i", "source": "@TMP@/src.txt",
                              "source_hash": "sha256=7d3e9c4d3fc2a2c4be8ae2c5c6b0a5f0fd14c7a4e0b5f9d7fc4a1a8a4d1c0a11"}},
        {"state": M, "args": {"name": "@TMP@/j", "source": "@TMP@/missing.txt"}},
    ],
    "managed_template": [
        {"state": M, "args": {"name": "@TMP@/conf.ini", "source": "salt://conf.ini.j2", "template": "jinja",
                              "context": {"port": 8080}, "defaults": {"port": 1, "level": "info"}}},
        {"check": "stat -c %a @TMP@/conf.ini; cat @TMP@/conf.ini"},
        {"state": M, "args": {"name": "@TMP@/conf.ini", "source": "salt://conf.ini.j2", "template": "jinja",
                              "context": {"port": 8080}, "defaults": {"port": 1, "level": "info"}}},
        {"state": M, "args": {"name": "@TMP@/conf.ini", "source": "salt://conf.ini.j2", "template": "jinja",
                              "context": {"port": 9090, "level": "debug"}, "mode": 600}, "test": True},
        {"state": M, "args": {"name": "@TMP@/conf.ini", "source": "salt://conf.ini.j2", "template": "jinja",
                              "context": {"port": 9090, "level": "debug"}, "mode": 600}},
        {"check": "stat -c %a @TMP@/conf.ini; cat @TMP@/conf.ini"},
        {"state": M, "args": {"name": "@TMP@/p", "source": "salt://pillar.j2", "template": "jinja"}},
        {"check": "cat @TMP@/p"},
        {"state": M, "args": {"name": "@TMP@/q", "contents": "v={{ v }} id={{ grains['id'] }}", "template": "jinja",
                              "defaults": {"v": 1}}},
        {"check": "cat @TMP@/q"},
        {"state": M, "args": {"name": "@TMP@/r", "source": "salt://plain.txt", "template": "nosuch"}},
        {"state": M, "args": {"name": "@TMP@/r", "source": "salt://conf.ini.j2", "template": "jinja", "context": "notadict"}},
        {"state": M, "args": {"name": "@TMP@/r", "source": "salt://conf.ini.j2", "template": "jinja", "defaults": ["x"]}},
    ],
    "managed_pillar": [
        {"state": M, "args": {"name": "@TMP@/a", "contents_pillar": "motd"}},
        {"check": "cat @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/b", "contents_pillar": "parts:a"}},
        {"check": "cat @TMP@/b"},
        {"state": M, "args": {"name": "@TMP@/c", "contents_pillar": ["parts:a", "parts:b"]}},
        {"check": "cat @TMP@/c"},
        {"state": M, "args": {"name": "@TMP@/d", "contents_pillar": "nope"}},
        {"state": M, "args": {"name": "@TMP@/d", "contents_pillar": "num"}},
        {"check": "cat @TMP@/d"},
        {"state": M, "args": {"name": "@TMP@/e", "contents_pillar": "motd", "contents": "x"}},
        {"state": M, "args": {"name": "@TMP@/f", "contents_grains": "shell"}},
        {"check": "cat @TMP@/f"},
    ],
    "managed_paths": [
        {"state": M, "args": {"name": "@TMP@/sub/a", "contents": "x"}},
        {"state": M, "args": {"name": "@TMP@/sub/a", "contents": "x"}, "test": True},
        {"state": M, "args": {"name": "@TMP@/sub/deeper/a", "contents": "x", "makedirs": True}},
        {"check": "stat -c %a @TMP@/sub @TMP@/sub/deeper; cat @TMP@/sub/deeper/a"},
        {"state": M, "args": {"name": "@TMP@/m/n/o", "contents": "x", "makedirs": True, "mode": 640}},
        {"check": "stat -c %a @TMP@/m @TMP@/m/n @TMP@/m/n/o"},
        {"state": M, "args": {"name": "@TMP@/q/r", "contents": "x", "makedirs": True, "dir_mode": 700}},
        {"check": "stat -c %a @TMP@/q"},
        {"state": M, "args": {"name": "@TMP@", "contents": "x"}},
        {"state": M, "args": {"name": "relative/path", "contents": "x"}},
        {"state": M, "args": {"name": "", "contents": "x"}},
        {"sh": "echo target > @TMP@/target; ln -s @TMP@/target @TMP@/link"},
        {"state": M, "args": {"name": "@TMP@/link", "contents": "through link"}},
        {"check": "cat @TMP@/target; test -L @TMP@/link && echo still-link"},
        {"state": M, "args": {"name": "@TMP@/nocreate", "contents": "x", "create": False}},
        {"state": M, "args": {"name": "@TMP@/a2", "source": "salt://plain.txt", "makedirs": False}},
        {"state": M, "args": {"name": "@TMP@/nodir/a2", "source": "salt://plain.txt"}},
    ],
    "directory": [
        {"state": "file.directory", "args": {"name": "@TMP@/d"}, "test": True},
        {"state": "file.directory", "args": {"name": "@TMP@/d"}},
        {"check": "stat -c %a @TMP@/d"},
        {"state": "file.directory", "args": {"name": "@TMP@/d/"}},
        {"state": "file.directory", "args": {"name": "@TMP@/x/y/z"}},
        {"state": "file.directory", "args": {"name": "@TMP@/x/y/z", "makedirs": True, "mode": 750}},
        {"check": "stat -c %a @TMP@/x @TMP@/x/y @TMP@/x/y/z"},
        {"state": "file.directory", "args": {"name": "@TMP@/d", "mode": "0700"}, "test": True},
        {"state": "file.directory", "args": {"name": "@TMP@/d", "mode": "0700"}},
        {"check": "stat -c %a @TMP@/d"},
        {"state": "file.directory", "args": {"name": "@TMP@/d", "dir_mode": 755, "user": "nobody", "group": "nogroup"}},
        {"check": "stat -c %U:%G:%a @TMP@/d"},
        {"state": "file.directory", "args": {"name": "@TMP@/d", "user": "nosuchuser1"}},
        {"sh": "echo x > @TMP@/f"},
        {"state": "file.directory", "args": {"name": "@TMP@/f"}},
        {"state": "file.directory", "args": {"name": "@TMP@/f", "force": True}, "test": True},
        {"state": "file.directory", "args": {"name": "@TMP@/f", "force": True}},
        {"check": "test -d @TMP@/f && echo isdir"},
        {"state": "file.directory", "args": {"name": "rel/dir"}},
        {"sh": "mkdir -p @TMP@/c/keepdir && echo 1 > @TMP@/c/junk"},
        {"state": "file.directory", "args": {"name": "@TMP@/c", "clean": True}, "test": True},
        {"sh": "rmdir @TMP@/c/keepdir"},
        {"state": "file.directory", "args": {"name": "@TMP@/c", "clean": True}},
        {"check": "ls -A @TMP@/c | wc -l"},
        {"sh": "echo 1 > @TMP@/c/keep; echo 2 > @TMP@/c/drop"},
        {"state": "file.directory", "args": {"name": "@TMP@/c", "clean": True,
                                             "require": [{"file": "@TMP@/c/keep"}]}},
        {"check": "ls @TMP@/c"},
        {"state": "file.directory", "args": {"name": "@TMP@/c", "clean": True, "max_depth": 1}},
        {"sh": "ln -s @TMP@/d @TMP@/dl"},
        {"state": "file.directory", "args": {"name": "@TMP@/dl"}},
        {"state": "file.directory", "args": {"name": "@TMP@/dl", "allow_symlink": False}},
    ],
    "absent": [
        {"sh": "echo x > @TMP@/f; mkdir -p @TMP@/d/e; echo y > @TMP@/d/e/g; ln -s /nonexistent @TMP@/broken"},
        {"state": "file.absent", "args": {"name": "@TMP@/f"}, "test": True},
        {"state": "file.absent", "args": {"name": "@TMP@/f"}},
        {"state": "file.absent", "args": {"name": "@TMP@/f"}},
        {"state": "file.absent", "args": {"name": "@TMP@/d"}, "test": True},
        {"state": "file.absent", "args": {"name": "@TMP@/d"}},
        {"state": "file.absent", "args": {"name": "@TMP@/broken"}},
        {"check": "ls -A @TMP@ | wc -l"},
        {"state": "file.absent", "args": {"name": "/"}},
        {"state": "file.absent", "args": {"name": "rel"}},
        {"state": "file.exists", "args": {"name": "@TMP@"}},
        {"state": "file.exists", "args": {"name": "@TMP@/nope"}},
        {"state": "file.missing", "args": {"name": "@TMP@/nope"}},
        {"state": "file.missing", "args": {"name": "@TMP@"}},
    ],
    "symlink": [
        {"sh": "echo t > @TMP@/t1; echo t > @TMP@/t2"},
        {"state": "file.symlink", "args": {"name": "@TMP@/l", "target": "@TMP@/t1"}, "test": True},
        {"state": "file.symlink", "args": {"name": "@TMP@/l", "target": "@TMP@/t1"}},
        {"check": "readlink @TMP@/l"},
        {"state": "file.symlink", "args": {"name": "@TMP@/l", "target": "@TMP@/t1"}, "test": True},
        {"state": "file.symlink", "args": {"name": "@TMP@/l", "target": "@TMP@/t1"}},
        {"state": "file.symlink", "args": {"name": "@TMP@/l", "target": "@TMP@/t2"}, "test": True},
        {"state": "file.symlink", "args": {"name": "@TMP@/l", "target": "@TMP@/t2"}},
        {"check": "readlink @TMP@/l"},
        {"state": "file.symlink", "args": {"name": "@TMP@/t1", "target": "@TMP@/t2"}, "test": True},
        {"state": "file.symlink", "args": {"name": "@TMP@/t1", "target": "@TMP@/t2"}},
        {"state": "file.symlink", "args": {"name": "@TMP@/t1", "target": "@TMP@/t2", "force": True}, "test": True},
        {"state": "file.symlink", "args": {"name": "@TMP@/t1", "target": "@TMP@/t2", "force": True}},
        {"check": "readlink @TMP@/t1"},
        {"state": "file.symlink", "args": {"name": "@TMP@/n/m/l", "target": "../t2"}},
        {"state": "file.symlink", "args": {"name": "@TMP@/n/m/l", "target": "../t2"}, "test": True},
        {"state": "file.symlink", "args": {"name": "@TMP@/n/m/l", "target": "../t2", "makedirs": True}, "test": True},
        {"state": "file.symlink", "args": {"name": "@TMP@/n/m/l", "target": "../t2", "makedirs": True}},
        {"check": "readlink @TMP@/n/m/l; stat -c %a @TMP@/n"},
        {"state": "file.symlink", "args": {"name": "@TMP@/rel", "target": "relative-target"}},
        {"state": "file.symlink", "args": {"name": "@TMP@/own", "target": "@TMP@/t2", "user": "nobody", "group": "nogroup"}},
        {"check": "stat -c %U:%G @TMP@/own"},
        {"state": "file.symlink", "args": {"name": "@TMP@/own", "target": "@TMP@/t2"}},
        {"check": "stat -c %U:%G @TMP@/own"},
        {"state": "file.symlink", "args": {"name": "@TMP@/own", "target": "@TMP@/t2", "user": "nosuchuser1"}},
        {"state": "file.symlink", "args": {"name": "rel", "target": "x"}},
        {"sh": "mkdir @TMP@/dir"},
        {"state": "file.symlink", "args": {"name": "@TMP@/dir", "target": "@TMP@/t2"}},
        {"state": "file.symlink", "args": {"name": "@TMP@/dir", "target": "@TMP@/t2", "force": True}},
        {"check": "readlink @TMP@/dir"},
    ],
    "directory_recurse": [
        {"sh": "mkdir -p @TMP@/r/s && echo 1 > @TMP@/r/f1 && echo 2 > @TMP@/r/s/f2 && chmod 600 @TMP@/r/f1"},
        {"state": "file.directory", "args": {"name": "@TMP@/r", "user": "nobody", "group": "nogroup",
                                             "dir_mode": 750, "file_mode": 640, "recurse": ["user", "group", "mode"]}},
        {"check": "stat -c %n:%U:%G:%a @TMP@/r @TMP@/r/f1 @TMP@/r/s @TMP@/r/s/f2 | sed 's#.*/cases/[^/]*##'"},
        {"state": "file.directory", "args": {"name": "@TMP@/r", "user": "nobody", "group": "nogroup",
                                             "dir_mode": 750, "file_mode": 640, "recurse": ["user", "group", "mode"]}},
        {"state": "file.directory", "args": {"name": "@TMP@/r", "dir_mode": 755, "recurse": ["mode", "ignore_files"]}},
        {"check": "stat -c %n:%a @TMP@/r @TMP@/r/f1 @TMP@/r/s @TMP@/r/s/f2 | sed 's#.*/cases/[^/]*##'"},
        {"state": "file.directory", "args": {"name": "@TMP@/r", "user": "root", "recurse": ["user", "silent"]}},
        {"state": "file.directory", "args": {"name": "@TMP@/r", "recurse": "user"}},
        {"state": "file.directory", "args": {"name": "@TMP@/r", "recurse": ["bogus"]}},
        {"state": "file.directory", "args": {"name": "@TMP@/r", "recurse": ["ignore_files", "ignore_dirs"]}},
        {"state": "file.directory", "args": {"name": "@TMP@/r", "recurse": ["user"]}},
        {"state": "file.directory", "args": {"name": "@TMP@/r", "file_mode": 600, "recurse": ["mode"]}, "test": True},
        {"sh": "mkdir -p @TMP@/e && echo x > @TMP@/e/keep.log && echo y > @TMP@/e/drop.txt"},
        {"state": "file.directory", "args": {"name": "@TMP@/e", "clean": True, "exclude_pat": "*.log"}},
        {"check": "ls @TMP@/e"},
        {"sh": "echo x > @TMP@/bk"},
        {"state": "file.directory", "args": {"name": "@TMP@/bk", "backupname": "@TMP@/bk.old"}, "test": True},
        {"state": "file.directory", "args": {"name": "@TMP@/bk", "backupname": "@TMP@/bk.old"}},
        {"check": "cat @TMP@/bk.old; test -d @TMP@/bk && echo dir"},
    ],
    "more_managed": [
        {"sh": "printf 'x\n' > @TMP@/src.sh; chmod 751 @TMP@/src.sh"},
        {"state": M, "args": {"name": "@TMP@/k", "source": "@TMP@/src.sh", "mode": "keep"}},
        {"check": "stat -c %a @TMP@/k"},
        {"state": M, "args": {"name": "@TMP@/k", "contents": "y", "mode": "keep"}},
        {"state": M, "args": {"name": "@TMP@/l", "source": [{"salt://nope.txt": "md5=0123"}, {"salt://plain.txt": ""}]}},
        {"check": "cat @TMP@/l"},
        {"state": M, "args": {"name": "@TMP@/m", "source": "@TMP@/src.sh",
                              "source_hash": "cf05de2f6fdc5ba762c3c9c712b251a1a020ae9ebbb502f25652ec73868be9d2"}},
        {"state": M, "args": {"name": "@TMP@/m", "source": "@TMP@/src.sh", "source_hash": "sha256=abc"}},
        {"state": M, "args": {"name": "@TMP@/m", "source": "@TMP@/src.sh", "source_hash": "foo=abc"}},
        {"state": M, "args": {"name": "@TMP@/m", "source": "@TMP@/src.sh", "source_hash": "zzzz"}},
        {"state": M, "args": {"name": "@TMP@/m", "source": "@TMP@/src.sh", "source_hash": "md5=401b30e3b8b5d629635a5c613cdb7919"}},
        {"state": M, "args": {"name": "@TMP@/m", "source": "@TMP@/src.sh", "source_hash": "md5=401b30e3b8b5d629635a5c613cdb7919"}},
        {"state": M, "args": {"name": "@TMP@/n", "source": "@TMP@/src.sh", "source_hash": "md5=00000000000000000000000000000000", "skip_verify": True}},
        {"state": M, "args": {"name": "@TMP@/o", "contents": "x", "file_mode": 644}},
        {"state": M, "args": {"name": "@TMP@/p", "contents": ["a", ["b", "c"], {"k": "v"}, None]}},
        {"check": "cat @TMP@/p"},
        {"state": M, "args": {"name": "@TMP@/q", "contents": []}},
        {"sh": "ln -s @TMP@/p @TMP@/plink"},
        {"state": M, "args": {"name": "@TMP@/plink", "contents": "replaced", "follow_symlinks": False}},
        {"check": "test -L @TMP@/plink || echo not-a-link; cat @TMP@/plink; cat @TMP@/p"},
        {"state": M, "args": {"name": "@TMP@/r", "contents": "a", "contents_newline": False}, "test": True},
        {"state": M, "args": {"name": "@TMP@/s", "source": "salt://plain.txt", "makedirs": True, "mode": 600,
                              "name": "@TMP@/deep/er/s"}},
        {"check": "stat -c %a @TMP@/deep @TMP@/deep/er @TMP@/deep/er/s"},
    ],
    "more_replace": [
        {"sh": "printf 'k=v\n' > @TMP@/a"},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "^(\\w+)=(\\w+)$", "repl": "\\2=\\1",
                                           "append_if_not_found": True, "not_found_content": "added"}},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "nomatch", "repl": "x",
                                           "append_if_not_found": True, "not_found_content": "added"}},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "nomatch", "repl": "x",
                                           "append_if_not_found": True, "not_found_content": "added"}},
        {"check": "cat @TMP@/a"},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "V", "repl": "w", "flags": 2}},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "x", "repl": "y", "flags": ["BOGUS"]}},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "a", "repl": "b", "append_if_not_found": True, "prepend_if_not_found": True}},
        {"sh": "printf '\\000\\001' > @TMP@/bin"},
        {"state": "file.replace", "args": {"name": "@TMP@/bin", "pattern": "a", "repl": "b"}},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "k", "repl": "K", "backup": ".orig"}},
        {"check": "ls @TMP@; cat @TMP@/a.orig"},
    ],
    "more_symlink": [
        {"sh": "echo x > @TMP@/f; echo t > @TMP@/t"},
        {"state": "file.symlink", "args": {"name": "@TMP@/f", "target": "@TMP@/t", "backupname": "f.bak"}},
        {"check": "readlink @TMP@/f; cat @TMP@/f.bak"},
        {"state": "file.symlink", "args": {"name": "@TMP@/b", "target": "@TMP@/missing-target"}},
        {"state": "file.symlink", "args": {"name": "@TMP@/b", "target": "@TMP@/missing-target"}},
        {"state": "file.symlink", "args": {"name": "@TMP@/c", "target": "@TMP@/t", "user": "nobody"}},
        {"check": "stat -c %U:%G @TMP@/c"},
        {"state": "file.symlink", "args": {"name": "@TMP@/c", "target": "@TMP@/t", "user": "nobody"}, "test": True},
        {"state": "file.symlink", "args": {"name": "@TMP@/c", "target": "@TMP@/t"}, "test": True},
    ],
    "append": [
        {"state": "file.append", "args": {"name": "@TMP@/a", "text": "first"}, "test": True},
        {"state": "file.append", "args": {"name": "@TMP@/a", "text": "first"}},
        {"check": "cat @TMP@/a"},
        {"state": "file.append", "args": {"name": "@TMP@/a", "text": "first"}},
        {"sh": "printf 'one\\ntwo' > @TMP@/b"},
        {"state": "file.append", "args": {"name": "@TMP@/b", "text": ["three", "two", "four\nfive"]}, "test": True},
        {"state": "file.append", "args": {"name": "@TMP@/b", "text": ["three", "two", "four\nfive"]}},
        {"check": "cat @TMP@/b"},
        {"state": "file.append", "args": {"name": "@TMP@/b", "text": "  three  "}},
        {"state": "file.append", "args": {"name": "@TMP@/b", "text": "a  b", "ignore_whitespace": False}},
        {"state": "file.append", "args": {"name": "@TMP@/b", "text": "a b"}},
        {"check": "cat @TMP@/b"},
        {"state": "file.append", "args": {"name": "@TMP@/b", "text": "x.*y"}},
        {"state": "file.append", "args": {"name": "@TMP@/b", "text": 42}},
        {"check": "cat @TMP@/b"},
        {"state": "file.append", "args": {"name": "@TMP@/n/c", "text": "x"}},
        {"state": "file.append", "args": {"name": "@TMP@/n/c", "text": "x", "makedirs": True}},
        {"check": "cat @TMP@/n/c"},
        {"state": "file.append", "args": {"name": "@TMP@/e"}},
        {"state": "file.append", "args": {"name": "", "text": "x"}},
    ],
    "touch": [
        {"state": "file.touch", "args": {"name": "@TMP@/a"}, "test": True},
        {"state": "file.touch", "args": {"name": "@TMP@/a"}},
        {"check": "stat -c %a:%s @TMP@/a"},
        {"state": "file.touch", "args": {"name": "@TMP@/a"}, "test": True},
        {"state": "file.touch", "args": {"name": "@TMP@/a"}},
        {"state": "file.touch", "args": {"name": "@TMP@/a", "mtime": 1000000000, "atime": 1000000000}},
        {"check": "stat -c %X:%Y @TMP@/a"},
        {"state": "file.touch", "args": {"name": "@TMP@/a", "mtime": 1000000000, "atime": 1000000000}, "test": True},
        {"state": "file.touch", "args": {"name": "@TMP@/a", "mtime": 1000000001}, "test": True},
        {"state": "file.touch", "args": {"name": "@TMP@"}},
        {"state": "file.touch", "args": {"name": "@TMP@/n/b"}},
        {"state": "file.touch", "args": {"name": "@TMP@/n/b", "makedirs": True}},
        {"check": "test -f @TMP@/n/b && echo ok"},
        {"state": "file.touch", "args": {"name": "rel"}},
    ],
    "replace": [
        {"sh": "printf 'alpha=1\\nbeta=2\\nalpha=3\\n' > @TMP@/a"},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "^alpha=(\\d)", "repl": "ALPHA=\\1"}, "test": True},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "^alpha=(\\d)", "repl": "ALPHA=\\1", "count": 1}},
        {"check": "cat @TMP@/a; cat @TMP@/a.bak"},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "^alpha=(?P<v>\\d)", "repl": "ALPHA=\\g<v>", "backup": False}},
        {"check": "cat @TMP@/a; ls @TMP@"},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "^alpha=(\\d)", "repl": "ALPHA=\\1"}},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "beta", "repl": "beta"}},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "BETA", "repl": "gamma", "flags": ["IGNORECASE", "MULTILINE"]}},
        {"check": "cat @TMP@/a"},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "^delta=.*$", "repl": "delta=4", "append_if_not_found": True}},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "^delta=.*$", "repl": "delta=4", "append_if_not_found": True}},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "^first=.*$", "repl": "first=0", "prepend_if_not_found": True}},
        {"check": "cat @TMP@/a"},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "x", "repl": "y\\tz\\n"}},
        {"state": "file.replace", "args": {"name": "@TMP@/a", "pattern": "=", "repl": ": "}},
        {"check": "cat @TMP@/a"},
        {"state": "file.replace", "args": {"name": "@TMP@/nope", "pattern": "a", "repl": "b"}},
        {"state": "file.replace", "args": {"name": "@TMP@/nope", "pattern": "a", "repl": "b", "ignore_if_missing": True}},
        {"state": "file.replace", "args": {"name": "rel", "pattern": "a", "repl": "b"}},
        {"sh": "printf 'n=1\\n' > @TMP@/b"},
        {"state": "file.replace", "args": {"name": "@TMP@/b", "pattern": "n=1", "repl": 5}},
        {"check": "cat @TMP@/b"},
        {"state": "file.replace", "args": {"name": "@TMP@/b", "pattern": "5", "repl": "six", "show_changes": False}},
    ],
}

# Issue 31: the rest of the file state module. A step's "unordered" flag
# marks returns whose comment blocks ("#### path ####") or lists Salt
# builds from sets (in hash order): the replay compares those sorted.
RC = "file.recurse"
SER = "file.serialize"
DATA = {"b": 1, "a": [1, 2.5, "x", None, True], "c": {"z": "\u00e9t\u00e9", "y": {}, "e": []}}
FILE_CASES.update({
    "recurse": [
        {"state": RC, "args": {"name": "@TMP@/r", "source": "salt://rtree"}, "test": True, "unordered": True},
        {"state": RC, "args": {"name": "@TMP@/r", "source": "salt://rtree"}, "unordered": True},
        {"check": "cd @TMP@/r && find . | sort && stat -c %n:%a . sub sub/deep a.txt sub/b.conf"},
        {"state": RC, "args": {"name": "@TMP@/r", "source": "salt://rtree"}},
        {"state": RC, "args": {"name": "@TMP@/r", "source": "salt://rtree/"}, "test": True},
        {"sh": "echo changed > @TMP@/r/a.txt; echo extra > @TMP@/r/extra.txt; mkdir -p @TMP@/r/xd/y"},
        {"state": RC, "args": {"name": "@TMP@/r", "source": "salt://rtree", "clean": True}, "test": True, "unordered": True},
        {"state": RC, "args": {"name": "@TMP@/r", "source": "salt://rtree", "clean": True}, "unordered": True},
        {"check": "cd @TMP@/r && find . | sort"},
        {"state": RC, "args": {"name": "@TMP@/inc", "source": "salt://rtree", "include_pat": "*.txt"}, "unordered": True},
        {"check": "cd @TMP@/inc && find . | sort"},
        {"state": RC, "args": {"name": "@TMP@/exc", "source": "salt://rtree", "exclude_pat": "E@(\\.log|conf)$"}, "unordered": True},
        {"check": "cd @TMP@/exc && find . | sort"},
        {"state": RC, "args": {"name": "@TMP@/both", "source": "salt://rtree", "include_pat": "E@^sub", "exclude_pat": "*deep*"}, "unordered": True},
        {"check": "cd @TMP@/both && find . | sort"},
        {"state": RC, "args": {"name": "@TMP@/md", "source": "salt://rtree", "maxdepth": 0}, "unordered": True},
        {"check": "cd @TMP@/md && find . | sort"},
        {"state": RC, "args": {"name": "@TMP@/emp", "source": "salt://rtree", "include_empty": True, "maxdepth": 1}, "unordered": True},
        {"check": "cd @TMP@/emp && find . | sort"},
        {"state": RC, "args": {"name": "@TMP@/perm", "source": "salt://rtree", "user": "nobody", "group": "nogroup",
                               "dir_mode": 750, "file_mode": 640, "include_pat": "E@^(a|sub/b)"}, "unordered": True},
        {"check": "cd @TMP@/perm && stat -c %n:%U:%G:%a . a.txt sub sub/b.conf"},
        {"state": RC, "args": {"name": "@TMP@/perm", "source": "salt://rtree", "file_mode": 600, "include_pat": "E@^(a|sub/b)"}, "test": True, "unordered": True},
        {"state": RC, "args": {"name": "@TMP@/tpl", "source": "salt://rtpl", "template": "jinja",
                               "defaults": {"x": 1}, "context": {"x": 2}}},
        {"check": "cat @TMP@/tpl/x.conf"},
        {"state": RC, "args": {"name": "@TMP@/n", "source": "salt://nope"}},
        {"state": RC, "args": {"name": "@TMP@/n", "source": "salt://rtree/a.txt"}},
        {"state": RC, "args": {"name": "@TMP@/n", "source": "/etc/ssh"}},
        {"state": RC, "args": {"name": "rel", "source": "salt://rtree"}},
        {"state": RC, "args": {"name": "@TMP@/n", "source": "salt://rtree", "mode": 644}},
        {"sh": "echo x > @TMP@/file"},
        {"state": RC, "args": {"name": "@TMP@/file", "source": "salt://rtree"}},
        {"state": RC, "args": {"name": "@TMP@/lst", "source": ["salt://nope", "salt://rtreex"]}},
        {"check": "cd @TMP@/lst && find . | sort"},
        {"state": RC, "args": {"name": "@TMP@/lst", "source": ["salt://nope", "salt://nope2"]}},
        {"state": RC, "args": {"name": "@TMP@/dv", "source": "salt://rtree?saltenv=dev"}},
        {"state": RC, "args": {"name": "@TMP@/kp", "source": "salt://rtreex", "file_mode": "keep"}},
        {"state": RC, "args": {"name": "@TMP@/nr", "source": "salt://rtreex", "user": "nosuchuser1"}},
        {"sh": "mkdir -p @TMP@/cl/other.txt && echo 1 > @TMP@/cl/other.txt/f"},
        {"state": RC, "args": {"name": "@TMP@/cl", "source": "salt://rtreex", "clean": True}, "test": True},
        {"state": RC, "args": {"name": "@TMP@/cl", "source": "salt://rtreex", "clean": True}},
        {"check": "cat @TMP@/cl/other.txt"},
    ],
    "serialize": [
        {"state": SER, "args": {"name": "@TMP@/a.json", "dataset": DATA, "serializer": "json"}, "test": True},
        {"state": SER, "args": {"name": "@TMP@/a.json", "dataset": DATA, "serializer": "json"}},
        {"check": "stat -c %a @TMP@/a.json; cat @TMP@/a.json"},
        {"state": SER, "args": {"name": "@TMP@/a.json", "dataset": DATA, "serializer": "json"}},
        {"state": SER, "args": {"name": "@TMP@/a.json", "dataset": {"b": 2}, "formatter": "JSON"}, "test": True},
        {"state": SER, "args": {"name": "@TMP@/a.yaml", "dataset": DATA}},
        {"check": "cat @TMP@/a.yaml"},
        {"state": SER, "args": {"name": "@TMP@/b.yaml", "dataset": {"k": "multi\nline\n", "l": [[1, 2], {"x": None}], "n": "yes", "q": "a: b"},
                                "formatter": "yaml"}},
        {"check": "cat @TMP@/b.yaml"},
        {"state": SER, "args": {"name": "@TMP@/u.json", "dataset": DATA, "serializer": "json", "encoding": "utf-8"}},
        {"check": "cat @TMP@/u.json"},
        {"state": SER, "args": {"name": "@TMP@/u.yaml", "dataset": DATA, "encoding": "utf-8"}},
        {"check": "cat @TMP@/u.yaml"},
        {"state": SER, "args": {"name": "@TMP@/x", "dataset": DATA, "serializer": "json", "formatter": "json"}},
        {"state": SER, "args": {"name": "@TMP@/x", "dataset": DATA, "dataset_pillar": "parts"}},
        {"state": SER, "args": {"name": "@TMP@/x"}},
        {"state": SER, "args": {"name": "@TMP@/x", "dataset": DATA, "serializer": "nosuch"}},
        {"state": SER, "args": {"name": "@TMP@/p.json", "dataset_pillar": "parts", "serializer": "json"}},
        {"check": "cat @TMP@/p.json"},
        {"state": SER, "args": {"name": "@TMP@/x", "dataset_pillar": "nope:none", "serializer": "json"}},
        {"sh": "printf '{\"a\": 1, \"keep\": {\"x\": 1}, \"l\": [1]}' > @TMP@/m.json"},
        {"state": SER, "args": {"name": "@TMP@/m.json", "dataset": {"b": 2, "keep": {"y": 2}, "l": [2]}, "serializer": "json",
                                "merge_if_exists": True}, "test": True},
        {"state": SER, "args": {"name": "@TMP@/m.json", "dataset": {"b": 2, "keep": {"y": 2}, "l": [2]}, "serializer": "json",
                                "merge_if_exists": True}},
        {"check": "cat @TMP@/m.json"},
        {"state": SER, "args": {"name": "@TMP@/m.json", "dataset": {"b": 2}, "serializer": "json", "merge_if_exists": True}},
        {"sh": "printf 'not json' > @TMP@/bad.json"},
        {"state": SER, "args": {"name": "@TMP@/bad.json", "dataset": {"b": 2}, "serializer": "json", "merge_if_exists": True}},
        {"sh": "printf 'a: 1\\nkeep:\\n  x: 1\\n' > @TMP@/m.yaml"},
        {"state": SER, "args": {"name": "@TMP@/m.yaml", "dataset": {"keep": {"y": 2}}, "merge_if_exists": True}},
        {"check": "cat @TMP@/m.yaml"},
        {"state": SER, "args": {"name": "@TMP@/w.json", "dataset": {"a": 1}, "serializer": "json",
                                "deserializer_opts": [{"x": 1}]}},
        {"state": SER, "args": {"name": "@TMP@/o.json", "dataset": {"b": [1], "a": 1}, "serializer": "json",
                                "serializer_opts": [{"indent": 4}, {"sort_keys": False}]}},
        {"check": "cat @TMP@/o.json"},
        {"state": SER, "args": {"name": "@TMP@/o.yaml", "dataset": {"b": [1], "a": {"c": 1}}, "serializer_opts": [{"default_flow_style": True}]}},
        {"check": "cat @TMP@/o.yaml"},
        {"state": SER, "args": {"name": "@TMP@/perm.json", "dataset": {"a": 1}, "serializer": "json", "mode": 600,
                                "user": "nobody", "group": "nogroup"}},
        {"check": "stat -c %U:%G:%a @TMP@/perm.json"},
        {"state": SER, "args": {"name": "@TMP@/perm.json", "dataset": {"a": 2}, "serializer": "json", "show_changes": False}, "test": True},
        {"state": SER, "args": {"name": "@TMP@/perm.json", "dataset": {"a": 2}, "serializer": "json", "show_changes": False}},
        {"state": SER, "args": {"name": "@TMP@/nc.json", "dataset": {"a": 1}, "serializer": "json", "create": False}},
        {"state": SER, "args": {"name": "@TMP@/d1/d2/mk.json", "dataset": {"a": 1}, "serializer": "json"}},
        {"state": SER, "args": {"name": "@TMP@/d1/d2/mk.json", "dataset": {"a": 1}, "serializer": "json", "makedirs": True}},
        {"check": "cat @TMP@/d1/d2/mk.json"},
        {"state": SER, "args": {"name": "@TMP@/t.toml", "serializer": "toml", "dataset": {
            "title": "x", "b": True, "f": 1.5, "n": -3, "arr": [1, 2], "sarr": ["a", "b"], "e": [], "s": "q\"uote\\\n",
            "owner": {"name": "n", "deep": {"k": 1}, "z": 0}, "tabs": [{"a": 1}, {"a": 2}]}}},
        {"check": "cat @TMP@/t.toml"},
        {"state": SER, "args": {"name": "@TMP@/t.toml", "serializer": "toml", "dataset": {"owner": {"extra": 1}}, "merge_if_exists": True}},
        {"check": "cat @TMP@/t.toml"},
        {"state": SER, "args": {"name": "@TMP@/p.plist", "serializer": "plist", "dataset": {
            "b": True, "f": 1.5, "n": 3, "s": "a<b>&", "l": [1, "x", {"k": False}], "e": {}, "el": []}}},
        {"check": "cat @TMP@/p.plist"},
        {"state": SER, "args": {"name": "@TMP@/p.plist", "serializer": "plist", "dataset": {"n": 4}, "merge_if_exists": True}},
        {"check": "cat @TMP@/p.plist"},
        {"state": SER, "args": {"name": "@TMP@/none.plist", "serializer": "plist", "dataset": {"n": None}}},
        {"state": SER, "args": {"name": "@TMP@/c.ini", "serializer": "configparser", "dataset": {
            "main": {"Key": "v", "n": 1, "multi": "a\nb"}, "DEFAULT": {"d": "x"}, "other": {}}}},
        {"check": "cat @TMP@/c.ini"},
        {"state": SER, "args": {"name": "@TMP@/c.ini", "serializer": "configparser", "dataset": {"main": {"new": "y"}},
                                "merge_if_exists": True}},
        {"check": "cat @TMP@/c.ini"},
        {"state": SER, "args": {"name": "@TMP@/c2.ini", "serializer": "configparser", "dataset": ["x"]}},
        {"state": SER, "args": {"name": "@TMP@/m.mp", "serializer": "msgpack", "dataset": {
            "a": 1, "big": 70000, "neg": -40, "f": 0.5, "s": "x" * 40, "l": [None, True], "m": {}}}},
        {"check": "od -An -tx1 @TMP@/m.mp"},
        {"state": SER, "args": {"name": "@TMP@/m.mp", "serializer": "msgpack", "dataset": {
            "a": 1, "big": 70000, "neg": -40, "f": 0.5, "s": "x" * 40, "l": [None, True], "m": {}}}},
    ],
    "copy": [
        {"sh": "echo src > @TMP@/src; chmod 640 @TMP@/src; mkdir -p @TMP@/srcdir/in; echo x > @TMP@/srcdir/in/f; mkdir @TMP@/into"},
        {"state": "file.copy", "args": {"name": "@TMP@/dst", "source": "@TMP@/src"}, "test": True},
        {"state": "file.copy", "args": {"name": "@TMP@/dst", "source": "@TMP@/src"}},
        {"check": "stat -c %U:%G:%a @TMP@/dst; cat @TMP@/dst"},
        {"state": "file.copy", "args": {"name": "@TMP@/dst", "source": "@TMP@/src"}},
        {"state": "file.copy", "args": {"name": "@TMP@/dst", "source": "@TMP@/src"}, "test": True},
        {"state": "file.copy", "args": {"name": "@TMP@/dst", "source": "@TMP@/src", "force": True}, "test": True},
        {"state": "file.copy", "args": {"name": "@TMP@/dst", "source": "@TMP@/src", "force": True}},
        {"sh": "echo other > @TMP@/src"},
        {"state": "file.copy", "args": {"name": "@TMP@/dst", "source": "@TMP@/src", "force": True}},
        {"check": "cat @TMP@/dst"},
        {"state": "file.copy", "args": {"name": "@TMP@/no/dir/dst", "source": "@TMP@/src"}},
        {"state": "file.copy", "args": {"name": "@TMP@/no/dir/dst", "source": "@TMP@/src", "makedirs": True, "mode": 600}},
        {"check": "stat -c %n:%a @TMP@/no @TMP@/no/dir @TMP@/no/dir/dst | sed 's#.*/cases/[^/]*##'"},
        {"state": "file.copy", "args": {"name": "@TMP@/own", "source": "@TMP@/src", "user": "nobody", "group": "nogroup", "mode": "0604"}},
        {"check": "stat -c %U:%G:%a @TMP@/own"},
        {"sh": "chown nobody:nogroup @TMP@/src; chmod 604 @TMP@/src"},
        {"state": "file.copy", "args": {"name": "@TMP@/pres", "source": "@TMP@/src", "preserve": True}},
        {"check": "stat -c %U:%G:%a @TMP@/pres"},
        {"state": "file.copy", "args": {"name": "@TMP@/x", "source": "@TMP@/missing"}},
        {"state": "file.copy", "args": {"name": "rel", "source": "@TMP@/src"}},
        {"state": "file.copy", "args": {"name": "@TMP@/x", "source": "@TMP@/src", "user": "nosuchuser1"}},
        {"state": "file.copy", "args": {"name": "@TMP@/into", "source": "@TMP@/src", "subdir": True}},
        {"check": "ls @TMP@/into"},
        {"state": "file.copy", "args": {"name": "@TMP@/into", "source": "@TMP@/src", "subdir": True}},
        {"state": "file.copy", "args": {"name": "@TMP@/dircopy", "source": "@TMP@/srcdir"}},
        {"check": "cd @TMP@/dircopy && find . | sort"},
    ],
    "rename": [
        {"sh": "echo a > @TMP@/a; echo c > @TMP@/c; echo d > @TMP@/d"},
        {"state": "file.rename", "args": {"name": "@TMP@/b", "source": "@TMP@/a"}, "test": True},
        {"state": "file.rename", "args": {"name": "@TMP@/b", "source": "@TMP@/a"}},
        {"check": "ls @TMP@; cat @TMP@/b"},
        {"state": "file.rename", "args": {"name": "@TMP@/b", "source": "@TMP@/a"}},
        {"state": "file.rename", "args": {"name": "@TMP@/d", "source": "@TMP@/c"}},
        {"state": "file.rename", "args": {"name": "@TMP@/d", "source": "@TMP@/c", "force": True}, "test": True},
        {"state": "file.rename", "args": {"name": "@TMP@/d", "source": "@TMP@/c", "force": True}},
        {"check": "ls @TMP@; cat @TMP@/d"},
        {"state": "file.rename", "args": {"name": "@TMP@/x/y", "source": "@TMP@/d"}},
        {"state": "file.rename", "args": {"name": "@TMP@/x/y", "source": "@TMP@/d", "makedirs": True}},
        {"check": "cat @TMP@/x/y; stat -c %a @TMP@/x"},
        {"sh": "ln -s @TMP@/b @TMP@/lnk"},
        {"state": "file.rename", "args": {"name": "@TMP@/lnk2", "source": "@TMP@/lnk"}},
        {"check": "readlink @TMP@/lnk2; ls @TMP@"},
        {"state": "file.rename", "args": {"name": "rel", "source": "@TMP@/b"}},
        {"state": "file.rename", "args": {"name": "@TMP@/movedir", "source": "@TMP@/x"}},
        {"check": "ls @TMP@/movedir"},
    ],
    "hardlink": [
        {"sh": "echo t > @TMP@/t; echo t2 > @TMP@/t2; echo o > @TMP@/o; mkdir @TMP@/dir"},
        {"state": "file.hardlink", "args": {"name": "@TMP@/h", "target": "@TMP@/t"}, "test": True},
        {"state": "file.hardlink", "args": {"name": "@TMP@/h", "target": "@TMP@/t"}},
        {"check": "stat -c %h @TMP@/h; test @TMP@/h -ef @TMP@/t && echo same"},
        {"state": "file.hardlink", "args": {"name": "@TMP@/h", "target": "@TMP@/t"}},
        {"state": "file.hardlink", "args": {"name": "@TMP@/h", "target": "@TMP@/t"}, "test": True},
        {"state": "file.hardlink", "args": {"name": "@TMP@/h", "target": "@TMP@/t2"}, "test": True},
        {"state": "file.hardlink", "args": {"name": "@TMP@/h", "target": "@TMP@/t2"}},
        {"check": "test @TMP@/h -ef @TMP@/t2 && echo same; stat -c %h @TMP@/t"},
        {"state": "file.hardlink", "args": {"name": "@TMP@/o", "target": "@TMP@/t"}, "test": True},
        {"state": "file.hardlink", "args": {"name": "@TMP@/o", "target": "@TMP@/t"}},
        {"state": "file.hardlink", "args": {"name": "@TMP@/o", "target": "@TMP@/t", "force": True}, "test": True},
        {"state": "file.hardlink", "args": {"name": "@TMP@/o", "target": "@TMP@/t", "force": True}},
        {"check": "test @TMP@/o -ef @TMP@/t && echo same"},
        {"state": "file.hardlink", "args": {"name": "@TMP@/x", "target": "@TMP@/missing"}, "test": True},
        {"state": "file.hardlink", "args": {"name": "@TMP@/x", "target": "@TMP@/missing"}},
        {"state": "file.hardlink", "args": {"name": "@TMP@/x", "target": "@TMP@/dir"}},
        {"state": "file.hardlink", "args": {"name": "@TMP@/dir", "target": "@TMP@/t"}},
        {"state": "file.hardlink", "args": {"name": "@TMP@/dir", "target": "@TMP@/t"}, "test": True},
        {"state": "file.hardlink", "args": {"name": "@TMP@/n/m/h", "target": "@TMP@/t"}},
        {"state": "file.hardlink", "args": {"name": "@TMP@/n/m/h", "target": "@TMP@/t", "makedirs": True}},
        {"check": "test @TMP@/n/m/h -ef @TMP@/t && echo same; stat -c %a @TMP@/n"},
        {"state": "file.hardlink", "args": {"name": "rel", "target": "also-rel"}},
        {"state": "file.hardlink", "args": {"name": "@TMP@/y", "target": "@TMP@/t", "user": "nosuchuser1"}},
    ],
    "tidied": [
        {"sh": "mkdir -p @TMP@/d/sub @TMP@/d/keep; printf 12345 > @TMP@/d/big.log; echo x > @TMP@/d/small.txt; "
               "echo y > @TMP@/d/sub/old.txt; touch -d '10 days ago' @TMP@/d/sub/old.txt @TMP@/d/keep; "
               "ln -s @TMP@/d/small.txt @TMP@/d/lnk; touch -h -d '10 days ago' @TMP@/d/lnk"},
        {"state": "file.tidied", "args": {"name": "@TMP@/d", "age": 5, "age_size_only": "age"}, "test": True, "unordered": True},
        {"state": "file.tidied", "args": {"name": "@TMP@/d", "age": 5, "age_size_only": "age", "rmlinks": False}, "unordered": True},
        {"check": "cd @TMP@/d && find . | sort"},
        {"state": "file.tidied", "args": {"name": "@TMP@/d", "size": "5B", "age_size_logical_operator": "and"}},
        {"check": "cd @TMP@/d && find . | sort"},
        {"state": "file.tidied", "args": {"name": "@TMP@/d", "matches": ["^k"], "rmdirs": True, "age": 5, "age_size_only": "AGE"}},
        {"state": "file.tidied", "args": {"name": "@TMP@/d", "matches": ["^nomatch"]}},
        {"sh": "echo a > @TMP@/d/a.tmp; echo b > @TMP@/d/b.tmp; mkdir -p @TMP@/d/s2; echo c > @TMP@/d/s2/c.tmp"},
        {"state": "file.tidied", "args": {"name": "@TMP@/d", "matches": ["@TMP@/d/s2/.*"], "full_path_match": True}},
        {"state": "file.tidied", "args": {"name": "@TMP@/d", "matches": [".*\\.tmp"], "exclude": ["b"], "time_comparison": "mtime"}},
        {"check": "cd @TMP@/d && find . | sort"},
        {"state": "file.tidied", "args": {"name": "@TMP@/d", "matches": [".*"], "size": "1KB", "age_size_only": "size"}},
        {"state": "file.tidied", "args": {"name": "@TMP@/nope"}},
        {"state": "file.tidied", "args": {"name": "rel"}},
        {"state": "file.tidied", "args": {"name": "@TMP@/d/b.tmp"}},
    ],
    "cached": [
        {"state": "file.cached", "args": {"name": "salt://cache_me.txt"}, "test": True},
        {"state": "file.cached", "args": {"name": "salt://cache_me.txt"}},
        {"check": "cat @WORK@/cache/files/base/cache_me.txt"},
        {"state": "file.cached", "args": {"name": "salt://cache_me.txt"}},
        {"state": "file.cached", "args": {"name": "salt://cache_me.txt"}, "test": True},
        {"state": "file.cached", "args": {"name": "salt://cache_me.txt", "source_hash": "sha256=0000000000000000000000000000000000000000000000000000000000000000"}, "test": True},
        {"state": "file.cached", "args": {"name": "salt://cache_me.txt", "source_hash": "sha256=0000000000000000000000000000000000000000000000000000000000000000"}},
        {"state": "file.cached", "args": {"name": "salt://cache_me.txt", "source_hash": "md5=624b31450353c587adedc8fb106cfff5"}},
        {"state": "file.cached", "args": {"name": "salt://nope.txt"}},
        {"state": "file.cached", "args": {"name": "salt://nope.txt"}, "test": True},
        {"state": "file.cached", "args": {"name": "salt://plain.txt", "saltenv": "dev"}},
        {"check": "cat @WORK@/cache/files/dev/plain.txt"},
        {"sh": "echo loc > @TMP@/loc"},
        {"state": "file.cached", "args": {"name": "@TMP@/loc"}},
        {"state": "file.cached", "args": {"name": "@TMP@/missing"}},
        {"state": "file.cached", "args": {"name": "@TMP@/loc", "source_hash": "sha256=0000000000000000000000000000000000000000000000000000000000000000"}},
        {"state": "file.cached", "args": {"name": "http://example.invalid/x"}},
    ],
    "comment": [
        {"sh": "printf 'a=1\\n#b=2\\n  c=3\\nd=4\\n# a=9\\n' > @TMP@/f"},
        {"state": "file.comment", "args": {"name": "@TMP@/f", "regex": "^a="}, "test": True},
        {"state": "file.comment", "args": {"name": "@TMP@/f", "regex": "^a="}},
        {"check": "cat @TMP@/f; ls @TMP@; cat @TMP@/f.bak"},
        {"state": "file.comment", "args": {"name": "@TMP@/f", "regex": "^a="}},
        {"state": "file.comment", "args": {"name": "@TMP@/f", "regex": "^b="}},
        {"state": "file.comment", "args": {"name": "@TMP@/f", "regex": "^zz$"}},
        {"state": "file.comment", "args": {"name": "@TMP@/f", "regex": "^zz", "ignore_missing": True}},
        {"state": "file.comment", "args": {"name": "@TMP@/f", "regex": "c=3$"}},
        {"check": "cat @TMP@/f"},
        {"state": "file.comment", "args": {"name": "@TMP@/f", "regex": "^d", "char": "//", "backup": False}},
        {"check": "cat @TMP@/f; ls @TMP@"},
        {"state": "file.comment", "args": {"name": "@TMP@/nope", "regex": "a"}},
        {"state": "file.comment", "args": {"name": "rel", "regex": "a"}},
        {"state": "file.uncomment", "args": {"name": "@TMP@/f", "regex": "a="}, "test": True},
        {"state": "file.uncomment", "args": {"name": "@TMP@/f", "regex": "a="}},
        {"check": "cat @TMP@/f"},
        {"state": "file.uncomment", "args": {"name": "@TMP@/f", "regex": "a="}},
        {"state": "file.uncomment", "args": {"name": "@TMP@/f", "regex": "^b=", "backup": ".orig"}},
        {"check": "cat @TMP@/f; ls @TMP@"},
        {"state": "file.uncomment", "args": {"name": "@TMP@/f", "regex": "zz"}},
        {"state": "file.uncomment", "args": {"name": "@TMP@/f", "regex": "d", "char": "//"}},
        {"check": "cat @TMP@/f"},
        {"state": "file.uncomment", "args": {"name": "@TMP@/nope", "regex": "a"}},
    ],
    "prepend": [
        {"sh": "printf 'one\\ntwo\\n' > @TMP@/f"},
        {"state": "file.prepend", "args": {"name": "@TMP@/f", "text": "zero"}, "test": True},
        {"state": "file.prepend", "args": {"name": "@TMP@/f", "text": "zero"}},
        {"check": "cat @TMP@/f"},
        {"state": "file.prepend", "args": {"name": "@TMP@/f", "text": "zero"}},
        {"state": "file.prepend", "args": {"name": "@TMP@/f", "text": ["a", "b  c", "one"]}},
        {"check": "cat @TMP@/f"},
        {"state": "file.prepend", "args": {"name": "@TMP@/f", "text": ["H1", "H2"], "header": True}, "test": True},
        {"state": "file.prepend", "args": {"name": "@TMP@/f", "text": ["H1", "H2"], "header": True}},
        {"state": "file.prepend", "args": {"name": "@TMP@/f", "text": ["H1", "H2"], "header": True}},
        {"check": "cat @TMP@/f"},
        {"state": "file.prepend", "args": {"name": "@TMP@/new", "text": "x"}, "test": True},
        {"state": "file.prepend", "args": {"name": "@TMP@/new", "text": "x"}},
        {"check": "cat @TMP@/new"},
        {"state": "file.prepend", "args": {"name": "@TMP@/n/m", "text": "x", "makedirs": True}},
        {"check": "cat @TMP@/n/m"},
        {"state": "file.prepend", "args": {"name": "@TMP@/f", "source": "salt://lines.j2", "context": {"greeting": "hi"}}},
        {"check": "cat @TMP@/f"},
        {"state": "file.prepend", "args": {"name": "@TMP@/f", "source": "salt://lines.j2", "sources": ["salt://lines.j2"]}},
        {"state": "file.prepend", "args": {"name": "@TMP@/f", "source": "salt://nope"}},
        {"state": "file.prepend", "args": {"name": "", "text": "x"}},
        {"state": "file.append", "args": {"name": "@TMP@/f", "sources": ["salt://lines.j2", "salt://plain.txt"], "defaults": {"greeting": "yo"}}},
        {"check": "cat @TMP@/f"},
        {"state": "file.append", "args": {"name": "@TMP@/f", "source": "salt://nope"}},
        {"state": "file.append", "args": {"name": "@TMP@/f", "source": "salt://lines.j2", "source_hash": "x", "source_hashes": ["y"]}},
    ],
    "keyvalue": [
        {"sh": "printf 'A=1\\nB = 2\\n#C=3\\n  D=4\\nA=5\\n' > @TMP@/f"},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "A", "value": 9}, "test": True},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "A", "value": 9}},
        {"check": "cat @TMP@/f"},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "A", "value": 9}},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "B", "value": "3", "separator": " = "}},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "C", "value": "3", "uncomment": "#"}},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "D", "value": "4"}},
        {"check": "cat @TMP@/f"},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key_values": {"E": "5", "F": 6.5}, "append_if_not_found": True}},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "G", "value": "7", "prepend_if_not_found": True}, "test": True},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "G", "value": "7", "prepend_if_not_found": True}},
        {"check": "cat @TMP@/f"},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "a", "value": "1", "key_ignore_case": True}},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "E", "value": "X", "count": -1}},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "E", "value": "x", "value_ignore_case": True}},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "G", "value": "8", "show_changes": False}},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "G", "value": "9", "show_changes": False}, "test": True},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "H", "value": True, "append_if_not_found": True}},
        {"check": "cat @TMP@/f"},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/nope", "key": "A", "value": "1"}},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/nope", "key": "A", "value": "1", "ignore_if_missing": True}},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/made", "key": "A", "value": "1", "create_if_missing": True}},
        {"check": "cat @TMP@/made"},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f"}},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key_values": {}}},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key_values": ["x"]}},
        {"state": "file.keyvalue", "args": {"name": "@TMP@/f", "key": "A", "value": "1", "key_values": {"B": 1}}},
    ],
    "blockreplace": [
        {"sh": "printf 'head\\n# START\\nold\\n# END\\ntail\\n' > @TMP@/f; printf 'x\\n' > @TMP@/g"},
        {"state": "file.blockreplace", "args": {"name": "@TMP@/f", "marker_start": "# START", "marker_end": "# END",
                                                "content": "new line\nsecond"}, "test": True},
        {"state": "file.blockreplace", "args": {"name": "@TMP@/f", "marker_start": "# START", "marker_end": "# END",
                                                "content": "new line\nsecond"}},
        {"check": "cat @TMP@/f; ls @TMP@"},
        {"state": "file.blockreplace", "args": {"name": "@TMP@/f", "marker_start": "# START", "marker_end": "# END",
                                                "content": "new line\nsecond"}},
        {"state": "file.blockreplace", "args": {"name": "@TMP@/g", "content": "block", "append_if_not_found": True}},
        {"state": "file.blockreplace", "args": {"name": "@TMP@/g", "marker_start": "## P", "marker_end": "## E",
                                                "content": "pre", "prepend_if_not_found": True, "backup": False}},
        {"check": "cat @TMP@/g"},
        {"state": "file.blockreplace", "args": {"name": "@TMP@/g", "marker_start": "## Q", "marker_end": "## R", "content": "z"}},
        {"state": "file.blockreplace", "args": {"name": "@TMP@/g", "content": "changed", "show_changes": False}},
        {"state": "file.blockreplace", "args": {"name": "@TMP@/g", "content": "tpl", "source": "salt://lines.j2",
                                                "context": {"greeting": "hey"}}},
        {"check": "cat @TMP@/g"},
        {"state": "file.blockreplace", "args": {"name": "@TMP@/g", "marker_start": "## A", "marker_end": "## B",
                                                "content": "after", "insert_after_match": "^x$", "append_newline": True}},
        {"check": "cat @TMP@/g"},
        {"state": "file.blockreplace", "args": {"name": "@TMP@/nope", "content": "z"}},
        {"state": "file.blockreplace", "args": {"name": "rel", "content": "z"}},
        {"state": "file.blockreplace", "args": {"name": "@TMP@/g", "source": "salt://lines.j2", "sources": ["salt://lines.j2"]}},
        {"state": "file.blockreplace", "args": {"name": "@TMP@/g", "source": "salt://nope"}},
    ],
    "accumulated": [
        {"sh": "touch @TMP@/blk @TMP@/two"},
        {"sls": "acc_one", "text": (
            "acc-a:\n  file.accumulated:\n    - filename: @TMP@/out\n    - text: line-a\n    - require_in:\n      - file: out\n"
            "acc-b:\n  file.accumulated:\n    - name: extra\n    - filename: @TMP@/out\n    - text: [line-b, line-c]\n"
            "    - watch_in:\n      - file: out\n"
            "out:\n  file.managed:\n    - name: @TMP@/out\n    - source: salt://acc.j2\n    - template: jinja\n"
            "blk-acc:\n  file.accumulated:\n    - filename: @TMP@/blk\n    - text: acc line 1\n    - require_in:\n      - file: blk\n"
            "blk:\n  file.blockreplace:\n    - name: @TMP@/blk\n    - marker_start: '# BEGIN'\n    - marker_end: '# END'\n"
            "    - content: static\n    - append_if_not_found: True\n"
            "orphan:\n  file.accumulated:\n    - filename: @TMP@/out\n    - text: lost\n"
            "notext:\n  file.accumulated:\n    - filename: @TMP@/out\n    - text: null\n    - require_in:\n      - file: out\n"
        )},
        {"check": "cat @TMP@/out; cat @TMP@/blk"},
        {"sls": "acc_one", "test": True},
        {"sls": "acc_one"},
        {"sls": "acc_two", "text": (
            "one:\n  file.accumulated:\n    - name: first\n    - filename: @TMP@/two\n    - text: from one\n"
            "    - require_in:\n      - file: block-one\n"
            "two:\n  file.accumulated:\n    - name: second\n    - filename: @TMP@/two\n    - text: from two\n"
            "    - require_in:\n      - file: block-two\n"
            "block-one:\n  file.blockreplace:\n    - name: @TMP@/two\n    - marker_start: '# ONE'\n    - marker_end: '# /ONE'\n"
            "    - append_if_not_found: True\n"
            "block-two:\n  file.blockreplace:\n    - name: @TMP@/two\n    - marker_start: '# TWO'\n    - marker_end: '# /TWO'\n"
            "    - append_if_not_found: True\n"
        )},
        {"check": "cat @TMP@/two"},
        {"sls": "acc_three", "text": (
            "acc-a:\n  file.accumulated:\n    - filename: @TMP@/three\n    - text: [one, two]\n    - require_in:\n      - file: three\n"
            "acc-b:\n  file.accumulated:\n    - name: extra\n    - filename: @TMP@/three\n    - text: [x, y]\n"
            "    - watch_in:\n      - file: three\n"
            "three:\n  file.managed:\n    - name: @TMP@/three\n    - source: salt://acc.j2\n    - template: jinja\n"
        ), "test": True},
        {"sls": "acc_three"},
        {"check": "cat @TMP@/three"},
        {"sls": "acc_three"},
    ],
})

R = "cmd.run"
CMD_CASES = {
    "run": [
        {"state": R, "args": {"name": "echo hello; echo oops >&2"}},
        {"state": R, "args": {"name": "echo trailing   \n\n"}},
        {"state": R, "args": {"name": "exit 4"}},
        {"state": R, "args": {"name": "exit 4", "success_retcodes": [4, 5]}},
        {"state": R, "args": {"name": "echo found-it; exit 2", "success_stdout": ["found"]}},
        {"state": R, "args": {"name": "pwd", "cwd": "@TMP@"}},
        {"state": R, "args": {"name": "pwd", "cwd": "@TMP@/nope"}},
        {"state": R, "args": {"name": "echo $FOO-$BAR", "env": [{"FOO": "foo"}, {"BAR": 3}]}},
        {"state": R, "args": {"name": "echo $FOO", "env": {"FOO": "dict"}}},
        {"state": R, "args": {"name": "echo $FOO", "env": "FOO=bar"}},
        {"state": R, "args": {"name": "echo $LC_ALL/$LANGUAGE/$LC_MESSAGES"}},
        {"state": R, "args": {"name": "touch @TMP@/made"}, "test": True},
        {"check": "ls @TMP@"},
        {"state": R, "args": {"name": "touch @TMP@/made"}},
        {"check": "ls @TMP@"},
        {"state": R, "args": {"name": "echo $0", "shell": "/bin/sh"}},
        {"state": R, "args": {"name": "echo hi", "shell": "/bin/nosuchshell"}},
        {"state": R, "args": {"name": "sleep 3; echo late", "timeout": 1}},
        {"state": R, "args": {"name": "id -un; pwd", "runas": "nobody"}},
        {"state": R, "args": {"name": "echo 'changed=yes comment=\"all good\" k=v'", "stateful": True}},
        {"state": R, "args": {"name": "echo 'changed=no comment=quiet'", "stateful": True}},
        {"state": R, "args": {"name": "echo '{\"changed\": true, \"comment\": \"json way\", \"x\": 1}'", "stateful": True}},
        {"state": R, "args": {"name": "echo 'not parsable'", "stateful": True}},
        {"state": R, "args": {"name": "echo 'changed=yes'", "stateful": True}, "test": True},
        {"state": R, "args": {"name": "echo hidden", "hide_output": True}},
        {"state": R, "args": {"name": "echo $PATH | cut -d: -f1", "prepend_path": "/opt/brine/bin"}},
        {"state": "cmd.wait", "args": {"name": "touch @TMP@/waited"}},
        {"check": "ls @TMP@"},
    ],
    "more_run": [
        {"state": R, "args": {"name": "echo $A-$B", "env": ["A", {"B": None}]}},
        {"state": R, "args": {"name": "cat", "stdin": "fed in"}},
        {"state": R, "args": {"name": "echo real", "stateful": [{"test_name": "echo pretend"}]}, "test": True},
        {"state": R, "args": {"name": "echo ok", "stateful": [{"test_name": "echo pretend"}]}},
        {"state": R, "args": {"name": "id -un; pwd; echo $HOME", "runas": "nobody", "cwd": "/tmp"}},
        {"state": R, "args": {"name": "exit 3", "success_retcodes": "1, 3"}},
        {"state": R, "args": {"name": "echo oops >&2; exit 1", "success_stderr": "oops"}},
        {"state": R, "args": {"name": "sleep 2", "timeout": 1, "ignore_timeout": True}},
        {"state": R, "args": {"name": "echo '{\"changed\": \"no\", \"comment\": \"nothing\"}'", "stateful": True}},
        {"state": R, "args": {"name": "echo 'a=b=c'", "stateful": True}},
        {"state": R, "args": {"name": "echo >&2 only-err", "stateful": True}},
        {"state": R, "args": {"name": "echo $((1+1))", "env": [{"X": True}, {"Y": 1.5}]}},
        {"state": R, "args": {"name": "kill -9 $$"}},
        {"state": R, "args": {"name": "echo hi", "cwd": "relative"}},
    ],
    "script": [
        {"state": "cmd.script", "args": {"name": "salt://s.sh"}},
        {"state": "cmd.script", "args": {"name": "salt://s.sh", "args": "a b"}},
        {"state": "cmd.script", "args": {"name": "run-it", "source": "salt://s.sh", "cwd": "@TMP@"}},
        {"state": "cmd.script", "args": {"name": "salt://s.sh x y"}},
        {"state": "cmd.script", "args": {"name": "salt://nope.sh"}},
        {"state": "cmd.script", "args": {"name": "salt://s.sh"}, "test": True},
        {"state": "cmd.script", "args": {"name": "salt://t.sh.j2", "template": "jinja", "context": {"greeting": "hi"}}},
        {"state": "cmd.script", "args": {"name": "salt://t.sh.j2", "template": "jinja", "context": "bad"}},
        {"state": "cmd.script", "args": {"name": "salt://stateful.sh", "stateful": True}},
        {"state": "cmd.script", "args": {"name": "salt://s.sh", "success_retcodes": 3}},
        {"state": "cmd.script", "args": {"name": "salt://s.sh", "cwd": "@TMP@/nope"}},
        {"state": "cmd.wait_script", "args": {"name": "salt://s.sh"}},
    ],
}


WORK = None  # the recording's work folder, written @WORK@ (cachedir paths)


def subst(obj, tmp):
    if isinstance(obj, dict):
        return {k: subst(v, tmp) for k, v in obj.items()}
    if isinstance(obj, list):
        return [subst(v, tmp) for v in obj]
    if isinstance(obj, str):
        return obj.replace("@TMP@", tmp).replace("@WORK@", WORK)
    return obj


def unsubst(obj, tmp):
    if isinstance(obj, dict):
        return {unsubst(k, tmp): unsubst(v, tmp) for k, v in obj.items()}
    if isinstance(obj, list):
        return [unsubst(v, tmp) for v in obj]
    if isinstance(obj, str):
        return obj.replace(tmp, "@TMP@").replace(WORK, "@WORK@")
    return obj


def main():
    global WORK
    salt_call, work = sys.argv[1], os.path.abspath(sys.argv[2])
    WORK = work
    only = set(sys.argv[3:])
    shutil.rmtree(work, ignore_errors=True)
    roots = os.path.join(work, "file_roots")
    for rel, text in FILE_ROOTS.items():
        path = os.path.join(roots, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if rel.endswith("/"):
            continue
        with open(path, "w") as f:
            f.write(text)
    os.makedirs(os.path.join(work, "pillar"))
    with open(os.path.join(work, "pillar", "top.sls"), "w") as f:
        f.write("base:\n  '*': [data]\n")
    with open(os.path.join(work, "pillar", "data.sls"), "w") as f:
        json.dump(PILLAR, f)
    os.makedirs(os.path.join(work, "etc"))
    conf = {
        "id": "m1", "file_client": "local", "log_level": "quiet",
        "root_dir": os.path.join(work, "root"), "cachedir": os.path.join(work, "cache"),
        "file_roots": {"base": [os.path.join(roots, "base")], "dev": [os.path.join(roots, "dev")]},
        "pillar_roots": {"base": [os.path.join(work, "pillar")]},
        "grains": GRAINS,
    }
    with open(os.path.join(work, "etc", "minion"), "w") as f:
        json.dump(conf, f)
    for out_name, cases in (("file.json", FILE_CASES), ("cmd.json", CMD_CASES)):
        out_path = os.path.join(HERE, out_name)
        recorded = {}
        old = {}
        if only and os.path.exists(out_path):
            with open(out_path) as f:
                old = json.load(f)["cases"]
        for case, steps in cases.items():
            if only and case not in only:
                if case in old:
                    recorded[case] = old[case]
                continue
            tmp = os.path.join(work, "cases", case)
            os.makedirs(tmp)
            done = []
            sls_texts = {}
            for step in steps:
                step = dict(step)
                if "sls" in step:
                    # A whole SLS run (state.sls): every state's return, by tag.
                    text = step.setdefault("text", sls_texts.get(step["sls"], ""))
                    sls_texts[step["sls"]] = text
                    with open(os.path.join(roots, "base", step["sls"] + ".sls"), "w") as f:
                        f.write(subst(text, tmp))
                    cmd = [salt_call, "-c", os.path.join(work, "etc"), "--local", "--out", "json",
                           "state.sls", step["sls"]]
                    if step.get("test"):
                        cmd.append("test=True")
                    out = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
                    rets = json.loads(out.stdout)["local"]
                    for ret in rets.values():
                        for k in ("start_time", "duration"):
                            ret.pop(k, None)
                    step["expect"] = unsubst(rets, tmp)
                elif "sh" in step:
                    subprocess.run(["bash", "-c", subst(step["sh"], tmp)], check=True)
                elif "check" in step:
                    out = subprocess.run(["bash", "-c", subst(step["check"], tmp)],
                                         capture_output=True, text=True)
                    step["out"] = unsubst(out.stdout, tmp)
                else:
                    mod, fun = step["state"].split(".")
                    args = subst(step["args"], tmp)
                    high = {"probe": {mod: [fun] + [{k: v} for k, v in args.items()]}}
                    if "name" not in args:
                        high = {"probe": {mod: [fun] + [{k: v} for k, v in args.items()]}}
                    cmd = [salt_call, "-c", os.path.join(work, "etc"), "--local", "--out", "json",
                           "state.high", json.dumps(high)]
                    if step.get("test"):
                        cmd.append("test=True")
                    out = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
                    ret = json.loads(out.stdout)["local"]
                    (ret,) = ret.values()
                    for k in ("start_time", "duration", "__run_num__", "__sls__", "__id__"):
                        ret.pop(k, None)
                    if isinstance(ret.get("changes", {}).get("pid"), int) and ret["changes"]["pid"] > 0:
                        ret["changes"]["pid"] = "<pid>"
                    step["expect"] = unsubst(ret, tmp)
                done.append(step)
            recorded[case] = done
            print(case, len(done), file=sys.stderr)
        data = {"file_roots": FILE_ROOTS, "pillar": PILLAR, "grains": GRAINS, "cases": recorded}
        with open(out_path, "w") as f:
            json.dump(data, f, indent=1, ensure_ascii=False)
            f.write("\n")


if __name__ == "__main__":
    main()
