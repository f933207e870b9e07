//! Why a Hiera lookup or configuration failed, naming the file and line.

use std::path::{Path, PathBuf};

/// Why a lookup could not be answered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HieraError {
    /// A `hiera.yaml` that is not a valid version 5 configuration.
    #[error("{}", located(path, *line, message))]
    Config {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
    /// A data file that cannot be read or parsed (the message names it).
    #[error("{message}{}", line.map(|l| format!(" (line {l})")).unwrap_or_default())]
    Data {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
    /// Interpolation, dotted keys, `lookup_options`, recursion.
    #[error("{0}")]
    Lookup(String),
    /// Values that the merge behaviour cannot merge.
    #[error("{0}")]
    Merge(String),
}

fn located(path: &Path, line: Option<usize>, message: &str) -> String {
    match line {
        Some(l) => format!("{}, line {l}: {message}", path.display()),
        None => format!("{}: {message}", path.display()),
    }
}

impl HieraError {
    /// An interpolation problem met while reading `hiera.yaml` belongs to
    /// that file.
    pub(super) fn in_config(self, path: &Path) -> HieraError {
        match self {
            HieraError::Lookup(message) | HieraError::Merge(message) => HieraError::Config {
                path: path.to_path_buf(),
                line: None,
                message,
            },
            other => other,
        }
    }
}
