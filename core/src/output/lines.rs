//! An outputter's text built a line at a time.

/// An outputter's text built a line at a time: lines joined by `\n`, no
/// trailing newline (what Python's `"\n".join(lines)` gives), written
/// into one buffer as they come. A `String` per line and a join at the
/// end were a sixth of `state.show_lowstate` and a fifth of
/// `state.apply`'s heap at its peak (2,000 states are 16,000 lines).
#[derive(Default)]
pub(crate) struct Lines {
    text: String,
    started: bool,
}

impl Lines {
    /// The buffer, at the start of a new line.
    pub(crate) fn next_line(&mut self) -> &mut String {
        if self.started {
            self.text.push('\n');
        }
        self.started = true;
        &mut self.text
    }

    /// One line from format arguments.
    pub(crate) fn line(&mut self, args: std::fmt::Arguments<'_>) {
        use std::fmt::Write;
        // Writing into a String cannot fail.
        let _ = self.next_line().write_fmt(args);
    }

    /// One line as it is.
    pub(crate) fn push(&mut self, line: &str) {
        self.next_line().push_str(line);
    }

    /// Whether no line has been written.
    pub(crate) fn is_empty(&self) -> bool {
        !self.started
    }

    pub(crate) fn into_text(self) -> String {
        self.text
    }
}
