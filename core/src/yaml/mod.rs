//! Salt's YAML loader semantics on top of `saphyr-parser` events (YAML 1.1
//! booleans, `0644` read as decimal 644, timestamps kept as strings, `<<`
//! merge keys, mappings in file order, duplicate keys rejected), and a YAML
//! emitter that writes what PyYAML's `safe_dump` writes.
//!
//! Loading follows Salt's `SaltYamlSafeLoader` (PyYAML `CSafeLoader` with
//! Salt's constructor overrides): the event stream is first composed into a
//! node graph (anchors make it a graph), then each node is resolved and
//! constructed. Plain scalars are resolved by hand-written matchers that
//! accept exactly what PyYAML's YAML 1.1 implicit-resolver regexes accept.
//! Plain block YAML (most of any Salt tree) skips saphyr: `block.rs` builds
//! the same node graph line by line, or leaves the text to saphyr.
//!
//! Dumping follows `salt.utils.yaml.safe_dump` (PyYAML `CSafeDumper`, so the
//! libyaml emitter): keys sorted, 2-space indent, lists flush under their
//! key, strings quoted when they would read back as another type, line
//! folding at column 80.

mod block;
mod composer;
mod constructor;
mod emitter;
mod error;
mod load;
mod resolver;
#[cfg(test)]
mod tests;

pub use emitter::{
    dump, dump_flow, dump_indented, dump_leaf_flow, dump_with, emit, format_node, format_yaml,
    plain_is_str, represent_float, yaml_dquote, yaml_encode, yaml_squote, DumpNode, DumpOptions,
    YamlEncodeError,
};
pub use error::{YamlError, YamlErrorKind};
pub use load::load;
