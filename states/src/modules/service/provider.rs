//! What the service state functions ask of an init system.

/// Why an init system could not do what a service state asked. Shown as
/// the text of the `CommandExecutionError` Salt would raise.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ServiceError {
    /// The unit's status output told nothing about it.
    #[error("Failed to get information on unit '{unit}'")]
    UnitInfo { unit: String },
    /// systemd is installed but not running: it cannot tell about a unit.
    #[error("Cannot run in offline mode. Failed to get information on unit '{unit}'")]
    Offline { unit: String },
    /// Reloading the unit files after a unit changed failed.
    #[error("Problem performing systemctl daemon-reload: {output}")]
    DaemonReload { output: String },
    /// The init system refused `verb` on the unit; its message as Salt
    /// shows it.
    #[error("{message}")]
    Refused {
        unit: String,
        verb: String,
        message: String,
    },
    #[error("Failed to mask service '{unit}'")]
    Mask { unit: String },
    #[error("Failed to unmask service '{unit}'")]
    Unmask { unit: String },
}

/// What the service state functions need from an init system (Salt's
/// `service.*` execution functions).
pub trait ServiceProvider {
    fn available(&self, name: &str) -> Result<bool, ServiceError>;
    /// Whether the service is running.
    fn status(&self, name: &str) -> bool;
    fn enabled(&self, name: &str) -> bool;
    fn start(&self, name: &str) -> Result<bool, ServiceError>;
    fn stop(&self, name: &str) -> bool;
    fn restart(&self, name: &str) -> Result<bool, ServiceError>;
    fn reload(&self, name: &str) -> Result<bool, ServiceError>;
    fn force_reload(&self, name: &str) -> Result<bool, ServiceError>;
    fn enable(&self, name: &str) -> Result<bool, ServiceError>;
    fn disable(&self, name: &str) -> bool;
    fn masked(&self, name: &str, runtime: bool) -> Result<bool, ServiceError>;
    fn mask(&self, name: &str, runtime: bool) -> Result<(), ServiceError>;
    fn unmask(&self, name: &str, runtime: bool) -> Result<(), ServiceError>;
}
