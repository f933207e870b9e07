"""Scenarios over the network and archives, recorded by record_net.py.

file.managed with http(s) sources (net.json) and archive.extracted
(archive.json). record_net.py serves each case's folder over http on
127.0.0.1 (written @URL@ in scenarios and answers), and over https with a
certificate the minion trusts through `ca_bundle` (@SURL@) and with one it
does not (@BADURL@), and over ftp (@FTPURL@: anonymous, passive; a
missing file is "550 Failed to open file.", vsftpd's words). @NETLOC@ and
@FTPNETLOC@ are the http and ftp servers' host and port as Salt's download
cache names its folder, @CACHE@ the minion's cachedir. Hash files are made by `sh` steps (sha256sum), so no
digest of a generated archive is written here.
"""
import hashlib

M = "file.managed"
A = "archive.extracted"

HELLO = "hello from the web\n"
HELLO_MD5 = hashlib.md5(HELLO.encode()).hexdigest()
HELLO_SHA256 = hashlib.sha256(HELLO.encode()).hexdigest()
WRONG_SHA256 = "0" * 64
TWO_SHA256 = hashlib.sha256(b"second\n").hexdigest()
THREE_SHA256 = hashlib.sha256(b"third\n").hexdigest()
# What remote_ftp rewrites www/hello.txt to.
HELLO2 = "changed over ftp\n"
HELLO2_SHA256 = hashlib.sha256(HELLO2.encode()).hexdigest()

# Writes @TMP@/www/hello.txt (and a second file) plus hash files.
WWW = (
    "mkdir -p @TMP@/www && printf 'hello from the web\\n' > @TMP@/www/hello.txt"
    " && printf 'second\\n' > @TMP@/www/two.txt"
    " && (cd @TMP@/www && sha256sum hello.txt two.txt > SHA256SUMS && md5sum two.txt hello.txt > MD5SUMS)"
)

