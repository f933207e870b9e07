"""pip.installed / pip.removed scenarios (pip.json), recorded by record_ops.py.

Every case starts with SETUP (an `sh` step), which needs no network:
  * `python3 -m venv @TMP@/venv` (the host's python3; ensurepip gives the
    venv its bundled pip, 23.2.1 for CPython 3.11.7);
  * three wheels written by hand into @TMP@/wheels (brinetesta 1.0 and 2.0,
    brinetestb 1.0; no dependencies), zip dates fixed;
  * @TMP@/venv/.../site-packages/00brinetest.pth, run by the venv's python at
    start-up: it drops every PIP_* variable the host sets (this host exports
    PIP_FIND_LINKS=/opt/wheels, which pip would list in "Looking in links:"),
    ignores every pip configuration file (PIP_CONFIG_FILE=/dev/null; the
    host's /etc/pip.conf), forbids the index (PIP_NO_INDEX=1, so no call Salt
    makes without `no_index` -- `pip index versions` -- reaches PyPI) and keeps
    pip's cache in @TMP@. Only the venv's own pip is affected; the states
    still pass `no_index: True` and `find_links: @TMP@/wheels`.
The states use `bin_env: @TMP@/venv` (Salt then runs
`@TMP@/venv/bin/python -m pip ...` whatever python salt-call itself runs on).
`check` steps list only the test packages (`grep brinetest`): pip's and
setuptools' own versions depend on the host's python and are not recorded.
`pip_cmdlines` replaces the venv's python by a script logging each pip run
(argv, working folder, VIRTUAL_ENV, an env_vars marker) and its checks show
the install/uninstall/index runs, the minion's home written `~`. Nothing
else in the answers varies between runs: Salt's comments carry pip's output
only on failure (pip 23.2.1's wording), and its paths are under @TMP@.
The spec of what Salt does is pip_spec.md.
"""

# The wheels and the environment isolation described above.
_SETUP_PY = r'''
import base64, hashlib, os, sys, sysconfig, zipfile
tmp = sys.argv[1]
wheels = os.path.join(tmp, "wheels")
os.makedirs(wheels)
def digest(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
for name, ver in (("brinetesta", "1.0"), ("brinetesta", "2.0"), ("brinetestb", "1.0")):
    info = "%s-%s.dist-info" % (name, ver)
    files = {
        name + ".py": "VERSION = %r\n" % ver,
        info + "/METADATA": "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, ver),
        info + "/WHEEL": "Wheel-Version: 1.0\nGenerator: brine-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[info + "/RECORD"] = "".join(
        "%s,sha256=%s,%d\n" % (p, digest(t.encode()), len(t.encode())) for p, t in files.items()
    ) + info + "/RECORD,,\n"
    with zipfile.ZipFile(os.path.join(wheels, "%s-%s-py3-none-any.whl" % (name, ver)), "w") as z:
        for p, t in files.items():
            zi = zipfile.ZipInfo(p, (2020, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            z.writestr(zi, t)
env = dict(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_CACHE_DIR=os.path.join(tmp, "pip-cache"))
if len(sys.argv) > 2:
    env["PIP_FIND_LINKS"] = wheels
with open(os.path.join(sysconfig.get_path("purelib"), "00brinetest.pth"), "w") as f:
    f.write("import os; [os.environ.pop(k) for k in [k for k in os.environ if k.startswith('PIP_')]]; "
            "os.environ.update(%r)\n" % env)
'''
def setup(extra="", links=False):
    """SETUP, running `extra` (shell) after making the venv."""
    return ("python3 -m venv @TMP@/venv" + (" && " + extra if extra else "")
            + " && @TMP@/venv/bin/python - @TMP@" + (" links" if links else "")
            + " <<'EOF'\n" + _SETUP_PY + "EOF\n")


SETUP = setup()
# The same, and the venv's pip also looks in @TMP@/wheels when no
# --find-links is given: Salt's `upgrade` check runs `pip index versions
# NAME` with neither find_links nor no_index, and must see 1.0 and 2.0.
SETUP_LINKS = setup(links=True)
# The venv's python replaced by a script logging how pip is run (working
# folder, VIRTUAL_ENV, an env_vars marker, arguments) into @TMP@/pip.log.
WRAP = (
    "rm @TMP@/venv/bin/python && printf '%s\\n' '#!/bin/bash' "
    "'echo \"cwd=$PWD VIRTUAL_ENV=${VIRTUAL_ENV-} BRINE_MARK=${BRINE_MARK-} $*\" >> @TMP@/pip.log' "
    "'exec @TMP@/venv/bin/python3 \"$@\"' > @TMP@/venv/bin/python && chmod 755 @TMP@/venv/bin/python"
)
# The logged pip runs that install, remove or look up versions (pip --version
# and pip list runs are Salt's bookkeeping and left out), then a fresh log.
# Without `cwd` Salt runs pip in the minion user's home ($HOME, /root here):
# written `cwd=~` so the answers do not depend on the host.
LOG = ("grep -E -- '-m pip (install|uninstall|index)' @TMP@/pip.log | sed \"s|^cwd=$HOME |cwd=~ |\"; "
       ": > @TMP@/pip.log")
