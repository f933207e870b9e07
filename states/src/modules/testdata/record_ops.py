#!/usr/bin/env python3
# The recorder of module.json, grains.json, git.json and ssh.json (MODULE_CASES,
# GRAINS_CASES, GIT_CASES, SSH_CASES and their `high` steps), kept beside record.py as
# the i31-ops branch wrote it: its file/cmd sets are older than record.py's,
# so file.json and cmd.json are recorded with record.py. Folding the recorders
# into one is left to do.
"""Record what Salt 3007.8 answers for the state scenarios below.

usage: record.py SALT_CALL WORKDIR [CASE...]
  (e.g. /tmp/saltvenv/bin/salt-call /tmp/stm-rec)
Writes one JSON file per scenario set (file.json, cmd.json, module.json,
grains.json, ...; see SETS) next to this script; with CASE names only
those cases are recorded again, the others are kept, and sets without a
named case are left alone. Each scenario runs in its own folder (written
@TMP@ in the scenarios and in the answers; the minion's configuration
folder, where `grains.*` keep their file, is @ETC@ and starts each case
without a grains file); `sh` steps prepare or change files, `check` steps
record what a shell command prints afterwards (contents, modes) so the
tests can compare real effects too; a `state` step runs one state, a
`high` step a whole high data (requisites and all) and records every
state's return.
"""
import json, os, re, shutil, subprocess, sys

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


MR = "module.run"
WATCHED = {"trig": {"test": ["succeed_with_changes"]}}
QUIET = {"trig": {"test": ["succeed_without_changes"]}}
MODULE_CASES = {
    "module_run_new": [
        {"state": MR, "args": {"test.echo": [{"text": "hi"}]}},
        {"state": MR, "args": {"test.echo": ["positional"]}},
        {"state": MR, "args": {"test.echo": [{"text": "one"}], "test.true": None}},
        {"state": MR, "args": {"test.false": None}},
        {"state": MR, "args": {"test.echo": [{"text": "x"}], "test.false": None}},
        {"state": MR, "args": {"test.arg": ["a", 2, {"k": "v"}]}},
        {"state": MR, "args": {"test.arg": [{"result": False}]}},
        {"state": MR, "args": {"test.arg": [{"comment": "said"}]}},
        {"state": MR, "args": {"cmd.run": [{"cmd": "echo out; echo err >&2"}, {"python_shell": True}]}},
        {"state": MR, "args": {"cmd.run_all": [{"cmd": "exit 3"}, {"python_shell": True}]}},
        {"state": MR, "args": {"cmd.retcode": ["exit 3", {"python_shell": True}]}},
        {"state": MR, "args": {"cmd.run": ["touch @TMP@/made"]}, "test": True},
        {"check": "ls @TMP@"},
        {"state": MR, "args": {"cmd.run": ["touch @TMP@/made"]}},
        {"check": "ls @TMP@"},
        {"state": MR, "args": {"nosuch.fun": None}},
        {"state": MR, "args": {"nosuch.fun": None, "other.nope": None}},
        {"state": MR, "args": {"nosuch.fun": None, "test.true": None}, "test": True},
        {"state": MR, "args": {"test.echo": None}},
        {"state": MR, "args": {"test.echo": [{"text": "a"}, {"bogus": 1}]}},
        {"state": MR, "args": {"test.echo:first": ["1"], "test.echo:second": ["2"]}},
        {"state": MR, "args": {"grains.get": [{"key": "shell"}]}},
        {"state": MR, "args": {"test.exception": ["boom"]}},
        {"state": MR, "args": {"name": "named", "test.true": None}},
    ],
    "module_run_legacy": [
        {"state": MR, "args": {"name": "test.echo", "text": "hi"}},
        {"state": MR, "args": {"name": "test.echo"}},
        {"state": MR, "args": {"name": "nosuch.fun"}},
        {"state": MR, "args": {"name": "test.echo", "text": "hi"}, "test": True},
        {"state": MR, "args": {"name": "test.false"}},
        {"state": MR, "args": {"name": "cmd.run", "cmd": "echo hi"}},
        {"state": MR, "args": {"name": "cmd.run_all", "cmd": "exit 2", "python_shell": True}},
        {"state": MR, "args": {"name": "file.touch", "m_name": "@TMP@/t"}},
        {"check": "ls @TMP@"},
        {"state": MR, "args": {"name": "file.touch"}},
        {"state": MR, "args": {"name": "test.arg", "args": ["a", "b"], "kwargs": {"k": 1}}},
        {"state": MR, "args": {"name": "test.arg", "args": "a"}},
        {"state": MR, "args": {"name": "test.arg", "kwargs": "k"}},
        {"state": MR, "args": {"name": "test.exception", "message": "boom"}},
        {"state": MR, "args": {"name": "test.echo", "text": "x", "ignored": 1}},
        {"state": MR, "args": {"name": "test.arg", "m_names": ["x"]}},
    ],
    "module_wait": [
        {"state": "module.wait", "args": {"name": "test.echo", "text": "hi"}},
        {"high": dict(WATCHED, w={"module": ["wait", {"name": "test.echo"}, {"text": "hi"},
                                             {"watch": [{"test": "trig"}]}]})},
        {"high": dict(QUIET, w={"module": ["wait", {"name": "test.echo"}, {"text": "hi"},
                                           {"watch": [{"test": "trig"}]}]})},
        {"high": dict(WATCHED, w={"module": ["wait", {"test.echo": [{"text": "new"}]},
                                             {"watch": [{"test": "trig"}]}]})},
        {"high": dict(WATCHED, w={"module": ["wait", {"test.echo": [{"text": "new"}]},
                                             {"watch": [{"test": "trig"}]}]}), "test": True},
        {"high": dict(WATCHED, w={"module": ["watch", {"name": "cmd.run"}, {"cmd": "touch @TMP@/w"},
                                             {"watch": [{"test": "trig"}]}]})},
        {"check": "ls @TMP@"},
        {"high": dict(WATCHED, r={"module": ["run", {"test.echo": [{"text": "ran"}]},
                                             {"watch": [{"test": "trig"}]}]})},
        {"high": dict(QUIET, r={"module": ["run", {"test.echo": [{"text": "ran"}]},
                                           {"onchanges": [{"test": "trig"}]}]})},
    ],
}

