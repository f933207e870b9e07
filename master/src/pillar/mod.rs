//! Pillar compilation: top files → matched SLS → rendered, merged pillar,
//! then ext_pillars.

pub mod stack;