NET_CASES = {
    "remote_managed": [
        {"sh": WWW},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@URL@/www/hello.txt"}},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@URL@/www/hello.txt"}, "test": True},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@URL@/www/hello.txt", "source_hash": HELLO_SHA256}, "test": True},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@URL@/www/hello.txt", "source_hash": HELLO_SHA256}},
        {"check": "stat -c %a @TMP@/a; cat @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@URL@/www/hello.txt", "source_hash": HELLO_SHA256}},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@URL@/www/hello.txt", "source_hash": HELLO_SHA256}, "test": True},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@URL@/www/hello.txt", "source_hash": "md5=" + HELLO_MD5, "mode": "0600"}},
        {"check": "stat -c %a @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/b", "source": "@URL@/www/hello.txt", "source_hash": WRONG_SHA256}},
        {"state": M, "args": {"name": "@TMP@/b", "source": "@URL@/www/hello.txt", "source_hash": WRONG_SHA256}, "test": True},
        {"check": "ls @TMP@"},
        {"sh": "printf 'old\\n' > @TMP@/c"},
        {"state": M, "args": {"name": "@TMP@/c", "source": "@URL@/www/hello.txt", "source_hash": WRONG_SHA256}},
        {"state": M, "args": {"name": "@TMP@/c", "source": "@URL@/www/hello.txt", "skip_verify": True}, "test": True},
        {"state": M, "args": {"name": "@TMP@/c", "source": "@URL@/www/hello.txt", "skip_verify": True}},
        {"state": M, "args": {"name": "@TMP@/c", "source": "@URL@/www/hello.txt", "skip_verify": True}},
        {"check": "cat @TMP@/c"},
    ],
    "remote_hash_files": [
        {"sh": WWW},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@URL@/www/hello.txt", "source_hash": "@URL@/www/SHA256SUMS"}},
        {"check": "cat @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/b", "source": "@URL@/www/two.txt", "source_hash": "@URL@/www/MD5SUMS"}},
        {"check": "cat @TMP@/b"},
        {"state": M, "args": {"name": "@TMP@/b", "source": "@URL@/www/two.txt", "source_hash": "@URL@/www/MD5SUMS"}},
        {"state": M, "args": {"name": "@TMP@/c", "source": "@URL@/www/hello.txt", "source_hash": "@URL@/www/MD5SUMS", "source_hash_name": "two.txt"}},
        {"state": M, "args": {"name": "@TMP@/d", "source": "@URL@/www/hello.txt", "source_hash": "@URL@/www/NOSUCH"}},
        {"state": M, "args": {"name": "@TMP@/d", "source": "@URL@/www/hello.txt", "source_hash": "file://@TMP@/www/SHA256SUMS"}},
        {"state": M, "args": {"name": "@TMP@/e", "source": "@URL@/www/hello.txt", "source_hash": "@TMP@/www/MD5SUMS"}},
        {"state": M, "args": {"name": "@TMP@/f", "source": "@URL@/www/hello.txt", "source_hash": "salt://net/hashes.txt"}},
        {"check": "ls @TMP@"},
    ],
    # ftp:// sources: Salt's fileclient logs in anonymously and sends
    # `RETR <case>/www/...` (the url's path without its leading /).
    "remote_ftp": [
        {"sh": WWW},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@FTPURL@/www/hello.txt", "source_hash": HELLO_SHA256}, "test": True},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@FTPURL@/www/hello.txt", "source_hash": HELLO_SHA256}},
        {"check": "stat -c %a @TMP@/a; cat @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@FTPURL@/www/hello.txt", "source_hash": HELLO_SHA256}},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@FTPURL@/www/hello.txt", "source_hash": HELLO_SHA256}, "test": True},
        {"sh": "printf 'changed over ftp\\n' > @TMP@/www/hello.txt"},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@FTPURL@/www/hello.txt", "source_hash": HELLO2_SHA256}, "test": True},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@FTPURL@/www/hello.txt", "source_hash": HELLO2_SHA256}},
        {"check": "cat @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/b", "source": "@FTPURL@/www/hello.txt", "skip_verify": True}},
        {"check": "cat @TMP@/b"},
        {"state": M, "args": {"name": "@TMP@/c", "source": "@FTPURL@/www/hello.txt", "source_hash": WRONG_SHA256}},
        {"state": M, "args": {"name": "@TMP@/d", "source": "@FTPURL@/www/two.txt", "source_hash": "@FTPURL@/www/SHA256SUMS"}},
        {"check": "cat @TMP@/d"},
        {"state": M, "args": {"name": "@TMP@/e", "source": "@FTPURL@/www/nope.txt", "skip_verify": True}},
        {"state": M, "args": {"name": "@TMP@/e", "source": "@FTPURL@/www/nope.txt", "skip_verify": True}, "test": True},
        {"state": M, "args": {"name": "@TMP@/f", "source": ["@FTPURL@/www/nope.txt", "@FTPURL@/www/hello.txt"], "skip_verify": True}},
        {"check": "cat @TMP@/f; ls @TMP@"},
        # file.cached: two.txt is in the cache already (step d), three.txt not.
        {"state": "file.cached", "args": {"name": "@FTPURL@/www/two.txt", "source_hash": TWO_SHA256}},
        {"sh": "printf 'third\\n' > @TMP@/www/three.txt"},
        {"state": "file.cached", "args": {"name": "@FTPURL@/www/three.txt", "source_hash": THREE_SHA256}, "test": True},
        {"state": "file.cached", "args": {"name": "@FTPURL@/www/three.txt", "source_hash": THREE_SHA256}},
        {"check": "cat @CACHE@/extrn_files/base/@FTPNETLOC@/remote_ftp/www/three.txt"},
        {"state": "file.cached", "args": {"name": "@FTPURL@/www/three.txt", "source_hash": THREE_SHA256}},
        {"state": "file.cached", "args": {"name": "@FTPURL@/www/three.txt", "source_hash": WRONG_SHA256}},
        {"state": "file.cached", "args": {"name": "@FTPURL@/www/nope.txt"}},
        {"state": "file.cached", "args": {"name": "@FTPURL@/www/nope.txt", "skip_verify": True}},
        # A failed RETR leaves an empty file in Salt's cache.
        {"check": "cd @CACHE@/extrn_files/base/@FTPNETLOC@/remote_ftp/www && stat -c '%n %s' * | sort"},
    ],
    "remote_errors": [
        {"sh": WWW},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@URL@/www/nosuch.txt", "skip_verify": True}},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@URL@/www/nosuch.txt", "source_hash": HELLO_SHA256}},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@URL@/www/nosuch.txt", "skip_verify": True}, "test": True},
        {"state": M, "args": {"name": "@TMP@/a", "source": ["@URL@/www/nosuch.txt", "@URL@/www/two.txt"], "skip_verify": True}},
        {"check": "cat @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/b", "source": ["@URL@/www/nosuch.txt", "salt://plain.txt"]}},
        {"check": "cat @TMP@/b"},
        {"state": M, "args": {"name": "@TMP@/c", "source": ["@URL@/www/nosuch.txt", "@URL@/www/nosuch2"], "skip_verify": True}},
        {"state": M, "args": {"name": "@TMP@/d", "source": "@URL@/www/hello.txt", "template": "jinja", "skip_verify": True}},
        {"check": "ls @TMP@"},
    ],
    "remote_tls": [
        {"sh": WWW},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@SURL@/www/hello.txt", "source_hash": HELLO_SHA256}},
        {"check": "cat @TMP@/a"},
        {"state": M, "args": {"name": "@TMP@/b", "source": "@BADURL@/www/hello.txt", "source_hash": HELLO_SHA256, "verify_ssl": False}},
        {"check": "cat @TMP@/b"},
        {"state": M, "args": {"name": "@TMP@/c", "source": "@BADURL@/www/hello.txt", "skip_verify": True, "verify_ssl": False}},
        {"check": "ls @TMP@"},
    ],
    # The TLS library's words differ (Python's ssl, rustls): the replay
    # compares the comment up to `mask_after`.
    "remote_tls_refused": [
        {"sh": WWW},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@BADURL@/www/hello.txt", "skip_verify": True}, "mask_after": "Error: "},
        {"state": M, "args": {"name": "@TMP@/a", "source": "@BADURL@/www/hello.txt", "source_hash": "@BADURL@/www/SHA256SUMS"}, "mask_after": "Error: "},
        {"check": "ls @TMP@"},
    ],
}

