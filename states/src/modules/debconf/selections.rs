//! The debconf database as Salt's `debconfmod` reads and writes it:
//! `debconf-get-selections` (debconf-utils) parsed into package → [question,
//! type, value] answers, and answers preseeded with
//! `debconf-set-selections`.

use brine_host::exec::{self, CommandSpec, ExecError};
use std::io::Write;
use std::sync::LazyLock;

/// Why the database could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum DebconfError {
    #[error("The debconfmod module could not be loaded: debconf-utils is not installed.")]
    NoUtils,
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error("Unable to write the selections file: {0}")]
    TempFile(std::io::Error),
}

/// One answer: question, type, value.
pub type Answer = [String; 3];

/// Salt's `_unpack_lines` pattern for `debconf-get-selections` output.
static LINE: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
    regex::Regex::new(r"(?m)^([^#]\S+)[\t ]+(\S+)[\t ]+(\S+)[\t ]+([^\n]*)$").ok()
});

/// Whether `debconf-get-selections` is installed (Salt loads the module
/// only then).
pub fn available() -> bool {
    brine_host::path::which("debconf-get-selections").is_some()
}

/// Salt's `show`: the answers of PACKAGE, None when debconf knows none.
pub fn show(package: &str) -> Result<Option<Vec<Answer>>, DebconfError> {
    if !available() {
        return Err(DebconfError::NoUtils);
    }
    let out = exec::run(&CommandSpec::argv(&["debconf-get-selections"]))?;
    let Some(re) = LINE.as_ref() else {
        return Ok(None);
    };
    let answers: Vec<Answer> = re
        .captures_iter(&out.stdout)
        .filter(|c| &c[1] == package)
        .map(|c| [c[2].to_string(), c[3].to_string(), c[4].to_string()])
        .collect();
    Ok((!answers.is_empty()).then_some(answers))
}

/// Salt's `set`: the line `PACKAGE QUESTION TYPE VALUE` fed to
/// `debconf-set-selections` from a temporary file (its answer is not
/// looked at: Salt returns True).
pub fn set(package: &str, question: &str, kind: &str, value: &str) -> Result<(), DebconfError> {
    let mut file = tempfile::Builder::new()
        .prefix("salt-")
        .tempfile()
        .map_err(DebconfError::TempFile)?;
    file.write_all(format!("{package} {question} {kind} {value}").as_bytes())
        .map_err(DebconfError::TempFile)?;
    let path = file.path().display().to_string();
    exec::run(&CommandSpec::argv(&["debconf-set-selections", &path]))?;
    Ok(())
}
