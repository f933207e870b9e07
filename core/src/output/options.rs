//! How an outputter is asked to print: Salt's output options, the
//! `output_indent` setting, which mappings are `OrderedDict`s, and why a
//! return could not be printed.

use crate::{Map, Value};
use std::io::IsTerminal;

/// Why a return could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The YAML emitter could not represent the value.
    #[error("unable to render the return as YAML: {0}")]
    Yaml(String),
}

/// The `output_indent` option (json outputter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputIndent {
    /// Option not set: indent 4, keys in order.
    #[default]
    Unset,
    /// `pretty`: indent 4, keys sorted.
    Pretty,
    /// A number: that many spaces; negative means everything on one line.
    Spaces(i64),
}

/// Options the outputters read from Salt's opts and from salt-call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OutputOptions {
    /// ANSI colours in the nested outputter. Salt turns them on only when
    /// stdout is a terminal (or `--force-color`), off for `--no-color`.
    pub color: bool,
    /// The call's retcode: the nested outputter colours keys red when it is
    /// not 0.
    pub retcode: i64,
    /// `nested_indent`: spaces before every nested line.
    pub nested_indent: usize,
    /// `output_indent`.
    pub output_indent: OutputIndent,
    /// Mappings this deep in the return or deeper are Python `OrderedDict`s
    /// (the return itself is depth 0); shallower ones, and all of them when
    /// `None`, are plain dicts. `pillar.items` is `Some(1)`, `pillar.get` of
    /// YAML data `Some(0)`, grains and most module returns `None`.
    pub ordered_from_depth: Option<usize>,
    /// The `state_*` options of the highstate outputter.
    pub highstate: HighstateOptions,
}

impl OutputOptions {
    /// Salt's defaults for output going to this process's stdout.
    pub fn for_stdout() -> OutputOptions {
        OutputOptions {
            color: std::io::stdout().is_terminal(),
            ..OutputOptions::default()
        }
    }
}

/// Whether a mapping at `depth` of the return (0 = the return itself; the
/// `{minion_id: ...}` wrapper is -1) is an `OrderedDict`.
pub(crate) fn is_ordered(opts: &OutputOptions, depth: isize) -> bool {
    match opts.ordered_from_depth {
        Some(d) => depth >= 0 && depth as usize >= d,
        None => false,
    }
}

/// The minion options the highstate outputter reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HighstateOptions {
    pub state_output: String,
    pub state_verbose: bool,
    pub state_output_profile: bool,
    pub state_output_pct: bool,
    pub state_output_diff: bool,
    pub state_tabular: bool,
    /// `state_output_exclude` / `state_output_terse` (filter mode).
    pub exclude: Vec<String>,
    pub terse: Vec<String>,
}

impl Default for HighstateOptions {
    fn default() -> HighstateOptions {
        HighstateOptions {
            state_output: "full".into(),
            state_verbose: true,
            state_output_profile: true,
            state_output_pct: false,
            state_output_diff: false,
            state_tabular: false,
            exclude: Vec::new(),
            terse: Vec::new(),
        }
    }
}

impl HighstateOptions {
    /// Read the options from a minion's opts, with Salt's defaults.
    pub fn from_opts(opts: &Map) -> HighstateOptions {
        let d = HighstateOptions::default();
        let flag = |k: &str, dflt: bool| opts.get(k).map_or(dflt, Value::is_truthy);
        let list = |k: &str| match opts.get(k) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
            Some(v) => v.to_python_str().split(',').map(str::to_string).collect(),
        };
        HighstateOptions {
            state_output: opts
                .get("state_output")
                .map(Value::to_python_str)
                .unwrap_or(d.state_output),
            state_verbose: flag("state_verbose", d.state_verbose),
            state_output_profile: flag("state_output_profile", d.state_output_profile),
            state_output_pct: flag("state_output_pct", false),
            state_output_diff: flag("state_output_diff", false),
            state_tabular: opts.get("state_tabular") == Some(&Value::Bool(true)),
            exclude: list("state_output_exclude"),
            terse: list("state_output_terse"),
        }
    }
}