# A deterministic tarball of @TMP@/src/<top> as @TMP@/www/<file>.
def _tar(top, out, compress):
    return (
        "tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - -C @TMP@/src "
        + top + " | " + compress + " > @TMP@/www/" + out
    )

SRC = (
    "mkdir -p @TMP@/src/app/sub @TMP@/www && printf 'a\\n' > @TMP@/src/app/a.txt"
    " && printf 'b\\n' > @TMP@/src/app/sub/b.txt && printf 'loose\\n' > @TMP@/src/loose.txt"
    " && " + _tar("app", "app.tar.gz", "gzip -n")
    + " && " + _tar("app", "app.tar.bz2", "bzip2")
    + " && " + _tar("app", "app.tar.xz", "xz")
    + " && " + _tar("app", "app.tar", "cat")
    + " && " + _tar("app loose.txt", "bomb.tar.gz", "gzip -n")
    # zip keeps modification times: fixed ones make the same bytes each time.
    + " && find @TMP@/src -exec touch -h -t 202001010000 {} + && (cd @TMP@/src && TZ=UTC zip -qX -r @TMP@/www/app.zip app && TZ=UTC zip -qX @TMP@/www/bomb.zip loose.txt app/a.txt)"
    + " && (cd @TMP@/www && sha256sum app.tar.gz app.zip > SHA256SUMS)"
)

