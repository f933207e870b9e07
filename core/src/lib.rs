//! Salt's data model, shared by every other brine crate.
//!
//! Salt is written in Python and its answers are Python values printed by
//! Python code: this crate is where brine reproduces that, with no I/O
//! beyond reading a file it is handed and no async runtime.
//!
//! - [`value`]: [`Value`] and [`Map`], Salt's data (ordered maps, Python
//!   scalars).
//! - [`py`]: Python's `str()`/`repr()` of a value, as Salt prints them.
//! - [`yaml`]: the YAML 1.1 loader with Salt's semantics and the
//!   PyYAML-compatible dumper.
//! - [`args`]: `key=value` command-line arguments read as `salt-call` reads
//!   them (`yamlify_arg`).
//! - [`output`]: Salt's outputters (`nested`, `json`, `yaml`, `highstate`, ...).
//! - [`signature`]: a Salt function's parameters in Python's words
//!   ([`sig!`]), for execution and state functions alike.

pub mod args;
pub mod output;
pub mod py;
pub mod signature;
pub mod value;
pub mod yaml;

pub use value::{Map, Value};