GP = "grains.present"
GRAINS_CASES = {
    "grains_present": [
        {"state": GP, "args": {"name": "role", "value": "web"}, "test": True},
        {"check": "cat @ETC@/grains 2>&1"},
        {"state": GP, "args": {"name": "role", "value": "web"}},
        {"check": "cat @ETC@/grains"},
        {"state": GP, "args": {"name": "role", "value": "web"}},
        {"state": GP, "args": {"name": "role", "value": "db"}, "test": True},
        {"state": GP, "args": {"name": "role", "value": "db"}},
        {"state": GP, "args": {"name": "apps:web:port", "value": 80}},
        {"check": "cat @ETC@/grains"},
        {"state": GP, "args": {"name": "apps:web:port", "value": 80}},
        {"state": GP, "args": {"name": "apps", "value": "flat"}},
        {"state": GP, "args": {"name": "apps", "value": "flat"}, "test": True},
        {"state": GP, "args": {"name": "apps", "value": "flat", "force": True}},
        {"check": "cat @ETC@/grains"},
        {"state": GP, "args": {"name": "d", "value": {"x": [1, 2]}}},
        {"state": GP, "args": {"name": "d", "value": {"x": [1, 2]}}},
        {"state": GP, "args": {"name": "a,b", "value": 1, "delimiter": ","}},
        {"check": "cat @ETC@/grains"},
        {"state": GP, "args": {"name": "shell", "value": "/bin/zsh"}},
        {"state": GP, "args": {"name": "nothing", "value": None}},
    ],
    "grains_absent": [
        {"state": "grains.absent", "args": {"name": "role"}},
        {"state": GP, "args": {"name": "role", "value": "web"}},
        {"state": "grains.absent", "args": {"name": "role"}, "test": True},
        {"state": "grains.absent", "args": {"name": "role"}},
        {"check": "cat @ETC@/grains"},
        {"state": "grains.absent", "args": {"name": "role"}},
        {"state": "grains.absent", "args": {"name": "role", "destructive": True}, "test": True},
        {"state": "grains.absent", "args": {"name": "role", "destructive": True}},
        {"check": "cat @ETC@/grains"},
        {"state": GP, "args": {"name": "l", "value": [1, 2]}},
        {"state": "grains.absent", "args": {"name": "l"}},
        {"state": "grains.absent", "args": {"name": "l", "force": True}},
        {"check": "cat @ETC@/grains"},
        {"state": GP, "args": {"name": "n:k", "value": "v"}},
        {"state": "grains.absent", "args": {"name": "n:k", "destructive": True}},
        {"check": "cat @ETC@/grains"},
    ],
    "grains_lists": [
        {"state": "grains.list_present", "args": {"name": "roles", "value": "web"}, "test": True},
        {"state": "grains.list_present", "args": {"name": "roles", "value": "web"}},
        {"check": "cat @ETC@/grains"},
        {"state": "grains.list_present", "args": {"name": "roles", "value": "web"}},
        {"state": "grains.list_present", "args": {"name": "roles", "value": ["web", "db", "cache"]}, "test": True},
        {"state": "grains.list_present", "args": {"name": "roles", "value": ["web", "db", "cache"]}},
        {"check": "cat @ETC@/grains"},
        {"state": "grains.list_present", "args": {"name": "roles", "value": ["db"]}},
        {"state": GP, "args": {"name": "flat", "value": "x"}},
        {"state": "grains.list_present", "args": {"name": "flat", "value": "y"}},
        {"state": "grains.list_present", "args": {"name": "m:roles", "value": "a"}},
        {"check": "cat @ETC@/grains"},
        {"state": "grains.list_absent", "args": {"name": "roles", "value": "web"}, "test": True},
        {"state": "grains.list_absent", "args": {"name": "roles", "value": "web"}},
        {"state": "grains.list_absent", "args": {"name": "roles", "value": "web"}},
        {"state": "grains.list_absent", "args": {"name": "roles", "value": ["db", "nope"]}},
        {"check": "cat @ETC@/grains"},
        {"state": "grains.list_absent", "args": {"name": "flat", "value": "x"}},
        {"state": "grains.list_absent", "args": {"name": "missing", "value": "x"}},
        {"state": "grains.list_present", "args": {"name": "d2", "value": {"k": "v"}}},
        {"state": "grains.list_present", "args": {"name": "d2", "value": {"k": "v"}}},
        {"check": "cat @ETC@/grains"},
    ],
    "grains_seen_later": [
        {"high": {"a": {"grains": ["present", {"name": "role"}, {"value": "web"}, {"order": 1}]},
                  "b": {"file": ["managed", {"name": "@TMP@/role"}, {"contents": "{{ grains['role'] }}"},
                                 {"template": "jinja"}, {"order": 2}]},
                  "c": {"module": ["run", {"grains.get": [{"key": "role"}]}, {"order": 3}]},
                  "d": {"grains": ["list_present", {"name": "roles"}, {"value": "x"}, {"order": 4}]},
                  "e": {"grains": ["list_present", {"name": "roles"}, {"value": "x"}, {"order": 5}]}}},
        {"check": "cat @TMP@/role; echo; cat @ETC@/grains"},
    ],
}


def subst(obj, tmp, etc=None):
    if isinstance(obj, dict):
        return {subst(k, tmp, etc): subst(v, tmp, etc) for k, v in obj.items()}
    if isinstance(obj, list):
        return [subst(v, tmp, etc) for v in obj]
    if isinstance(obj, str):
        obj = obj.replace("@TMP@", tmp)
        return obj.replace("@ETC@", etc) if etc else obj
    return obj


def unsubst(obj, tmp, etc=None):
    if isinstance(obj, dict):
        return {unsubst(k, tmp, etc): unsubst(v, tmp, etc) for k, v in obj.items()}
    if isinstance(obj, list):
        return [unsubst(v, tmp, etc) for v in obj]
    if isinstance(obj, str):
        obj = obj.replace(tmp, "@TMP@")
        return obj.replace(etc, "@ETC@") if etc else obj
    return obj