ARCHIVE_CASES = {
    "extract_tar": [
        {"sh": SRC},
        {"state": A, "args": {"name": "@TMP@/d1", "source": "@TMP@/www/app.tar.gz"}, "test": True},
        {"state": A, "args": {"name": "@TMP@/d1", "source": "@TMP@/www/app.tar.gz"}},
        {"check": "cd @TMP@/d1 && find . | sort && cat app/a.txt app/sub/b.txt && stat -c %a app app/a.txt"},
        {"state": A, "args": {"name": "@TMP@/d1", "source": "@TMP@/www/app.tar.gz"}},
        {"state": A, "args": {"name": "@TMP@/d1", "source": "@TMP@/www/app.tar.gz"}, "test": True},
        {"sh": "rm @TMP@/d1/app/sub/b.txt"},
        {"state": A, "args": {"name": "@TMP@/d1", "source": "@TMP@/www/app.tar.gz"}, "test": True},
        {"state": A, "args": {"name": "@TMP@/d1", "source": "@TMP@/www/app.tar.gz"}},
        {"state": A, "args": {"name": "@TMP@/d1/", "source": "@TMP@/www/app.tar.gz", "overwrite": True}},
        {"state": A, "args": {"name": "@TMP@/d2", "source": "file://@TMP@/www/app.tar.bz2"}},
        {"state": A, "args": {"name": "@TMP@/d3", "source": "@TMP@/www/app.tar.xz"}},
        {"state": A, "args": {"name": "@TMP@/d4", "source": "@TMP@/www/app.tar"}},
        {"state": A, "args": {"name": "@TMP@/d5", "source": "@TMP@/www/app.tar.gz", "trim_output": 2}},
        {"check": "cd @TMP@ && find d2 d3 d4 d5 | sort"},
    ],
    "extract_zip": [
        {"sh": SRC},
        {"state": A, "args": {"name": "@TMP@/z1", "source": "@TMP@/www/app.zip"}, "test": True},
        {"state": A, "args": {"name": "@TMP@/z1", "source": "@TMP@/www/app.zip"}},
        {"check": "cd @TMP@/z1 && find . | sort && cat app/a.txt"},
        {"state": A, "args": {"name": "@TMP@/z1", "source": "@TMP@/www/app.zip"}},
        {"state": A, "args": {"name": "@TMP@/z2", "source": "@TMP@/www/bomb.zip"}},
        {"state": A, "args": {"name": "@TMP@/z2", "source": "@TMP@/www/bomb.zip", "enforce_toplevel": False}},
        {"check": "cd @TMP@/z2 && find . | sort"},
    ],
    "extract_checks": [
        {"sh": SRC},
        {"state": A, "args": {"name": "relative/dir", "source": "@TMP@/www/app.tar.gz"}},
        {"state": A, "args": {"name": "@TMP@/e1", "source": "@TMP@/www/nosuch.tar.gz"}},
        {"state": A, "args": {"name": "@TMP@/e1", "source": "@TMP@/www/app.tar.gz", "archive_format": "rar7"}},
        {"state": A, "args": {"name": "@TMP@/e1", "source": "@TMP@/www/hello.bin"}},
        {"state": A, "args": {"name": "@TMP@/e1", "source": "@TMP@/www/bomb.tar.gz"}},
        {"state": A, "args": {"name": "@TMP@/e1", "source": "@TMP@/www/bomb.tar.gz", "enforce_toplevel": False}},
        {"check": "cd @TMP@/e1 && find . | sort"},
        {"state": A, "args": {"name": "@TMP@/e2", "source": "@TMP@/www/app.tar.gz", "if_missing": "@TMP@/www"}},
        {"state": A, "args": {"name": "@TMP@/e2", "source": "@TMP@/www/app.tar.gz", "if_missing": "rel"}},
        {"state": A, "args": {"name": "@TMP@/e2", "source": "@TMP@/www/app.tar.gz", "source_hash": WRONG_SHA256}},
        {"state": A, "args": {"name": "@TMP@/e2", "source": "@TMP@/www/app.tar.gz", "source_hash": "@TMP@/www/SHA256SUMS"}},
        {"state": A, "args": {"name": "@TMP@/e3", "source": "@TMP@/www/app.tar.gz", "user": "nobody", "group": "nogroup"}},
        {"check": "cd @TMP@/e3 && stat -c '%n %U:%G' app app/a.txt app/sub/b.txt"},
        {"state": A, "args": {"name": "@TMP@/e3", "source": "@TMP@/www/app.tar.gz", "user": "nobody", "group": "nogroup"}},
        {"sh": "chown root:root @TMP@/e3/app"},
        {"state": A, "args": {"name": "@TMP@/e3", "source": "@TMP@/www/app.tar.gz", "user": "nobody"}, "test": True},
        {"state": A, "args": {"name": "@TMP@/e3", "source": "@TMP@/www/app.tar.gz", "user": "nosuchuser1"}},
        {"state": A, "args": {"name": "@TMP@/e4", "source": "@TMP@/www/app.tar.gz", "options": "--strip-components=1"}},
        {"check": "cd @TMP@/e4 && find . | sort"},
        {"sh": "mkdir -p @TMP@/e5/app && printf 'stale\\n' > @TMP@/e5/app/stale.txt"},
        {"state": A, "args": {"name": "@TMP@/e5", "source": "@TMP@/www/app.tar.gz", "clean": True}, "test": True},
        {"state": A, "args": {"name": "@TMP@/e5", "source": "@TMP@/www/app.tar.gz", "clean": True}},
        {"check": "cd @TMP@/e5 && find . | sort"},
        {"sh": "printf 'x' > @TMP@/afile"},
        {"state": A, "args": {"name": "@TMP@/afile", "source": "@TMP@/www/app.tar.gz"}},
    ],
    "extract_remote": [
        {"sh": SRC},
        {"state": A, "args": {"name": "@TMP@/r1", "source": "@URL@/www/app.tar.gz", "source_hash": "@URL@/www/SHA256SUMS"}, "test": True},
        {"state": A, "args": {"name": "@TMP@/r1", "source": "@URL@/www/app.tar.gz", "source_hash": "@URL@/www/SHA256SUMS"}},
        {"check": "cd @TMP@/r1 && find . | sort"},
        {"state": A, "args": {"name": "@TMP@/r1", "source": "@URL@/www/app.tar.gz", "source_hash": "@URL@/www/SHA256SUMS"}},
        {"state": A, "args": {"name": "@TMP@/r2", "source": "@URL@/www/app.zip", "source_hash": WRONG_SHA256}},
        {"state": A, "args": {"name": "@TMP@/r2", "source": "@URL@/www/app.zip"}},
        {"state": A, "args": {"name": "@TMP@/r3", "source": "@URL@/www/app.zip", "skip_verify": True, "keep_source": False}},
        {"check": "cd @TMP@/r3 && find . | sort"},
        {"state": A, "args": {"name": "@TMP@/r4", "source": "@URL@/www/nosuch.tar.gz", "skip_verify": True}},
    ],
}

