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
use brine_master::batch::{drive, invalid_size_message, BatchJob, BatchSize, Step};
use brine_master::daemon::client::Client;
use brine_protocol::messages::MinionReturn;
use std::time::Duration;

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
    let job = BatchJob {
        fun: cli.function.clone(),
        arg: call.args,
        kwarg: call.kwargs,
        size: size.of(up.len()),
        batch_wait,
        timeout,
        gather,
    };
    let mut run = Run {
        cli,
        base,
        sink,
        quiet,
        retcode: 0,
        collected: Map::default(),
        first_out: None,
    };
    // The first error printing met ends the run and is the run's.
    let mut failed: Option<RunError> = None;
    drive(client, up, &job, &mut |step| {
        let done = match step {
            Step::Started(next) => {
                if !quiet {
                    println!("\nExecuting run on {}\n", list_repr(next));
                }
                Ok(false)
            }
            Step::Returned { jid, id, ret } => run.returned(jid, id, ret),
            Step::Lost(id) => run.lost(id).map(|()| false),
        };
        done.unwrap_or_else(|e| {
            failed = Some(e);
            true
        })
    })
    .await?;
    if let Some(e) = failed {
        return Err(e);
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
