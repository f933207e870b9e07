#!/usr/bin/env python3
# The recorder of the network scenarios (net_cases.py: http sources, archive,
# pkgrepo), kept beside record.py as the i31-net branch wrote it; folding the
# recorders into one is left to do.
"""Record what Salt 3007.8 answers for the file/cmd state scenarios below.

usage: record.py SALT_CALL WORKDIR [CASE...]
  (e.g. /tmp/saltvenv/bin/salt-call /tmp/stm-rec)
Writes file.json and cmd.json next to this script; with CASE names only
those cases are recorded again, the others are kept. Each scenario runs in its
own folder (written @TMP@ in the scenarios and in the answers); `sh` steps
prepare or change files, `check` steps record what a shell command prints
afterwards (contents, modes) so the tests can compare real effects too.
"""
import json, os, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import net_cases  # noqa: E402  (scenarios over http and archives)

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


# Placeholders besides @TMP@ (the case's folder): the case's folder served
# over http / https (trusted through ca_bundle) / https (untrusted) / ftp,
# filled in by serve() for each case.
URLS = {}


def subst(obj, tmp):
    if isinstance(obj, dict):
        return {k: subst(v, tmp) for k, v in obj.items()}
    if isinstance(obj, list):
        return [subst(v, tmp) for v in obj]
    if isinstance(obj, str):
        for k, v in URLS.items():
            obj = obj.replace(k, v)
        return obj.replace("@TMP@", tmp)
    return obj


def unsubst(obj, tmp):
    if isinstance(obj, dict):
        return {unsubst(k, tmp): unsubst(v, tmp) for k, v in obj.items()}
    if isinstance(obj, list):
        return [unsubst(v, tmp) for v in obj]
    if isinstance(obj, str):
        for k, v in URLS.items():
            obj = obj.replace(v, k)
        return obj.replace(tmp, "@TMP@")
    return obj


def _import_pyftpdlib(salt_call):
    """pyftpdlib, from this Python or else from the Salt venv's (installed
    there with `pip install pyftpdlib`): its site-packages is appended to
    sys.path, after this Python's own."""
    try:
        import pyftpdlib  # noqa: F401
    except ImportError:
        with open(salt_call) as f:
            interp = f.readline()[2:].strip().split()[0]
        out = subprocess.run([interp, "-c", "import os, pyftpdlib; "
                              "print(os.path.dirname(os.path.dirname(pyftpdlib.__file__)))"],
                             check=True, capture_output=True, text=True)
        sys.path.append(out.stdout.strip())
    # Quiet: with a handler of its own pyftpdlib does not set up logging.
    import logging
    log = logging.getLogger("pyftpdlib")
    log.addHandler(logging.NullHandler())
    log.propagate = False


def serve_ftp(root, salt_call):
    """Serve root over ftp on 127.0.0.1 (anonymous, read only, passive
    mode) in a daemon thread; returns its port. Salt's fileclient sends
    `RETR <url path without the leading />`, so ftp://host:port/<case>/x
    is root/<case>/x."""
    import threading
    _import_pyftpdlib(salt_call)
    from pyftpdlib.authorizers import DummyAuthorizer
    from pyftpdlib.handlers import FTPHandler
    from pyftpdlib.servers import FTPServer

    class Handler(FTPHandler):
        # pyftpdlib answers a missing file with strerror ("550 No such file
        # or directory."); vsftpd, and brine's test server, say "550 Failed
        # to open file.", which Salt puts in its comment.
        def ftp_RETR(self, file):
            if not os.path.isfile(file):
                self.respond("550 Failed to open file.")
                return None
            return super().ftp_RETR(file)

    auth = DummyAuthorizer()
    auth.add_anonymous(root)
    Handler.authorizer = auth
    Handler.banner = "ready."
    srv = FTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv.address[1]