# Files added to the recording minion's file_roots for these cases.
EXTRA_ROOTS = {
    "base/net/hashes.txt": HELLO_SHA256 + "  hello.txt\n",
}

P = "pkgrepo.managed"
PA = "pkgrepo.absent"
EX = "deb http://deb.example.invalid/debian bookworm main"
EXF = "/etc/apt/sources.list.d/ex.list"
# Salt runs these in a mount namespace where @TMP@/root/etc/apt is
# /etc/apt (aptns.sh): the host's apt configuration is never read or
# changed. No step refreshes the package lists.
APT = (
    "mkdir -p @TMP@/root/etc/apt/sources.list.d @TMP@/root/etc/apt/keyrings"
    " @TMP@/root/etc/apt/trusted.gpg.d @TMP@/root/var/lib/apt/lists/partial"
    " @TMP@/root/var/cache/apt/archives/partial"
    " && printf '# the main list\\ndeb http://deb.debian.invalid/debian bookworm main\\n' > @TMP@/root/etc/apt/sources.list"
)
KEY = (
    "mkdir -p @TMP@/www @TMP@/gnupg && chmod 700 @TMP@/gnupg"
    " && gpg --batch --quiet --homedir @TMP@/gnupg --passphrase '' --quick-gen-key 'Brine Test <t@example.invalid>' ed25519 sign never 2>/dev/null"
    " && gpg --batch --quiet --homedir @TMP@/gnupg --armor --export > @TMP@/www/key.asc"
    # The agent gpg started for this folder is ended with it.
    " && gpgconf --homedir @TMP@/gnupg --kill gpg-agent"
)
LIST = "cd @TMP@/root/etc/apt && find . -type f | sort && cat sources.list sources.list.d/*.list 2>/dev/null"