# Git repositories made at record (and test) time: fixed names and dates
# give the same commit ids everywhere.
GIT_ENV = ("export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t "
           "GIT_COMMITTER_EMAIL=t@example.com GIT_AUTHOR_DATE=2020-01-01T00:00:00Z "
           "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z; ")
GIT_MK = GIT_ENV + (
    "git init -q -b main @TMP@/src && cd @TMP@/src && echo a > f && git add f && git commit -qm a "
    "&& git tag v1 && echo b >> f && git commit -qam b && git tag -a v2 -m v2 "
    "&& git checkout -qb dev && echo c > g && git add g && git commit -qm c && git checkout -q main "
    "&& git clone -q --bare @TMP@/src @TMP@/remote.git")
GIT_PUSH = GIT_ENV + "cd @TMP@/src && echo d >> f && git commit -qam d && git push -q @TMP@/remote.git main"
GL = "git.latest"
URL = "file://@TMP@/remote.git"
SHA_A = "5c930c4ab809eab47120f4b30716c1dde9e9a7b3"
GIT_CFG = "git -C @TMP@/r config --local --get-regexp '^(user|x)\\.'"
GIT_HEAD = "git -C @TMP@/{0} rev-parse HEAD; git -C @TMP@/{0} rev-parse --abbrev-ref HEAD; ls @TMP@/{0}"
GIT_CASES = {
    "git_latest": [
        {"sh": GIT_MK},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co"}, "test": True},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co"}},
        {"check": GIT_HEAD.format("co") + "; git -C @TMP@/co rev-parse --abbrev-ref main@{upstream}"},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co"}},
        {"sh": GIT_PUSH},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co"}, "test": True},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co"}},
        {"check": GIT_HEAD.format("co")},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co", "rev": "dev"}, "test": True},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co", "rev": "dev"}},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co", "rev": "dev", "branch": "dev"}, "test": True},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co", "rev": "dev", "branch": "dev"}},
        {"check": GIT_HEAD.format("co") + "; git -C @TMP@/co rev-parse --abbrev-ref dev@{upstream}"},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co", "rev": "dev", "branch": "dev"}},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co", "rev": "main", "branch": "main"}},
        {"check": GIT_HEAD.format("co")},
        {"sh": "echo local >> @TMP@/co/f"},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co", "rev": "main", "branch": "main"}},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co", "rev": "main", "branch": "main",
                               "force_reset": True}, "test": True},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co", "rev": "main", "branch": "main",
                               "force_reset": True}},
        {"check": "git -C @TMP@/co status --porcelain; cat @TMP@/co/f"},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co", "force_reset": "maybe"}},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co", "rev": "nope"}},
        {"state": GL, "args": {"name": URL, "target": "rel"}},
        {"state": GL, "args": {"name": "file://@TMP@/missing.git", "target": "@TMP@/x"}},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/co", "bogus": 1}},
    ],
    "git_latest_revs": [
        {"sh": GIT_MK},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/t1", "rev": "v1"}},
        {"check": GIT_HEAD.format("t1")},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/t1", "rev": "v1"}},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/t1", "rev": "v2"}, "test": True},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/t1", "rev": "v2"}},
        {"check": GIT_HEAD.format("t1")},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/s1", "rev": SHA_A}},
        {"check": GIT_HEAD.format("s1")},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/s1", "rev": SHA_A[:7]}},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/d1", "rev": "main", "depth": 1}},
        {"check": "git -C @TMP@/d1 rev-list --count HEAD"},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/d2", "depth": 1}},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/r1", "remote": "upstream"}},
        {"check": "git -C @TMP@/r1 remote; git -C @TMP@/r1 rev-parse --abbrev-ref main@{upstream}"},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/r1", "remote": "upstream"}},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/r1", "remote": "other"}, "test": True},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/r1", "remote": "other"}},
        {"check": "git -C @TMP@/r1 remote"},
        {"sh": GIT_PUSH},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/r1", "remote": "upstream", "update_head": False}, "test": True},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/r1", "remote": "upstream", "update_head": False}},
        {"check": GIT_HEAD.format("r1")},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/r1", "remote": "upstream", "update_head": False}},
    ],
    "git_latest_force": [
        {"sh": GIT_MK + "; mkdir -p @TMP@/full @TMP@/empty && touch @TMP@/full/junk"},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/full"}},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/full", "force_clone": True}, "test": True},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/full", "force_clone": True}},
        {"check": "ls -a @TMP@/full"},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/empty"}},
        {"sh": "touch @TMP@/afile"},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/afile"}},
        {"sh": "ssh-keygen -q -t ed25519 -N '' -C k -f @TMP@/key"},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/i1", "identity": "@TMP@/key"}},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/i2", "identity": "@TMP@/nokey"}},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/i2", "identity": "relative/key"}},
        {"sh": GIT_ENV + "cd @TMP@/full && git checkout -q -b side && echo s > s && git add s && git commit -qm s "
               "&& git checkout -q main && git reset -q --hard side"},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/full"}},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/full", "force_reset": True}, "test": True},
        {"state": GL, "args": {"name": URL, "target": "@TMP@/full", "force_reset": True}},
        {"check": GIT_HEAD.format("full")},
    ],
    "git_cloned": [
        {"sh": GIT_MK},
        {"state": "git.cloned", "args": {"name": URL, "target": "@TMP@/c1"}, "test": True},
        {"state": "git.cloned", "args": {"name": URL, "target": "@TMP@/c1"}},
        {"check": GIT_HEAD.format("c1")},
        {"state": "git.cloned", "args": {"name": URL, "target": "@TMP@/c1"}},
        {"state": "git.cloned", "args": {"name": URL, "target": "@TMP@/c1", "branch": "dev"}, "test": True},
        {"state": "git.cloned", "args": {"name": URL, "target": "@TMP@/c1", "branch": "dev"}},
        {"check": GIT_HEAD.format("c1")},
        {"state": "git.cloned", "args": {"name": URL, "target": "@TMP@/c1", "branch": "dev"}},
        {"state": "git.cloned", "args": {"name": URL, "target": "@TMP@/c1", "branch": "main"}},
        {"state": "git.cloned", "args": {"name": URL, "target": "@TMP@/c2", "branch": "dev"}},
        {"check": GIT_HEAD.format("c2")},
        {"state": "git.cloned", "args": {"name": URL, "target": "rel"}},
        {"state": "git.cloned", "args": {"name": URL}},
        {"state": "git.cloned", "args": {"name": URL, "target": "@TMP@/c3", "branch": ""}},
        {"sh": "mkdir @TMP@/notgit"},
        {"state": "git.cloned", "args": {"name": URL, "target": "@TMP@/notgit"}},
        {"state": "git.cloned", "args": {"name": "file://@TMP@/missing.git", "target": "@TMP@/c4"}},
    ],
    "git_config": [
        # git.config_set/config_unset on a repository's own config
        # (--local). global: True is left out: git would write the caller's
        # ~/.gitconfig, and neither this recorder nor the replay can point
        # HOME at the scratch folder for one state call.
        {"sh": "git init -q -b main @TMP@/r && mkdir @TMP@/notgit"},
        {"state": "git.config_set", "args": {"name": "user.name", "value": "Tester", "repo": "@TMP@/r"}, "test": True},
        {"state": "git.config_set", "args": {"name": "user.name", "value": "Tester", "repo": "@TMP@/r"}},
        {"check": GIT_CFG},
        {"state": "git.config_set", "args": {"name": "user.name", "value": "Tester", "repo": "@TMP@/r"}},
        {"state": "git.config_set", "args": {"name": "user.name", "value": "Tester", "repo": "@TMP@/r"}, "test": True},
        {"state": "git.config_set", "args": {"name": "user.name", "value": "Other One", "repo": "@TMP@/r"}, "test": True},
        {"state": "git.config_set", "args": {"name": "user.name", "value": "Other One", "repo": "@TMP@/r"}},
        {"state": "git.config_set", "args": {"name": "x.num", "value": 5, "repo": "@TMP@/r"}},
        {"check": GIT_CFG},
        {"state": "git.config_set", "args": {"name": "x.multi", "multivar": ["a", "b"], "repo": "@TMP@/r"}, "test": True},
        {"state": "git.config_set", "args": {"name": "x.multi", "multivar": ["a", "b"], "repo": "@TMP@/r"}},
        {"check": GIT_CFG},
        {"state": "git.config_set", "args": {"name": "x.multi", "multivar": ["a", "b"], "repo": "@TMP@/r"}},
        {"state": "git.config_set", "args": {"name": "x.multi", "multivar": "a,b,c", "repo": "@TMP@/r"}},
        {"state": "git.config_set", "args": {"name": "x.multi", "multivar": ["a", 2, "c"], "repo": "@TMP@/r"}, "test": True},
        {"state": "git.config_set", "args": {"name": "x.single", "value": "v", "repo": "@TMP@/r"}},
        {"state": "git.config_set", "args": {"name": "x.single", "multivar": ["v", "w"], "repo": "@TMP@/r"}},
        {"check": GIT_CFG},
        {"state": "git.config_set", "args": {"name": "x.both", "value": "v", "multivar": ["v"], "repo": "@TMP@/r"}},
        {"state": "git.config_set", "args": {"name": "x.norepo", "value": "v"}},
        {"state": "git.config_set", "args": {"name": "x.bad", "value": "v", "repo": "@TMP@/r", "bogus": 1}},
        {"state": "git.config_set", "args": {"name": "x.notgit", "value": "v", "repo": "@TMP@/notgit"}},
        {"state": "git.config_unset", "args": {"name": "user.name", "repo": "@TMP@/r"}, "test": True},
        {"state": "git.config_unset", "args": {"name": "user.name", "repo": "@TMP@/r"}},
        {"check": GIT_CFG},
        {"state": "git.config_unset", "args": {"name": "user.name", "repo": "@TMP@/r"}},
        {"state": "git.config_unset", "args": {"name": "user.name", "repo": "@TMP@/r"}, "test": True},
        {"state": "git.config_unset", "args": {"name": "x.multi", "repo": "@TMP@/r"}},
        {"state": "git.config_unset", "args": {"name": "x.multi", "repo": "@TMP@/r"}, "test": True},
        {"state": "git.config_unset", "args": {"name": "x.multi", "value_regex": "^b$", "repo": "@TMP@/r"}},
        {"check": GIT_CFG},
        {"state": "git.config_unset", "args": {"name": "x.multi", "value_regex": "^[ac]$", "repo": "@TMP@/r"}},
        {"state": "git.config_unset", "args": {"name": "x.multi", "all": True, "repo": "@TMP@/r"}, "test": True},
        {"state": "git.config_unset", "args": {"name": "x.multi", "all": True, "repo": "@TMP@/r"}},
        {"check": GIT_CFG},
        {"state": "git.config_unset", "args": {"name": "x.none", "repo": "@TMP@/r"}},
        {"state": "git.config_unset", "args": {"name": "x.none", "repo": "@TMP@/r"}, "test": True},
        {"state": "git.config_unset", "args": {"name": "x\\.s.*", "repo": "@TMP@/r", "all": True}},
        {"check": GIT_CFG},
        {"state": "git.config_unset", "args": {"name": "x.num"}},
        {"state": "git.config_unset", "args": {"name": "x.num", "repo": "@TMP@/r", "bogus": 1}},
    ],
}


