//! Salt's `state.event` runner: the master's events as they come, read
//! from the event socket in `sock_dir` (only the master's user may open
//! it), printed one per line as `tag<TAB>data-as-JSON` (`pretty=True`:
//! keys sorted, indented by 4), until `count` matched (never, by default).

use super::runner::{Answer, Runner, RunnerError};
use crate::daemon::events::client::Listener;
use crate::daemon::MasterConfig;
use brine_compile::matcher::glob::expr_match;
use brine_core::sig;
use brine_core::Value;
use brine_runtime::modules::Params;
use std::io::Write;

pub(super) const FUNCTIONS: &[Runner] = &[Runner {
    name: "event",
    sig: sig!(
        tagmatch = "*",
        count = -1,
        quiet = false,
        sock_dir = null,
        pretty = false,
        node = "master"
    ),
    doc: "Print the master's events as they come, TAGMATCH (a glob, else a regular \
expression) selecting them: `tag<TAB>data` as JSON (PRETTY: sorted and indented), until \
COUNT matched; QUIET prints nothing.",
    run: |config, p| Box::pin(event(config, p)),
}];

async fn event(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let tagmatch = p
        .take("tagmatch")
        .map_or_else(|| "*".to_string(), |v| v.to_python_str());
    let count = p.take("count").and_then(|v| match v {
        Value::Int(i) => Some(i),
        other => other.to_python_str().parse().ok(),
    });
    let mut left = count.unwrap_or(-1);
    let quiet = p.take("quiet").is_some_and(|v| v.is_truthy());
    let sock_dir = p
        .take("sock_dir")
        .filter(|v| !v.is_null())
        .map_or_else(|| config.sock_dir.clone(), |v| v.to_python_str().into());
    let pretty = p.take("pretty").is_some_and(|v| v.is_truthy());
    p.take("node");
    p.finish()?;
    let max = config.events.max_event_size;
    let listened = tokio::task::spawn_blocking(move || -> Result<(), RunnerError> {
        let mut listener = Listener::open(&sock_dir, max)
            .map_err(|e| RunnerError::Failed(format!("state.event: {e}")))?;
        let stdout = std::io::stdout();
        while left != 0 {
            let Some(ev) = listener
                .next(None)
                .map_err(|e| RunnerError::Failed(format!("state.event: {e}")))?
            else {
                return Err(RunnerError::Failed(
                    "state.event: the master closed the event socket".into(),
                ));
            };
            if !expr_match(&ev.tag, &tagmatch) {
                continue;
            }
            if !quiet {
                let data = brine_core::output::json::dumps(&ev.data, pretty.then_some(4), pretty);
                let mut out = stdout.lock();
                // A closed stdout (a pipe's reader gone) ends the listening.
                if writeln!(out, "{}\t{data}", ev.tag)
                    .and_then(|()| out.flush())
                    .is_err()
                {
                    return Ok(());
                }
            }
            if left > 0 {
                left -= 1;
            }
        }
        Ok(())
    })
    .await
    .map_err(|e| RunnerError::Failed(format!("state.event: {e}")))?;
    listened?;
    Ok(Answer::data(Value::Null))
}

#[cfg(test)]
mod tests {
    use brine_compile::matcher::glob::expr_match;

    #[test]
    fn tags_match_as_salts_expr_match() {
        assert!(expr_match("salt/job/1/new", "*"));
        assert!(expr_match("salt/job/1/new", "salt/job/*/new"));
        assert!(expr_match("my/tag/two", "my/[a-z]+/two"));
        assert!(!expr_match("my/tag/two/x", "my/[a-z]+/two"));
        assert!(!expr_match("other", "my/*"));
        // A pattern that is no regular expression still globs.
        assert!(expr_match("a(b", "a(b"));
    }
}
