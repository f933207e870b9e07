//! `brine -b N`: Salt's batch run. The target is pinged first; minions
//! that did not answer get no job ("did not respond"). The others run the
//! function a batch at a time (`brine_master::batch::Schedule`), each batch
//! its own job published to a list of ids, and each return is printed as
//! Salt's batch prints it: `{retcode, jid, ID: return}` through the
//! minion's outputter. The exit code is the highest retcode returned.
//! With `--static` the run is quiet and the returns are printed once at
//! the end.

use super::{target_value, with_retcode, write_static, Cli, RunError, Sink, EX_GENERIC};
use brine_core::output::{self, OutputOptions};
use brine_core::{Map, Value};
use brine_master::batch::{invalid_size_message, BatchSize, Schedule};
use brine_master::daemon::client::Client;
use brine_protocol::messages::MinionReturn;
use std::time::{Duration, Instant};

/// One batch's job: who has not returned yet, and where its returns stand.
struct Job {
    jid: String,
    pending: Vec<String>,
    cursor: u64,
    deadline: Instant,
}

/// What the run has gathered so far.
struct Run<'a> {
    cli: &'a Cli,
    base: &'a OutputOptions,
    sink: &'a Sink<'a>,
    quiet: bool,
    retcode: i64,
    /// `--static`: the returns, printed once at the end.
    collected: Map,
    first_out: Option<Option<String>>,
}

impl Run<'_> {
    /// Print (or keep) one minion's return; true when `--failhard` stops
    /// the run here.
    fn returned(&mut self, jid: &str, id: &str, ret: MinionReturn) -> Result<bool, RunError> {
        self.retcode = self.retcode.max(ret.retcode);
        let failed = ret.retcode > 0;
        if self.quiet {
            self.first_out.get_or_insert_with(|| ret.out.clone());
            self.collected.insert(id.to_string(), ret.ret.unpack());
        } else {
            let out = self
                .cli
                .out
                .clone()
                .or(ret.out)
                .unwrap_or_else(|| "nested".into());
            let mut data = Map::default();
            data.insert("retcode".into(), Value::Int(ret.retcode));
            data.insert("jid".into(), Value::Str(jid.to_string()));
            data.insert(id.to_string(), ret.ret.unpack());
            let opts = with_retcode(self.base, ret.retcode);
            match output::render_data(&out, &Value::Map(data), &opts) {
                Ok(text) => self.sink.write(&text)?,
                Err(e) => eprintln!("brine: {id}: {e}"),
            }
        }
        if self.cli.failhard && failed {
            eprintln!(
                "[ERROR   ] Minion {id} returned with non-zero exit code. Batch run stopped due to failhard"
            );
            return Ok(true);
        }
        Ok(false)
    }

    /// A minion of a batch that never returned: Salt records an empty
    /// return for it.
    fn lost(&mut self, id: &str) -> Result<(), RunError> {
        if self.quiet {
            self.collected
                .insert(id.to_string(), Value::Map(Map::default()));
            return Ok(());
        }
        let out = self.cli.out.clone().unwrap_or_else(|| "nested".into());
        let mut data = Map::default();
        data.insert(id.to_string(), Value::Map(Map::default()));
        match output::render_data(&out, &Value::Map(data), self.base) {
            Ok(text) => self.sink.write(&text),
            Err(e) => {
                eprintln!("brine: {id}: {e}");
                Ok(())
            }
        }
    }
}

/// Python's `repr` of a sorted list of ids, as Salt prints a batch.
fn list_repr(ids: &[String]) -> String {
    let mut sorted: Vec<&String> = ids.iter().collect();
    sorted.sort();
    let items: Vec<String> = sorted.iter().map(|s| brine_core::py::str_repr(s)).collect();
    format!("[{}]", items.join(", "))
}