# ssh_auth and ssh_known_hosts, all in the case's folder: `user: root` with
# an absolute `config` (Salt's ssh module takes an absolute config as it
# is, a relative one under the user's home, which would be /root/.ssh).
# Fixed public keys, made once with ssh-keygen (ed25519, rsa 2048, ecdsa
# 256); FP_ED2 is ED2's sha256 fingerprint as Salt's _fingerprint writes it.
ED1 = "AAAAC3NzaC1lZDI1NTE5AAAAIIHMvL1WqR89RfVbIREUcqTRsO+2R4HYObeOz7fT3ea9"
ED2 = "AAAAC3NzaC1lZDI1NTE5AAAAIFyhSP9zkwNTxMARL+Ac3Aax9VaqYYlOQf6XV3cs8IH1"
RSA1 = ("AAAAB3NzaC1yc2EAAAADAQABAAABAQCh7Ae2jB5+Bg8ICzbEHThPbVIrGNttDSxuHajgcOsICpBX4MQBg81LGI5AUe47e9Q+"
        "evnoHHKmICU8vC+Rbv2mV6BVD+DwwrBGEA59jCn+uy0UKUlxHpLq0At1VyRwCgrZv6MMzdkcr23jl5WMF6R7PvxTEvhRz9x"
        "MiyS9W9Ct7N3jjD4VmFu7s8dFAw1Bu0DkMJxZ/06LRRVoGSgpW/pQm/Fdfl07jh4PqMj/+e9zwSh8Yy8GjQ/cAn/z1LeR61"
        "GMZ0sPSTz7U7huCSo0B79wWvCp2YyTiI17BtXSQgsIktnvnEnGybNlrhiHw16OWyK9ijCBNm0uGHbzhqPVVC8J")
