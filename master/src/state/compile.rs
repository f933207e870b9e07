//! Compile stage: high data → low chunks.
