//! The master's event bus (Salt's master event publisher): what happens on
//! the master and its minions, as tagged events, to local subscribers.
//!
//! - [`bus`]: fire and subscribe; per-subscriber byte bounds.
//! - [`tags`]: Salt's tags and the data of each.
//! - [`wire`]: the event socket's frames.
//! - [`socket`]: the Unix socket in `sock_dir`, for the master's user only.
//! - [`client`]: that socket from a local tool (subscribe, fire).
//! - [`announce`]: a runner's or wheel function's run, fired there.

pub mod announce;
pub mod bus;
pub mod client;
pub mod socket;
pub mod tags;
pub mod wire;