PKGREPO_CASES = {
    "apt_managed": [
        {"sh": APT},
        {"state": P, "args": {"name": EX, "file": EXF, "refresh": False}, "test": True},
        {"state": P, "args": {"name": EX, "file": EXF, "refresh": False}},
        {"check": LIST},
        {"state": P, "args": {"name": EX, "file": EXF, "refresh": False}},
        {"state": P, "args": {"name": EX, "file": EXF, "refresh": False}, "test": True},
        {"state": P, "args": {"name": EX, "file": EXF, "comps": "main,contrib", "refresh": False}, "test": True},
        {"state": P, "args": {"name": EX, "file": EXF, "comps": "main,contrib", "refresh": False}},
        {"check": LIST},
        {"state": P, "args": {"name": EX, "file": EXF, "comps": "main,contrib", "refresh": False}},
        {"state": P, "args": {"name": EX, "file": EXF, "disabled": True, "refresh": False}, "test": True},
        {"state": P, "args": {"name": EX, "file": EXF, "disabled": True, "refresh": False}},
        {"check": LIST},
        {"state": P, "args": {"name": EX, "file": EXF, "disabled": True, "refresh": False}},
        {"state": P, "args": {"name": EX, "file": EXF, "enabled": True, "refresh": False}},
        {"check": LIST},
        {"state": P, "args": {"name": "deb [arch=amd64] http://deb.example.invalid/other bookworm main", "file": "/etc/apt/sources.list.d/other.list", "refresh_db": False}},
        {"state": P, "args": {"name": "deb [arch=amd64] http://deb.example.invalid/other bookworm main", "file": "/etc/apt/sources.list.d/other.list", "refresh_db": False}},
        {"state": P, "args": {"name": "deb http://deb.example.invalid/other bookworm main", "file": "/etc/apt/sources.list.d/other.list", "architectures": "amd64,arm64", "refresh": False}},
        {"check": LIST},
        {"state": P, "args": {"name": "deb http://deb.example.invalid/third bookworm main", "file": EXF, "clean_file": True, "refresh": False, "humanname": "Third"}},
        {"check": LIST},
    ],
    "apt_checks": [
        {"sh": APT},
        {"state": P, "args": {"name": "not a repo line", "refresh": False}},
        {"state": P, "args": {"name": EX, "repo": EX, "refresh": False}},
        {"state": P, "args": {"name": EX, "enabled": True, "disabled": False, "refresh": False}},
        # Salt asks a key server through apt-key (its words name a
        # temporary folder); brine does not fetch keys by id.
        {"state": P, "args": {"name": EX, "key_url": "http://x/k", "keyid": "ABC", "keyserver": "k", "refresh": False}, "mask_after": "bookworm main': "},
        {"state": P, "args": {"name": "deb http://deb.debian.invalid/debian bookworm main", "refresh": False}},
        {"state": P, "args": {"name": "deb http://deb.example.invalid/nofile bookworm main", "refresh": False}},
        {"check": LIST},
    ],
    "apt_absent": [
        {"sh": APT + " && printf '%s\\n' '" + EX + "' > @TMP@/root/etc/apt/sources.list.d/ex.list"
               " && printf 'deb http://deb.example.invalid/two bookworm main contrib\\ndeb-src http://deb.example.invalid/two bookworm main\\n' > @TMP@/root/etc/apt/sources.list.d/two.list"},
        {"state": PA, "args": {"name": EX}, "test": True},
        {"state": PA, "args": {"name": EX}},
        {"check": LIST},
        {"state": PA, "args": {"name": EX}},
        {"state": PA, "args": {"name": "deb http://deb.example.invalid/two bookworm contrib"}},
        {"check": LIST},
        {"state": PA, "args": {"name": "deb [arch=arm64] http://deb.example.invalid/two bookworm main"}},
        {"state": PA, "args": {"name": "deb http://deb.debian.invalid/debian bookworm main"}},
        {"check": LIST},
    ],
    "apt_key_url": [
        {"sh": APT + " && " + KEY},
        {"state": P, "args": {"name": "deb [signed-by=/etc/apt/keyrings/ex.gpg] http://deb.example.invalid/debian bookworm main", "file": EXF, "key_url": "@URL@/www/key.asc", "aptkey": False, "refresh": False}, "test": True},
        {"state": P, "args": {"name": "deb [signed-by=/etc/apt/keyrings/ex.gpg] http://deb.example.invalid/debian bookworm main", "file": EXF, "key_url": "@URL@/www/key.asc", "aptkey": False, "refresh": False}},
        {"check": LIST + " | grep -v '^.\\x99' ; head -c 1 @TMP@/root/etc/apt/keyrings/ex.gpg | od -An -tx1"},
        {"state": P, "args": {"name": "deb [signed-by=/etc/apt/keyrings/ex.gpg] http://deb.example.invalid/debian bookworm main", "file": EXF, "key_url": "@URL@/www/key.asc", "aptkey": False, "refresh": False}},
        {"state": P, "args": {"name": "deb http://deb.example.invalid/nokey bookworm main", "file": EXF, "aptkey": False, "refresh": False}},
        {"state": P, "args": {"name": "deb [signed-by=/etc/apt/keyrings/none.gpg] http://deb.example.invalid/bad bookworm main", "file": EXF, "key_url": "@URL@/www/nosuch.asc", "aptkey": False, "refresh": False}},
    ],
}