FREEZE = "@TMP@/venv/bin/pip list --format=freeze | grep -i brinetest"

PI = "pip.installed"
PR = "pip.removed"
V = {"bin_env": "@TMP@/venv", "no_index": True, "find_links": "@TMP@/wheels"}


def inst(name=None, **kw):
    args = {"name": name} if name is not None else {}
    args.update(V)
    args.update(kw)
    return args


PIP_CASES = {
    "pip_installed": [
        {"sh": SETUP},
        {"check": FREEZE},
        {"state": PI, "args": inst("brinetesta"), "test": True},
        {"state": PI, "args": inst("brinetesta")},
        {"check": FREEZE},
        {"state": PI, "args": inst("brinetesta")},
        {"state": PI, "args": inst("brinetesta"), "test": True},
        {"state": PI, "args": inst("BrineTestA")},
        {"state": PI, "args": inst("brinetestz"), "test": True},
        {"state": PI, "args": inst("brinetestz")},
        {"state": PI, "args": inst("brinetesta=1.0")},
        {"state": PI, "args": inst("brinetestb", pkgs="brinetestb")},
        {"state": PI, "args": inst("brinetestb", bin_env="@TMP@/novenv")},
        {"state": PI, "args": inst("brinetestb", bin_env="@TMP@/wheels")},
        {"state": PI, "args": inst("brinetestb", user="nosuchuser1")},
        {"state": PI, "args": inst("brinetestb", bin_env="@TMP@/venv/bin/pip")},
        {"check": FREEZE},
    ],
    "pip_versions": [
        {"sh": SETUP},
        {"state": PI, "args": inst("brinetesta==1.0"), "test": True},
        {"state": PI, "args": inst("brinetesta==1.0")},
        {"check": FREEZE},
        {"state": PI, "args": inst("brinetesta==1.0")},
        {"state": PI, "args": inst("brinetesta>=1")},
        {"state": PI, "args": inst("brinetesta==2.0"), "test": True},
        {"state": PI, "args": inst("brinetesta==2.0")},
        {"check": FREEZE},
        {"state": PI, "args": inst("brinetesta<2")},
        {"check": FREEZE},
        {"state": PI, "args": inst("brinetesta>=1.0,<2.0")},
        {"state": PI, "args": inst("brinetesta >1.5, <3")},
        {"check": FREEZE},
        {"state": PI, "args": inst("brinetesta==3.0")},
        {"check": FREEZE},
    ],
    "pip_upgrade": [
        {"sh": SETUP_LINKS},
        {"state": PI, "args": inst("brinetesta==1.0")},
        {"state": PI, "args": inst("brinetesta", upgrade=True), "test": True},
        {"state": PI, "args": inst("brinetesta", upgrade=True)},
        {"check": FREEZE},
        {"state": PI, "args": inst("brinetesta", upgrade=True)},
        {"state": PI, "args": inst("brinetesta<2", upgrade=True)},
        {"check": FREEZE},
        {"state": PI, "args": inst("brinetesta<2", upgrade=True)},
        {"state": PI, "args": inst("brinetesta", force_reinstall=True)},
        {"check": FREEZE},
        {"state": PI, "args": inst("brinetestb", upgrade=True)},
        {"state": PI, "args": inst("brinetestb", upgrade=True)},
        {"check": FREEZE},
    ],
    "pip_upgrade_noindex": [
        # Without links for `pip index versions` (no index either) Salt sees
        # no available version and keeps what is installed.
        {"sh": SETUP},
        {"state": PI, "args": inst("brinetesta==1.0")},
        {"state": PI, "args": inst("brinetesta", upgrade=True), "test": True},
        {"state": PI, "args": inst("brinetesta", upgrade=True)},
        {"check": FREEZE},
    ],
    "pip_pkgs": [
        {"sh": SETUP},
        {"state": PI, "args": inst(pkgs=["brinetesta", "brinetestb"]), "test": True},
        {"state": PI, "args": inst(pkgs=["brinetesta", "brinetestb"])},
        {"check": FREEZE},
        {"state": PI, "args": inst(pkgs=["brinetesta", "brinetestb"])},
        {"state": PI, "args": inst("ignored", pkgs=["brinetesta==1.0", "brinetestb"])},
        {"check": FREEZE},
        {"state": PI, "args": inst(pkgs=["brinetestb", "brinetestz"]), "test": True},
        {"state": PI, "args": inst(pkgs=["brinetestb", "brinetestz"])},
        {"check": FREEZE},
        {"high": {"two": {"pip": ["installed", {"names": ["brinetesta", "brinetestb==1.0"]},
                                  {"bin_env": "@TMP@/venv"}, {"no_index": True},
                                  {"find_links": "@TMP@/wheels"}]}}},
        {"sh": "@TMP@/venv/bin/pip uninstall -qy brinetesta brinetestb"},
        {"high": {"two": {"pip": ["installed", {"names": ["brinetesta", "brinetestb==1.0"]},
                                  {"bin_env": "@TMP@/venv"}, {"no_index": True},
                                  {"find_links": "@TMP@/wheels"}]}}},
        {"check": FREEZE},
    ],
    "pip_removed": [
        {"sh": SETUP},
        {"state": PI, "args": inst(pkgs=["brinetesta", "brinetestb"])},
        {"state": PR, "args": {"name": "brinetesta", "bin_env": "@TMP@/venv"}, "test": True},
        {"state": PR, "args": {"name": "brinetesta", "bin_env": "@TMP@/venv"}},
        {"check": FREEZE},
        {"state": PR, "args": {"name": "brinetesta", "bin_env": "@TMP@/venv"}},
        {"state": PR, "args": {"name": "brinetesta", "bin_env": "@TMP@/venv"}, "test": True},
        {"state": PR, "args": {"name": "BrineTestB", "bin_env": "@TMP@/venv"}},
        {"state": PR, "args": {"name": "brinetestb", "bin_env": "@TMP@/novenv"}},
        {"state": PR, "args": {"name": "brinetestb", "bin_env": "@TMP@/venv/bin/pip"}},
        {"check": FREEZE},
        {"state": PR, "args": {"name": "brinetestz", "bin_env": "@TMP@/venv"}},
    ],
    "pip_requirements": [
        {"sh": setup("printf 'brinetestb==1.0\\n' > @TMP@/req.txt")},
        {"state": PI, "args": inst("ignored", requirements="@TMP@/req.txt"), "test": True},
        {"state": PI, "args": inst("ignored", requirements="@TMP@/req.txt")},
        {"check": FREEZE},
        {"state": PI, "args": inst("ignored", requirements="@TMP@/req.txt")},
        {"state": PI, "args": {"name": "ignored", "bin_env": "@TMP@/venv", "requirements": "@TMP@/req.txt"}},
        {"state": PI, "args": inst("ignored", requirements="@TMP@/nope.txt")},
        {"check": FREEZE},
    ],
    "pip_cmdlines": [
        {"sh": setup("mkdir @TMP@/work && printf 'brinetestb==1.0\\n' > @TMP@/req.txt && " + WRAP)},
        {"state": PI, "args": inst("brinetesta"), "test": True},
        {"check": LOG},
        {"state": PI, "args": inst("brinetesta==1.0", cwd="@TMP@/work", env_vars={"BRINE_MARK": 1})},
        {"check": LOG},
        {"state": PI, "args": inst("brinetesta", upgrade=True, force_reinstall=True)},
        {"check": LOG},
        {"state": PI, "args": inst("brinetesta", upgrade=True)},
        {"check": LOG},
        {"state": PI, "args": inst(pkgs=["brinetestb", "brinetesta>=1.0,<3"], upgrade=True,
                                   no_deps=True)},
        {"check": LOG},
        {"state": PI, "args": inst("ignored", requirements="@TMP@/req.txt")},
        {"check": LOG},
        {"state": PR, "args": {"name": "brinetestb", "bin_env": "@TMP@/venv", "cwd": "@TMP@/work"}},
        {"check": LOG},
        # index_url (no index there: the venv's PIP_NO_INDEX keeps pip off it).
        {"state": PI, "args": {"name": "brinetestb", "bin_env": "@TMP@/venv", "index_url": "file://@TMP@/index",
                               "find_links": ["@TMP@/wheels", "file://@TMP@/wheels"]}},
        {"check": LOG + "; " + FREEZE},
    ],
}