EC1 = ("AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBHJOHKx5uy/v7gxW39r35Y0FLKOBMIUSXxxnQqsNIwOKy"
       "gYjupBz3dhliTYh747FsfHIrXFX5yD9Tj10sYZz2Wk=")
FP_ED2 = "7a:9f:ad:aa:40:ed:e4:ba:39:a9:a3:ed:4b:7a:37:58:24:5a:77:14:dd:5b:eb:e7:c9:e8:0c:0f:d4:36:36:eb"
# Key files served as salt://ssh/... (ssh.json's file_roots only).
SSH_FILE_ROOTS = {
    "base/ssh/keys.pub": f"ssh-ed25519 {ED1} a\nssh-rsa {RSA1} r\n",
    "base/ssh/opts.pub": f'no-pty,command="/bin/true" ssh-ed25519 {ED2} b\n',
    "base/ssh/bad.pub": "not a key\n",
}
SA, SK = "ssh_auth", "ssh_known_hosts"
AK = "@TMP@/ak"


def auth(fun, name, test=False, **args):
    step = {"state": f"{SA}.{fun}", "args": {"name": name, "user": "root", "config": AK, **args}}
    if test:
        step["test"] = True
    return step


AK_CAT = "cat @TMP@/ak; stat -c %a @TMP@/ak"
SSH_AUTH_CASES = {
    "ssh_auth_present": [
        auth("present", ED1, True, enc="ssh-ed25519", comment="a", config="@TMP@/sub/ak"),
        auth("present", ED1, enc="ssh-ed25519", comment="a", config="@TMP@/sub/ak"),
        {"check": "cat @TMP@/sub/ak; stat -c '%a %U' @TMP@/sub @TMP@/sub/ak"},
        auth("present", ED1, enc="ssh-ed25519", comment="a", config="@TMP@/sub/ak"),
        auth("present", ED1, True, enc="ssh-ed25519", comment="a", config="@TMP@/sub/ak"),
        auth("present", ED1, True, enc="ssh-ed25519", comment="a2", config="@TMP@/sub/ak"),
        auth("present", ED1, enc="ssh-ed25519", comment="a2", config="@TMP@/sub/ak"),
        {"check": "cat @TMP@/sub/ak"},
        auth("present", ED1, True, enc="ed25519", comment="a2", config="@TMP@/sub/ak",
             options=["no-pty", 'command="/bin/true"']),
        auth("present", ED1, enc="ed25519", comment="a2", config="@TMP@/sub/ak",
             options=["no-pty", 'command="/bin/true"']),
        {"check": "cat @TMP@/sub/ak; stat -c %a @TMP@/sub/ak"},
        auth("present", ED1, enc="ed25519", comment="a2", config="@TMP@/sub/ak",
             options=["no-pty", 'command="/bin/true"']),
        # enc defaults to ssh-rsa: the same key body as another type
        auth("present", ED1, comment="a2", config="@TMP@/sub/ak"),
        {"check": "cat @TMP@/sub/ak"},
        # whole lines as the name: enc, key and comment (and options) from it
        auth("present", f"ssh-rsa {RSA1} r@host"),
        auth("present", f"ssh-rsa {RSA1} r@host"),
        auth("present", f"ssh-rsa {RSA1} r@host", True),
        auth("present", f'no-agent-forwarding,from="10.0.0.1" ssh-ed25519 {ED2} b c d'),
        auth("present", f'no-agent-forwarding,from="10.0.0.1" ssh-ed25519 {ED2} b c d'),
        auth("present", f'no-agent-forwarding,from="10.0.0.1" ssh-ed25519 {ED2} b c d', True),
        auth("present", f"ecdsa-sha2-nistp256 {EC1}", comment="ignored"),
        {"check": AK_CAT},
        # "KEY comment" as the name
        auth("present", f"{ED2} other comment", enc="ssh-ed25519"),
        auth("present", f"{ED2} other", True, enc="ssh-ed25519"),
        {"check": "cat @TMP@/ak"},
        auth("present", ED2, enc="ssh-ed25519", comment="other comment", fingerprint_hash_type="md5"),
        # a file without a trailing newline gets one before the new key
        {"sh": "printf '# keep me\\nssh-ed25519 %s x' " + ED1 + " > @TMP@/nonl"},
        auth("present", EC1, enc="ecdsa", comment="e", config="@TMP@/nonl"),
        {"check": "cat @TMP@/nonl"},
        auth("present", ED1, enc="ssh-ed25519", comment="y", config="@TMP@/nonl"),
        {"check": "cat @TMP@/nonl"},
    ],
    "ssh_auth_errors": [
        auth("present", "not base64!!", enc="ssh-ed25519"),
        auth("present", "@@@@", enc="ssh-ed25519"),
        auth("present", "@@@@", True, enc="ssh-ed25519"),
        auth("present", ED1, enc="foo"),
        auth("present", ED1, True, enc="foo"),
        auth("present", f"ssh-foo {ED1} x"),
        auth("present", ED1, enc="ssh-ed25519", fingerprint_hash_type="nope"),
        {"check": "ls @TMP@"},
        {"state": f"{SA}.present", "args": {"name": ED1, "user": "nosuchuser1", "enc": "ssh-ed25519",
                                            "config": AK}},
        {"state": f"{SA}.present", "args": {"name": ED1, "user": "nosuchuser1", "enc": "ssh-ed25519",
                                            "config": AK}, "test": True},
        {"state": f"{SA}.absent", "args": {"name": ED1, "user": "nosuchuser1", "config": AK}},
        auth("present", ED1, enc="ssh-ed25519", config="%x/ak"),
        auth("present", ED1, enc="ssh-ed25519", config="@TMP@/ak%"),
        auth("absent", ED1, enc="foo"),
        auth("absent", ED1, True, enc="foo"),
        {"state": f"{SA}.present", "args": {"name": ED1, "enc": "ssh-ed25519", "config": AK}},
        {"check": "ls @TMP@"},
    ],
    "ssh_auth_source": [
        auth("present", "keys", True, source="salt://ssh/keys.pub"),
        auth("present", "keys", source="salt://ssh/keys.pub"),
        {"check": AK_CAT},
        auth("present", "keys", source="salt://ssh/keys.pub"),
        auth("present", "keys", True, source="salt://ssh/keys.pub"),
        # a line with options goes through set_auth_key_from_file
        auth("present", "opts", True, source="salt://ssh/opts.pub"),
        auth("present", "opts", source="salt://ssh/opts.pub"),
        {"check": "cat @TMP@/ak"},
        auth("present", "keys", True, source="salt://ssh/keys.pub", options=["no-pty"]),
        auth("present", "keys", source="salt://ssh/keys.pub", options=["no-pty"]),
        {"check": "cat @TMP@/ak"},
        auth("present", "bad", source="salt://ssh/bad.pub"),
        auth("present", "bad", True, source="salt://ssh/bad.pub"),
        auth("present", "none", source="salt://ssh/none.pub"),
        auth("present", "none", True, source="salt://ssh/none.pub"),
        auth("absent", "keys", True, source="salt://ssh/keys.pub"),
        auth("absent", "keys", source="salt://ssh/keys.pub"),
        {"check": "cat @TMP@/ak"},
        auth("absent", "keys", source="salt://ssh/keys.pub"),
        auth("absent", "keys", True, source="salt://ssh/keys.pub"),
        auth("absent", "opts", source="salt://ssh/opts.pub"),
        {"check": AK_CAT},
        auth("absent", "bad", source="salt://ssh/bad.pub"),
        auth("absent", "bad", True, source="salt://ssh/bad.pub"),
        auth("absent", "none", source="salt://ssh/none.pub"),
    ],
    "ssh_auth_names": [
        {"high": {"keys": {SA: ["present", {"user": "root"}, {"config": AK}, {"enc": "ssh-ed25519"},
                                {"comment": "shared"}, {"options": ["no-pty"]},
                                {"names": [ED1, f"ssh-rsa {RSA1} r", f"{ED2} own"]}]}},
         "test": True},
        {"high": {"keys": {SA: ["present", {"user": "root"}, {"config": AK}, {"enc": "ssh-ed25519"},
                                {"comment": "shared"}, {"options": ["no-pty"]},
                                {"names": [ED1, f"ssh-rsa {RSA1} r", f"{ED2} own"]}]}}},
        {"check": AK_CAT},
        {"high": {"keys": {SA: ["present", {"user": "root"}, {"config": AK}, {"enc": "ssh-ed25519"},
                                {"comment": "shared"}, {"options": ["no-pty"]},
                                {"names": [ED1, f"ssh-rsa {RSA1} r", f"{ED2} own"]}]}}},
        # (`names` on ssh_auth.absent makes salt-call fail before any state
        # runs: "Passed invalid arguments: 'name_order' is an invalid keyword
        # argument for 'ssh_auth.absent'" -- absent takes no **kwargs -- so
        # the removals are three states here.)
        {"high": {ED1: {SA: ["absent", {"user": "root"}, {"config": AK}]},
                  f"ssh-rsa {RSA1} r": {SA: ["absent", {"user": "root"}, {"config": AK}]},
                  EC1: {SA: ["absent", {"user": "root"}, {"config": AK}]}}, "test": True},
        {"high": {ED1: {SA: ["absent", {"user": "root"}, {"config": AK}]},
                  f"ssh-rsa {RSA1} r": {SA: ["absent", {"user": "root"}, {"config": AK}]},
                  EC1: {SA: ["absent", {"user": "root"}, {"config": AK}]}}},
        {"check": AK_CAT},
    ],
    "ssh_auth_absent": [
        {"sh": f"printf '# comment line\\n\\nssh-ed25519 {ED1} a\\nno-pty ssh-rsa {RSA1} r\\n"
               f"ssh-ed25519 {ED2} b c\\nnot a key line\\n' > @TMP@/ak; chmod 640 @TMP@/ak"},
        auth("absent", ED1, True),
        auth("absent", ED1),
        {"check": AK_CAT},
        auth("absent", ED1),
        auth("absent", ED1, True),
        auth("absent", f"ssh-rsa {RSA1} r", True),
        auth("absent", f"ssh-rsa {RSA1} whatever"),
        {"check": AK_CAT},
        auth("absent", f"{ED2} b", True, enc="ssh-ed25519"),
        auth("absent", f"{ED2} b c", enc="ssh-ed25519"),
        {"check": AK_CAT},
        auth("absent", EC1, config="@TMP@/none"),
        auth("absent", EC1, True, config="@TMP@/none"),
        {"check": "ls @TMP@"},
    ],
    "ssh_auth_manage": [
        {"state": f"{SA}.manage", "args": {"name": "m", "user": "root", "config": AK, "enc": "ssh-ed25519",
                                           "ssh_keys": [ED1, f"ssh-rsa {RSA1} r"]}, "test": True},
        {"state": f"{SA}.manage", "args": {"name": "m", "user": "root", "config": AK, "enc": "ssh-ed25519",
                                           "ssh_keys": [ED1, f"ssh-rsa {RSA1} r"]}},
        {"check": AK_CAT},
        {"sh": f"echo 'ssh-ed25519 {ED2} b' >> @TMP@/ak"},
        # one key to remove in test mode: Salt walks a set, and only the
        # last removal's comment is kept
        {"state": f"{SA}.manage", "args": {"name": "m", "user": "root", "config": AK, "enc": "ssh-ed25519",
                                           "ssh_keys": [ED1, f"ssh-rsa {RSA1} r"]}, "test": True},
        {"state": f"{SA}.manage", "args": {"name": "m", "user": "root", "config": AK, "enc": "ssh-ed25519",
                                           "ssh_keys": [ED1, f"ssh-rsa {RSA1} r"]}},
        {"check": AK_CAT},
        {"state": f"{SA}.manage", "args": {"name": "m", "user": "root", "config": AK, "enc": "ssh-ed25519",
                                           "ssh_keys": [ED1, f"ssh-rsa {RSA1} r"]}},
        {"state": f"{SA}.manage", "args": {"name": "m", "user": "root", "config": AK, "enc": "ssh-ed25519",
                                           "ssh_keys": [ED1, f"ssh-rsa {RSA1} r"]}, "test": True},
        {"state": f"{SA}.manage", "args": {"name": "m", "user": "root", "config": AK, "enc": "ssh-ed25519",
                                           "comment": "c", "ssh_keys": [f"{ED1} a", EC1]}},
        {"check": AK_CAT},
        {"state": f"{SA}.manage", "args": {"name": "m", "user": "root", "config": AK, "ssh_keys": []}},
        {"check": AK_CAT},
    ],
}


