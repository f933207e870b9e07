//! Core grains read from the running system.
