//! Outputters: json, yaml, nested, raw, quiet.