def known(fun, name, test=False, **args):
    step = {"state": f"{SK}.{fun}", "args": {"name": name, "user": "root", "config": "@TMP@/kh", **args}}
    if test:
        step["test"] = True
    return step


def plain(name, test=False, **args):
    return known("present", name, test, hash_known_hosts=False, **args)


# A hashed known_hosts line starts |1|salt|hash, the salt random: the
# checks print it as <hashed>, and where a hashed name shows in a state's
# return the recorder writes <hashed> too and marks the step
# "masked": "hashed" (see mask_hashed), for the replay to do the same.
KH_CAT = "sed -E 's/\\|1\\|[^| ]+\\|[^ ]+/<hashed>/' @TMP@/kh; stat -c %a @TMP@/kh"
SSH_KNOWN_CASES = {
    "ssh_known_hosts_plain": [
        plain("host1", True, key=ED1, enc="ssh-ed25519"),
        plain("host1", key=ED1, enc="ssh-ed25519"),
        {"check": KH_CAT + "; ls @TMP@"},
        plain("host1", key=ED1, enc="ssh-ed25519"),
        plain("host1", True, key=ED1, enc="ssh-ed25519"),
        plain("host1", True, key=ED2, enc="ssh-ed25519"),
        plain("host1", key=ED2, enc="ssh-ed25519"),
        {"check": KH_CAT},
        # another type for the same host: a second line
        plain("host1", key=RSA1, enc="ssh-rsa"),
        {"check": KH_CAT},
        plain("host1", key=RSA1, enc="ssh-rsa"),
        plain("host1", key=ED2, enc="ssh-ed25519", port=22),
        # fingerprint alone, already stored: no lookup
        plain("host1", fingerprint=FP_ED2),
        plain("host1", True, fingerprint=FP_ED2),
        plain("host1", True, fingerprint=FP_ED2, fingerprint_hash_type="sha256"),
        plain("host1", True, key=ED2, enc="ssh-ed25519", fingerprint=FP_ED2),
        # fingerprint and key: the key is written, the fingerprint unchecked
        plain("host2", key=ED1, enc="ssh-ed25519", fingerprint=FP_ED2),
        plain("host2", key=ED1, enc="ssh-ed25519", fingerprint=FP_ED2),
        {"check": KH_CAT},
        # another port: [host]:port
        plain("host1", True, key=ED1, enc="ssh-ed25519", port=2222),
        plain("host1", key=ED1, enc="ssh-ed25519", port=2222),
        {"check": KH_CAT},
        plain("host1", key=ED1, enc="ssh-ed25519", port=2222),
        plain("host1", True, key=ED1, enc="ssh-ed25519", port=2222),
        known("present", "host1", key=ED1, enc="ssh-ed25519", port=2222),
        known("present", "host1", True, key=ED1, enc="ssh-ed25519", port=2222),
        # a key without enc (test mode refuses it, a real run writes the
        # type "None" after dropping every line of the host), in a file of
        # its own: ssh-keygen -R then refuses the whole file
        plain("host3", True, key=ED1, config="@TMP@/kh3"),
        plain("host3", key=ED1, enc="ssh-ed25519", config="@TMP@/kh3"),
        plain("host7", key=ED2, enc="ssh-ed25519", config="@TMP@/kh3"),
        plain("host3", key=RSA1, config="@TMP@/kh3"),
        {"check": "cat @TMP@/kh3"},
        known("absent", "host7", config="@TMP@/kh3"),
        {"check": "cat @TMP@/kh3"},
        # a user that does not exist, with an absolute config
        {"state": f"{SK}.present", "args": {"name": "host8", "user": "nosuchuser1", "key": ED1,
                                            "enc": "ssh-ed25519", "hash_known_hosts": False,
                                            "config": "@TMP@/kh4"}},
        # (Salt fails at the chown after the line is written, so the file
        # keeps the umask's mode: not checked)
        {"check": "cat @TMP@/kh4"},
        {"state": f"{SK}.absent", "args": {"name": "host8", "user": "nosuchuser1", "config": "@TMP@/kh4"}},
        {"check": "cat @TMP@/kh4; ls @TMP@"},
        {"state": f"{SK}.absent", "args": {"name": "host8", "user": "nosuchuser1",
                                           "config": "@TMP@/kh4"}, "test": True},
        # without a user: an absolute config is needed
        {"state": f"{SK}.present", "args": {"name": "host4", "key": ED1, "enc": "ssh-ed25519",
                                            "hash_known_hosts": False, "config": "kh"}},
        {"state": f"{SK}.present", "args": {"name": "host4", "key": ED1, "enc": "ssh-ed25519",
                                            "hash_known_hosts": False, "config": "@TMP@/kh2"}},
        {"check": "cat @TMP@/kh2; stat -c %a @TMP@/kh2"},
        {"state": f"{SK}.absent", "args": {"name": "host4", "config": "kh"}},
        plain("host5", key=ED1, enc="ssh-ed25519", config="@TMP@/sub/kh"),
        {"check": "cat @TMP@/sub/kh; stat -c %a @TMP@/sub @TMP@/sub/kh"},
        {"sh": "chmod 644 @TMP@/kh"},
        plain("host6", key=ED1, enc="ssh-ed25519"),
        {"check": KH_CAT},
        # absent
        known("absent", "host1", True),
        known("absent", "host1"),
        {"check": KH_CAT + "; ls @TMP@"},
        known("absent", "host1"),
        known("absent", "host1", True),
        known("absent", "[host1]:2222", True),
        known("absent", "[host1]:2222"),
        {"check": KH_CAT},
        known("absent", "host1", config="@TMP@/none"),
        known("absent", "host1", True, config="@TMP@/none"),
    ],
    "ssh_known_hosts_hashed": [
        known("present", "host1", True, key=ED1, enc="ssh-ed25519"),
        known("present", "host1", key=ED1, enc="ssh-ed25519"),
        {"check": KH_CAT + "; ls @TMP@; ssh-keygen -F host1 -f @TMP@/kh | grep -c ssh-ed25519"},
        known("present", "host1", key=ED1, enc="ssh-ed25519"),
        known("present", "host1", True, key=ED1, enc="ssh-ed25519"),
        known("present", "host1", True, key=ED2, enc="ssh-ed25519"),
        known("present", "host1", key=ED2, enc="ssh-ed25519"),
        {"check": KH_CAT},
        known("present", "host2", key=RSA1, enc="ssh-rsa", hash_known_hosts=True),
        {"check": KH_CAT},
        known("present", "host1", fingerprint=FP_ED2),
        # a plain entry added to a hashed file
        plain("host3", key=ED1, enc="ssh-ed25519"),
        {"check": KH_CAT},
        known("absent", "host1", True),
        known("absent", "host1"),
        {"check": KH_CAT},
        known("absent", "host1"),
    ],
}
SSH_CASES = {**SSH_AUTH_CASES, **SSH_KNOWN_CASES}
HASHED = re.compile(r"\|1\|[A-Za-z0-9+/=]+\|[A-Za-z0-9+/=]+")


