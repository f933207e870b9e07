//! The minion daemon's pieces (brine-minion). For now: its key handling.

pub mod keys;
