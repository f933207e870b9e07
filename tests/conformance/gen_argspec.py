#!/usr/bin/env python3
"""Record Salt's argument specifications (what `sys.argspec` answers) for the
execution functions brine has, as a Rust table.

usage: SALT_PYTHON gen_argspec.py FUNCTIONS_JSON > runtime/src/modules/signatures.rs

FUNCTIONS_JSON is `brine-call --local --out json sys.list_functions`. Run it
with the Python of a Salt 3007.8 install (see ../../../shared/conformance/
README.md). Each function is asked of Salt's own loader on this machine,
masterless; a function whose module Salt does not load here (service is
systemd's, pkg apt's) is read from the module brine follows. The table holds
only names and default values: brine's own sys.argspec code answers from it.
"""
import importlib, json, os, sys, tempfile

import salt.config
import salt.loader
import salt.utils.args

# Salt's module files for functions its loader does not offer on this
# machine (a container without systemd as PID 1 loads debian_service).
FALLBACK = {
    "service": "salt.modules.systemd_service",
    "pkg": "salt.modules.aptpkg",
    "user": "salt.modules.useradd",
    "group": "salt.modules.groupadd",
    "timezone": "salt.modules.timezone",
    "locale": "salt.modules.localemod",
    "sysctl": "salt.modules.linux_sysctl",
}


def loader():
    tmp = tempfile.mkdtemp(prefix="argspec-")
    conf = os.path.join(tmp, "minion")
    with open(conf, "w") as f:
        f.write("file_client: local\nroot_dir: %s\ncachedir: %s/cache\nlog_level: quiet\n" % (tmp, tmp))
    opts = salt.config.minion_config(conf)
    opts["grains"] = salt.loader.grains(opts)
    utils = salt.loader.utils(opts)
    return salt.loader.minion_mods(opts, utils=utils)


def fallback(fun):
    module, name = fun.split(".", 1)
    if module not in FALLBACK:
        return None
    mod = importlib.import_module(FALLBACK[module])
    aliases = {v: k for k, v in getattr(mod, "__func_alias__", {}).items()}
    return getattr(mod, aliases.get(name, name), None)


def rust_str(s):
    return json.dumps(s)


def main():
    funs = json.load(open(sys.argv[1]))
    if isinstance(funs, dict):
        funs = funs["local"]
    mods = loader()
    out = []
    missing = []
    for fun in sorted(funs):
        func = mods[fun] if fun in mods else fallback(fun)
        if func is None:
            missing.append(fun)
            continue
        args, varargs, kwargs, defaults = salt.utils.args.get_function_argspec(func)
        out.append((fun, args, defaults, bool(varargs), bool(kwargs)))
    print("//! Salt 3007.8's argument specifications of the execution functions brine")
    print("//! has, as `sys.argspec` reports them: recorded from Salt's loader by")
    print("//! `tests/conformance/gen_argspec.py` (regenerate, do not edit; one line a")
    print("//! function, so `mod signatures` is not formatted). Defaults are JSON text,")
    print("//! read when asked for.")
    print()
    print("/// One function's signature.")
    print("pub(crate) struct Signature {")
    print("    pub name: &'static str,")
    print("    pub args: &'static [&'static str],")
    print("    pub defaults: &'static str,")
    print("    pub varargs: bool,")
    print("    pub kwargs: bool,")
    print("}")
    print()
    print("const fn sig(")
    print("    name: &'static str,")
    print("    args: &'static [&'static str],")
    print("    defaults: &'static str,")
    print("    varargs: bool,")
    print("    kwargs: bool,")
    print(") -> Signature {")
    print("    Signature { name, args, defaults, varargs, kwargs }")
    print("}")
    print()
    if missing:
        print("// Salt has no signature for: %s" % ", ".join(missing))
    print("/// Sorted by name.")
    print("pub(crate) const SIGNATURES: &[Signature] = &[")
    for fun, args, defaults, varargs, kwargs in out:
        print("    sig(%s, &[%s], %s, %s, %s)," % (
            rust_str(fun), ", ".join(rust_str(a) for a in args),
            rust_str(json.dumps(list(defaults or ()), default=str)),
            "true" if varargs else "false", "true" if kwargs else "false"))
    print("];")

if __name__ == "__main__":
    main()
