//! brine-minion's library: the minion daemon and the `brine-call` front end.
//!
//! - [`call`]: `brine-call` (salt-call): command line → [`brine_runtime`]
//!   → outputter.
//! - [`daemon`]: brine-minion: authentication, the in-memory pillar,
//!   publications run through `brine_runtime`, returns queued until the
//!   master acknowledges them, and the remote compile source and file client.
//! - [`logging`]: log files as Salt's minion writes them.

pub mod call;
pub mod daemon;
pub mod logging;