def mask_hashed(step):
    """A hashed known_hosts name (random salt) in a return: <hashed>."""
    if "expect" in step:
        text = json.dumps(step["expect"])
        masked = HASHED.sub("<hashed>", text)
        if masked != text:
            step["expect"] = json.loads(masked)
            step["masked"] = "hashed"
    return step


def mask_pids(changes):
    """Process ids in a state's changes (cmd.run's, a returned cmd.run_all's)."""
    if isinstance(changes, dict):
        for k, v in changes.items():
            if k == "pid" and isinstance(v, int) and not isinstance(v, bool) and v > 0:
                changes[k] = "<pid>"
            else:
                mask_pids(v)
    return changes


def clean(ret):
    """A state's return less what changes from run to run."""
    for k in ("start_time", "duration", "__run_num__", "__sls__", "__id__"):
        ret.pop(k, None)
    mask_pids(ret.get("changes"))
    return ret


def salt_call(salt_call, work, tmp, high, test):
    cmd = [salt_call, "-c", os.path.join(work, "etc"), "--local", "--out", "json",
           "state.high", json.dumps(high)]
    if test:
        cmd.append("test=True")
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
    try:
        return json.loads(out.stdout)["local"]
    except (ValueError, KeyError):
        sys.exit(f"salt-call failed: {out.stdout}\n{out.stderr}")


