#!/usr/bin/env python3
"""Record Salt's argument specifications (what `sys.argspec` answers) for the
execution functions brine has, as JSON: the test data every function's
descriptor (its `sig!`) is checked against.

usage: SALT_PYTHON gen_argspec.py FUNCTIONS_JSON > runtime/src/modules/testdata/argspec.json
       SALT_PYTHON gen_argspec.py --states STATES_JSON > states/src/modules/testdata/argspec.json

FUNCTIONS_JSON is `brine-call --local --out json sys.list_functions`. Run it
with the Python of a Salt 3007.8 install (see ../../../shared/conformance/
README.md). Each function is asked of Salt's own loader on this machine,
masterless; a function whose module Salt does not load here (service is
systemd's, pkg apt's) is read from the module brine follows. Besides what
`sys.argspec` shows, each entry says how many of `args` Python binds by
position (`positional`: the rest are keyword-only, after `*args`).

With --states, STATES_JSON is `brine-call --local --out json
sys.list_state_functions` and each state function is read from Salt's own
state module (`salt.states.<module>`), the signature its state compiler
checks a state's arguments against.
"""
import importlib, inspect, json, os, sys, tempfile

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


# State modules whose file is not named as the module is (its __virtualname__).
STATE_FILES = {"ini": "ini_manage", "debconf": "debconfmod", "pip": "pip_state", "salt": "saltmod"}


def state_function(fun):
    module, name = fun.split(".", 1)
    mod = importlib.import_module("salt.states." + STATE_FILES.get(module, module))
    # `file.copy` is `copy_` in Salt's module (its __func_alias__).
    aliases = {v: k for k, v in getattr(mod, "__func_alias__", {}).items()}
    return getattr(mod, aliases.get(name, name), None)


def main():
    states = sys.argv[1] == "--states"
    funs = json.load(open(sys.argv[-1]))
    if isinstance(funs, dict):
        funs = funs["local"]
    mods = {} if states else loader()
    out = {}
    missing = []
    for fun in sorted(funs):
        if states:
            func = state_function(fun)
        else:
            func = mods[fun] if fun in mods else fallback(fun)
        if func is None:
            missing.append(fun)
            continue
        args, varargs, kwargs, defaults = salt.utils.args.get_function_argspec(func)
        positional = sum(
            1
            for p in inspect.signature(func).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        )
        out[fun] = {
            "args": list(args),
            "defaults": list(defaults or ()),
            "varargs": bool(varargs),
            "kwargs": bool(kwargs),
            "positional": positional,
        }
    if missing:
        print("Salt has no signature for: %s" % ", ".join(missing), file=sys.stderr)
    print("{")
    print(",\n".join("  %s: %s" % (json.dumps(k), json.dumps(v, default=str)) for k, v in out.items()))
    print("}")


if __name__ == "__main__":
    main()