# dnf/yum: Salt's yumpkg, run by yumns.sh with a RedHat minion's grains.
YUM = (
    "mkdir -p @TMP@/root/etc/yum.repos.d && printf '[main]\\ngpgcheck=1\\n' > @TMP@/root/etc/yum.conf"
    " && printf '# kept\\n[base]\\nname=Base\\nbaseurl=http://repo.example.invalid/base/\\nenabled=1\\n\\n[extra]\\nname=Extra\\nmirrorlist=http://repo.example.invalid/mirrors\\n# a note\\ngpgcheck=0\\n' > @TMP@/root/etc/yum.repos.d/site.repo"
)
YLIST = "cd @TMP@/root/etc/yum.repos.d && for f in $(ls); do echo \"== $f\"; cat $f; done"
PKGREPO_CASES.update({
    "yum_managed": [
        {"sh": YUM},
        {"state": P, "args": {"name": "epel", "humanname": "EPEL 9", "baseurl": "http://repo.example.invalid/epel/9/", "gpgcheck": 1, "gpgkey": "http://repo.example.invalid/key"}, "test": True},
        {"state": P, "args": {"name": "epel", "humanname": "EPEL 9", "baseurl": "http://repo.example.invalid/epel/9/", "gpgcheck": 1, "gpgkey": "http://repo.example.invalid/key"}},
        {"check": YLIST},
        {"state": P, "args": {"name": "epel", "humanname": "EPEL 9", "baseurl": "http://repo.example.invalid/epel/9/", "gpgcheck": 1, "gpgkey": "http://repo.example.invalid/key"}},
        {"state": P, "args": {"name": "epel", "humanname": "EPEL 9", "baseurl": "http://repo.example.invalid/epel/9/", "gpgcheck": 1, "gpgkey": "http://repo.example.invalid/key"}, "test": True},
        {"state": P, "args": {"name": "epel", "humanname": "EPEL 9", "mirrorlist": "http://repo.example.invalid/m", "gpgcheck": True, "disabled": True}, "test": True},
        {"state": P, "args": {"name": "epel", "humanname": "EPEL 9", "mirrorlist": "http://repo.example.invalid/m", "gpgcheck": True, "disabled": True}},
        {"check": YLIST},
        {"state": P, "args": {"name": "base", "humanname": "Base", "baseurl": "http://repo.example.invalid/base/"}},
        {"state": P, "args": {"name": "extra", "humanname": "Extra", "baseurl": "http://repo.example.invalid/extra/", "comments": ["first", "second"]}},
        {"check": YLIST},
        {"state": P, "args": {"name": "nourl", "humanname": "No URL"}},
        {"state": P, "args": {"name": "both", "baseurl": "http://a/", "mirrorlist": "http://b/"}},
        {"state": P, "args": {"name": "epel", "enabled": True, "disabled": False}},
    ],
    "yum_absent": [
        {"sh": YUM + " && printf '[solo]\\nname=Solo\\nbaseurl=http://repo.example.invalid/solo/\\n' > @TMP@/root/etc/yum.repos.d/solo.repo"},
        {"state": PA, "args": {"name": "solo"}, "test": True},
        {"state": PA, "args": {"name": "solo"}},
        {"state": PA, "args": {"name": "solo"}},
        {"state": PA, "args": {"name": "extra"}},
        {"check": YLIST},
        {"state": PA, "args": {"name": "base"}},
        {"check": "ls @TMP@/root/etc/yum.repos.d"},
    ],
})