def serve(work, salt_call):
    """Serve work/cases on 127.0.0.1: http, https with a certificate the
    minion trusts (ca_bundle), https with one it does not, and ftp
    (anonymous, passive; see serve_ftp). Daemon threads: they end with
    this process."""
    import http.server, ssl, threading, functools
    root = os.path.join(work, "cases")
    os.makedirs(root, exist_ok=True)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a, **k):
            pass

        # Python's server says "File not found" where web servers (and
        # brine's test server) give the standard phrase, "Not Found".
        def send_error(self, code, message=None, explain=None):
            super().send_error(code, None, explain)

    handler = functools.partial(Handler, directory=root)
    tls = os.path.join(work, "tls")
    os.makedirs(tls, exist_ok=True)
    ports = {}
    for key, cert in (("@URL@", None), ("@SURL@", "good"), ("@BADURL@", "bad")):
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        scheme = "http"
        if cert:
            crt, pem = os.path.join(tls, cert + ".crt"), os.path.join(tls, cert + ".key")
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                            "-keyout", pem, "-out", crt, "-days", "2", "-subj", "/CN=127.0.0.1",
                            "-addext", "subjectAltName=IP:127.0.0.1"],
                           check=True, capture_output=True)
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(crt, pem)
            srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
            scheme = "https"
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        ports[key] = "%s://127.0.0.1:%d" % (scheme, srv.server_address[1])
    ports["@FTPURL@"] = "ftp://127.0.0.1:%d" % serve_ftp(root, salt_call)
    return ports, os.path.join(tls, "good.crt")


def main():
    salt_call, work = sys.argv[1], os.path.abspath(sys.argv[2])
    only = set(sys.argv[3:])
    shutil.rmtree(work, ignore_errors=True)
    roots = os.path.join(work, "file_roots")
    for rel, text in FILE_ROOTS.items():
        path = os.path.join(roots, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    os.makedirs(os.path.join(work, "pillar"))
    with open(os.path.join(work, "pillar", "top.sls"), "w") as f:
        f.write("base:\n  '*': [data]\n")
    with open(os.path.join(work, "pillar", "data.sls"), "w") as f:
        json.dump(PILLAR, f)
    for rel, text in net_cases.EXTRA_ROOTS.items():
        path = os.path.join(roots, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    ports, ca_bundle = serve(work, salt_call)
    os.makedirs(os.path.join(work, "etc"))
    conf = {
        "ca_bundle": ca_bundle,
        "id": "m1", "file_client": "local", "log_level": "quiet",
        "root_dir": os.path.join(work, "root"), "cachedir": os.path.join(work, "cache"),
        "file_roots": {"base": [os.path.join(roots, "base")], "dev": [os.path.join(roots, "dev")]},
        "pillar_roots": {"base": [os.path.join(work, "pillar")]},
        "grains": GRAINS,
    }
    with open(os.path.join(work, "etc", "minion"), "w") as f:
        json.dump(conf, f)
    # The same minion as a RedHat one (pkgrepo on dnf/yum).
    os.makedirs(os.path.join(work, "etc-redhat"))
    with open(os.path.join(work, "etc-redhat", "minion"), "w") as f:
        grains = dict(GRAINS, os_family="RedHat", os="Rocky", osmajorrelease=9)
        json.dump(dict(conf, grains=grains), f)
    sets = (("file.json", FILE_CASES), ("cmd.json", CMD_CASES),
            ("net.json", net_cases.NET_CASES), ("archive.json", net_cases.ARCHIVE_CASES),
            ("pkgrepo.json", net_cases.PKGREPO_CASES))
    for out_name, cases in sets:
        if only and not any(c in only for c in cases):
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
            URLS.clear()
            URLS.update({k: v + "/" + case for k, v in ports.items()})
            # Salt's cache of downloads: extrn_files/<saltenv>/<host><port>/.
            for k, v in ports.items():
                URLS[k.replace("URL@", "NETLOC@")] = v.split("://")[1].replace(":", "")
            URLS["@CACHE@"] = os.path.join(work, "root") + os.path.join(work, "cache")
            done = []
            for step in steps:
                step = dict(step)
                if "sh" in step:
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
                    if mod == "pkgrepo" and case.startswith("yum_"):
                        # A RedHat minion over a scratch /etc (see yumns.sh).
                        cmd[cmd.index("-c") + 1] = os.path.join(work, "etc-redhat")
                        cmd = [os.path.join(HERE, "yumns.sh"), os.path.join(tmp, "root")] + cmd
                    elif mod == "pkgrepo":
                        # A scratch /etc/apt (see aptns.sh).
                        cmd = [os.path.join(HERE, "aptns.sh"), os.path.join(tmp, "root")] + cmd
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
        file_roots = dict(FILE_ROOTS, **net_cases.EXTRA_ROOTS) if out_name in ("net.json", "archive.json", "pkgrepo.json") else FILE_ROOTS
        data = {"file_roots": file_roots, "pillar": PILLAR, "grains": GRAINS, "cases": recorded}
        if out_name in ("net.json", "archive.json", "pkgrepo.json"):
            data["served"] = True
        with open(out_path, "w") as f:
            json.dump(data, f, indent=1, ensure_ascii=False)
            f.write("\n")


if __name__ == "__main__":
    main()
