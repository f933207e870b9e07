//! brine's shared language: the Salt value model, and (with the daemons) the
//! messages master and minion exchange.

pub mod crypto;
pub mod keys;
pub mod messages;
pub mod py;
pub mod transport;
pub mod value;

pub use value::{Map, Value};
