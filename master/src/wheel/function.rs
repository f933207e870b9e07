//! What a wheel function is: the master's config and a call's arguments
//! in, a value or a [`WheelError`] out.

use crate::daemon::MasterConfig;
use brine_core::args::CallArgs;
use brine_core::Value;

/// Why a wheel function gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum WheelError {
    #[error("'{0}' is not available.")]
    NotAvailable(String),
    #[error("Passed invalid arguments: {0}")]
    InvalidArguments(String),
    /// What the function needed could not be read.
    #[error("{0}")]
    Failed(String),
    #[error(transparent)]
    Keys(#[from] crate::keys::KeyStoreError),
}

/// A wheel function: the master's config and the call's arguments.
pub type WheelFn = fn(&MasterConfig, CallArgs) -> Result<Value, WheelError>;