pub(super) async fn run_batch(
    cli: &Cli,
    client: &mut Client,
    base: &OutputOptions,
    sink: &Sink<'_>,
    timeout: u64,
    gather: Duration,
) -> Result<i32, RunError> {
    let quiet = cli.is_static;
    let size_text = cli.batch.as_deref().unwrap_or("100%");
    let call = brine_core::args::parse_input(&cli.args);

    // Who is up: a ping, waited for as any job is.
    let pinged = client
        .ping(
            target_value(&cli.target, &cli.tgt_type),
            &cli.tgt_type,
            timeout,
            gather,
        )
        .await?;
    if pinged.targeted.is_empty() {
        println!("No minions matched the target. No command was sent, no jid was assigned.");
        if !quiet {
            println!("No minions matched the target.");
        }
        return Ok(0);
    }
    let (up, down) = (pinged.up, pinged.down);
    let Some(size) = BatchSize::parse(size_text) else {
        if !quiet {
            println!("{}", invalid_size_message(size_text));
        }
        return Ok(EX_GENERIC);
    };
    if up.is_empty() {
        return Ok(0);
    }
    if !quiet {
        for id in down {
            println!("Minion {id} did not respond. No job will be sent.");
        }
    }
    let batch_wait = Duration::from_secs_f64(cli.batch_wait.max(0.0));
    let mut schedule = Schedule::new(up.clone(), size.of(up.len()), batch_wait);
    let mut run = Run {
        cli,
        base,
        sink,
        quiet,
        retcode: 0,
        collected: Map::default(),
        first_out: None,
    };
    let mut jobs: Vec<Job> = Vec::new();
    'run: while !schedule.is_finished() {
        let now = Instant::now();
        let next = schedule.next_batch(now);
        if !next.is_empty() {
            if !quiet {
                println!("\nExecuting run on {}\n", list_repr(&next));
            }
            let published = client
                .publish(
                    Value::List(next.iter().cloned().map(Value::Str).collect()),
                    "list",
                    &cli.function,
                    call.args.clone(),
                    call.kwargs.clone(),
                    timeout,
                )
                .await?;
            jobs.push(Job {
                jid: published.jid,
                pending: next,
                cursor: 0,
                deadline: Instant::now() + Duration::from_secs(timeout),
            });
        }
        // With one job running, the master tells of its next return (or
        // of none, up to when a held place frees); with several, each is
        // looked at in turn.
        let single = jobs.len() == 1;
        let mut heard = false;
        for job in &mut jobs {
            let now = Instant::now();
            let mut wait = Duration::ZERO;
            if single {
                wait = job.deadline.saturating_duration_since(now);
                if let Some(free) = schedule.next_free() {
                    wait = wait.min(free.saturating_duration_since(now));
                }
            }
            match client.returns_after(&job.jid, job.cursor, wait).await {
                Ok(r) => {
                    job.cursor = r.next;
                    for (id, ret) in r.returns {
                        let Some(i) = job.pending.iter().position(|p| *p == id) else {
                            continue;
                        };
                        job.pending.remove(i);
                        heard = true;
                        schedule.done(&id, Instant::now());
                        if run.returned(&job.jid, &id, ret)? {
                            break 'run;
                        }
                    }
                }
                Err(e) => tracing::warn!("{e}"),
            }
            if !job.pending.is_empty() && Instant::now() >= job.deadline {
                if client.still_running(&job.jid, &job.pending, gather).await {
                    job.deadline = Instant::now() + Duration::from_secs(timeout);
                    continue;
                }
                for id in std::mem::take(&mut job.pending) {
                    schedule.done(&id, Instant::now());
                    run.lost(&id)?;
                }
            }
        }
        jobs.retain(|j| !j.pending.is_empty());
        if !heard && !single {
            // Several jobs, none new: a short pause, as Salt's loop takes.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    if quiet {
        write_static(
            cli,
            base,
            sink,
            run.collected,
            run.first_out.flatten(),
            run.retcode,
        )?;
        return Ok(0);
    }
    Ok(i32::try_from(run.retcode.clamp(0, 255)).unwrap_or(EX_GENERIC))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_print_as_python_lists() {
        assert_eq!(
            list_repr(&["web2".into(), "web1".into()]),
            "['web1', 'web2']"
        );
        assert_eq!(list_repr(&["it's".into()]), "[\"it's\"]");
    }
}
