//! Runs low chunks and builds the running dictionary.