def run_step(step, salt, work, tmp):
    etc = os.path.join(work, "etc")
    step = dict(step)
    if "sh" in step:
        subprocess.run(["bash", "-c", subst(step["sh"], tmp, etc)], check=True)
    elif "check" in step:
        out = subprocess.run(["bash", "-c", subst(step["check"], tmp, etc)],
                             capture_output=True, text=True)
        step["out"] = unsubst(out.stdout, tmp, etc)
    elif "high" in step:
        ret = salt_call(salt, work, tmp, subst(step["high"], tmp, etc), step.get("test"))
        if isinstance(ret, dict):
            for r in ret.values():
                for k in ("start_time", "duration"):
                    r.pop(k, None)
                mask_pids(r.get("changes"))
        step["expect"] = unsubst(ret, tmp, etc)
    else:
        mod, fun = step["state"].split(".")
        args = subst(step["args"], tmp, etc)
        high = {"probe": {mod: [fun] + [{k: v} for k, v in args.items()]}}
        ret = salt_call(salt, work, tmp, high, step.get("test"))
        (ret,) = ret.values()
        step["expect"] = unsubst(clean(ret), tmp, etc)
    return step


# The scenario sets: the file each is kept in, and its cases.
SETS = [
    ("file.json", FILE_CASES),
    ("cmd.json", CMD_CASES),
    ("module.json", MODULE_CASES),
    ("grains.json", GRAINS_CASES),
    ("git.json", GIT_CASES),
    ("pip.json", PIP_CASES),
    ("ssh.json", SSH_CASES),
]
# Files a set's scenarios serve beyond FILE_ROOTS (written with the others,
# named in that set's file_roots only).
EXTRA_ROOTS = {"ssh.json": SSH_FILE_ROOTS}


def main():
    salt, work = sys.argv[1], os.path.abspath(sys.argv[2])
    only = set(sys.argv[3:])
    shutil.rmtree(work, ignore_errors=True)
    roots = os.path.join(work, "file_roots")
    for rel, text in {**FILE_ROOTS, **SSH_FILE_ROOTS}.items():
        path = os.path.join(roots, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
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
    for out_name, cases in SETS:
        if only and not only & set(cases):
            continue
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
            grains_file = os.path.join(work, "etc", "grains")
            if os.path.exists(grains_file):
                os.remove(grains_file)
            recorded[case] = [run_step(step, salt, work, tmp) for step in steps]
            if cases is SSH_CASES:
                recorded[case] = [mask_hashed(step) for step in recorded[case]]
            print(case, len(recorded[case]), file=sys.stderr)
        served = {**FILE_ROOTS, **EXTRA_ROOTS.get(out_name, {})}
        data = {"file_roots": served, "pillar": PILLAR, "grains": GRAINS, "cases": recorded}
        with open(out_path, "w") as f:
            json.dump(data, f, indent=1, ensure_ascii=False)
            f.write("\n")


if __name__ == "__main__":
    main()
