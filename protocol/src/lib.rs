//! brine's shared language: the Salt value model, and (with the daemons) the
//! messages master and minion exchange.

pub mod py;
pub mod value;

pub use value::{Map, Value};
