//! `brine-key`: salt-key for brine's key store. Same options, same listings
//! and messages (checked against salt-key 3007.8), same `--out json` shapes.
//!
//! Differences, deliberate: no colours; a glob list like `web*,web1` names each key once (salt-key
//! repeats a key matched by two patterns); a key file that cannot be read
//! is reported on stderr and the exit code is 1.

use super::{sort_ignorecase, KeyState, KeyStore, DEFAULT_PKI_DIR};
use brine_compile::matcher::glob::fnmatch;
use brine_compile::opts;
use brine_core::{Map, Value};
use std::io::{BufRead, Write};
use std::path::PathBuf;

/// salt-key's exit code for usage errors (EX_USAGE).
pub const EX_USAGE: i32 = brine_cli::EX_USAGE;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `-L`
    ListAll,
    /// `-l STATE`
    List(String),
    /// `-a GLOB` / `-A` (glob `*`)
    Accept(String),
    /// `-r GLOB` / `-R`
    Reject(String),
    /// `-d GLOB` / `-D`
    Delete(String),
    /// `-f GLOB`
    Finger(String),
    /// `-F`
    FingerAll,
    /// `-p GLOB`
    Print(String),
    /// `-P`
    PrintAll,
    /// `--gen-keys NAME [--gen-keys-dir DIR]`: a key pair written as
    /// `DIR/NAME.key` and `DIR/NAME.pub` (brine's key format; a minion
    /// reads them as `minion.key`/`minion.pub` in its pki_dir), kept if
    /// `NAME.key` exists already.
    GenKeys { name: String, dir: PathBuf },
    /// `--import-salt-pki DIR`: accept the pending keys of the ids a Salt
    /// master (its `pki_dir`, DIR) accepted, reject those of the ids it
    /// rejected or denied (see [`super::salt_import`]).
    ImportSaltPki(PathBuf),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    pub config_dir: PathBuf,
    pub command: Command,
    pub yes: bool,
    /// `--out`: `None` is salt-key's own `key` outputter; any other name is
    /// one of Salt's outputters over the listing's mapping.
    pub out: Option<String>,
    pub include_accepted: bool,
    pub include_rejected: bool,
    pub include_denied: bool,
}

/// salt-key's options.
pub fn command() -> brine_cli::Command {
    use brine_cli::Opt;
    brine_cli::Command {
        name: "brine-key",
        usage: "[options]",
        about: "Manage the master's minion keys (like salt-key).",
        options: vec![
            brine_cli::CONFIG_DIR,
            Opt::flag("list-all", Some('L'), "list all keys"),
            Opt::value(
                "list",
                Some('l'),
                "ARG",
                "list keys in a state: acc(epted), pre/un(accepted), rej(ected), den(ied), all",
            ),
            Opt::value(
                "accept",
                Some('a'),
                "GLOB",
                "accept the matching pending keys",
            ),
            Opt::flag("accept-all", Some('A'), "accept all pending keys"),
            Opt::value(
                "reject",
                Some('r'),
                "GLOB",
                "reject the matching pending keys",
            ),
            Opt::flag("reject-all", Some('R'), "reject all pending keys"),
            Opt::value("delete", Some('d'), "GLOB", "delete the matching keys"),
            Opt::flag("delete-all", Some('D'), "delete all keys"),
            Opt::value(
                "finger",
                Some('f'),
                "GLOB",
                "print the fingerprints of the matching keys",
            ),
            Opt::flag("finger-all", Some('F'), "print all fingerprints"),
            Opt::value("print", Some('p'), "GLOB", "print the matching public keys"),
            Opt::flag("print-all", Some('P'), "print all public keys"),
            Opt::value(
                "gen-keys",
                None,
                "NAME",
                "write a key pair NAME.key/NAME.pub (for pre-seeding a minion)",
            ),
            Opt::value("gen-keys-dir", None, "DIR", "where --gen-keys writes [.]"),
            Opt::value(
                "import-salt-pki",
                None,
                "DIR",
                "from a Salt master's pki_dir (/etc/salt/pki/master): accept the pending keys \
                 of the ids Salt accepted, reject those of the ids it rejected or denied",
            ),
            Opt::flag("yes", Some('y'), "answer yes to all questions"),
            Opt::flag("include-rejected", None, "accept rejected keys too (-a/-A)"),
            Opt::flag("include-accepted", None, "reject accepted keys too (-r/-R)"),
            Opt::flag("include-denied", None, "act on denied keys too"),
            Opt::flag(
                "include-all",
                None,
                "--include-rejected with -a, --include-accepted with -r",
            ),
            Opt::value(
                "out",
                None,
                "OUTPUTTER",
                "key (default), json, yaml, nested, txt, raw or quiet",
            ),
        ],
    }
}

/// What the command line asks for: `Ok(None)` for help, `Some` to run.
pub fn parse(argv: &[String]) -> Result<Option<Args>, brine_cli::CliError> {
    use brine_cli::CliError;
    let m = match command().parse(argv)? {
        brine_cli::Parsed::Run(m) => m,
        _ => return Ok(None),
    };
    if let Some(extra) = m.positionals.first() {
        return Err(CliError::Invalid(format!("unexpected argument: {extra}")));
    }
    let config_dir = PathBuf::from(m.value("config-dir").unwrap_or("/etc/brine"));
    let out = match m.value("out") {
        None | Some("key") => None,
        Some(o) if brine_core::output::Outputter::from_name(o).is_some() => Some(o.to_string()),
        Some(other) => {
            return Err(CliError::Invalid(format!(
                "outputter '{other}' is not supported by brine-key \
                 (use key, json, yaml, nested, txt, raw or quiet)"
            )))
        }
    };
    let (yes, inc_acc, inc_rej, inc_den, inc_all) = (
        m.flag("yes"),
        m.flag("include-accepted"),
        m.flag("include-rejected"),
        m.flag("include-denied"),
        m.flag("include-all"),
    );
    // Which command options were given, by Salt's precedence name.
    let given: Vec<(String, Option<String>)> = m
        .opts
        .iter()
        .map(|(n, v)| (n.replace('-', "_"), v.clone()))
        .collect();

    if let Some((_, Some(list))) = given.iter().find(|(n, _)| *n == "list") {
        if !["acc", "pre", "un", "rej", "den", "all"]
            .iter()
            .any(|p| list.starts_with(p))
        {
            return Err(CliError::Invalid(format!(
                "'{list}' is not a valid argument to '--list'"
            )));
        }
    }

    // salt-key's precedence when several commands are given.
    let order = [
        "gen_keys",
        "import_salt_pki",
        "list",
        "list_all",
        "print",
        "print_all",
        "accept",
        "accept_all",
        "reject",
        "reject_all",
        "delete",
        "delete_all",
        "finger",
        "finger_all",
    ];
    let chosen = order
        .iter()
        .find_map(|name| given.iter().find(|(n, _)| n == name))
        .cloned();
    let arg = |v: Option<String>| v.unwrap_or_default();
    let command = match chosen {
        None => Command::ListAll,
        Some((name, v)) => match name.as_str() {
            "gen_keys" => Command::GenKeys {
                name: arg(v),
                dir: PathBuf::from(m.value("gen-keys-dir").unwrap_or(".")),
            },
            "import_salt_pki" => Command::ImportSaltPki(PathBuf::from(arg(v))),
            "list" => Command::List(arg(v)),
            "list_all" => Command::ListAll,
            "print" => Command::Print(arg(v)),
            "print_all" => Command::PrintAll,
            "accept" => Command::Accept(arg(v)),
            "accept_all" => Command::Accept("*".into()),
            "reject" => Command::Reject(arg(v)),
            "reject_all" => Command::Reject("*".into()),
            "delete" => Command::Delete(arg(v)),
            "delete_all" => Command::Delete("*".into()),
            "finger" => Command::Finger(arg(v)),
            _ => Command::FingerAll,
        },
    };
    // As salt-key: --include-all widens accept to rejected keys and reject
    // to accepted keys; accept never includes accepted, reject never
    // rejected.
    let (include_accepted, include_rejected) = match command {
        Command::Accept(_) => (false, inc_all || inc_rej),
        Command::Reject(_) => (inc_all || inc_acc, false),
        _ => (inc_acc, inc_rej),
    };
    Ok(Some(Args {
        config_dir,
        command,
        yes,
        out,
        include_accepted,
        include_rejected,
        include_denied: inc_den,
    }))
}

/// Where output goes; stdin answers the confirmation prompt.
pub struct Io<'a> {
    pub stdin: &'a mut dyn BufRead,
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
    /// Told of every key accepted, rejected or deleted (the binary fires
    /// the master's `salt/key` event).
    pub events: &'a mut dyn KeyEvents,
}

/// Who hears of the keys `brine-key` changed.
pub trait KeyEvents {
    /// `id`'s key went through `act` (`accept`, `reject`, `delete`) on the
    /// master configured in `config_dir`.
    fn changed(&mut self, config_dir: &std::path::Path, id: &str, act: &str);
}

/// Nobody hears (tests).
pub struct NoEvents;

impl KeyEvents for NoEvents {
    fn changed(&mut self, _: &std::path::Path, _: &str, _: &str) {}
}

/// A status section of a listing: `minions`, `minions_pre`, ... or `local`.
#[derive(Debug, Clone, PartialEq)]
enum Section {
    State(KeyState),
    Local,
}

impl Section {
    fn key(&self) -> &'static str {
        match self {
            Section::State(s) => s.dir_name(),
            Section::Local => "local",
        }
    }
    fn heading(&self) -> &'static str {
        match self {
            Section::State(s) => s.heading(),
            Section::Local => "Local Keys:",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Entries {
    Ids(Vec<String>),
    Pairs(Vec<(String, String)>),
}

type Listing = Vec<(Section, Entries)>;

/// salt-key's `key` outputter: sections sorted by their dict key, entries
/// sorted, `id:  value` for mappings.
fn render_key(listing: &Listing) -> String {
    let mut sections: Vec<&(Section, Entries)> = listing.iter().collect();
    sections.sort_by_key(|(s, _)| s.key());
    let mut out = String::new();
    for (section, entries) in sections {
        out.push_str(section.heading());
        out.push('\n');
        match entries {
            Entries::Ids(ids) => {
                let mut ids = ids.clone();
                ids.sort();
                for id in ids {
                    out.push_str(&id);
                    out.push('\n');
                }
            }
            Entries::Pairs(pairs) => {
                let mut pairs = pairs.clone();
                pairs.sort();
                for (id, v) in pairs {
                    // Salt strips the trailing newline of printed key files.
                    out.push_str(&format!("{id}:  {}\n", v.trim_end()));
                }
            }
        }
    }
    out
}

/// The listing as Salt's outputter `out` prints salt-key's answer (a
/// mapping of section to ids or fingerprints, in the listing's order).
fn render_with(out: &str, listing: &Listing) -> String {
    let mut top = Map::default();
    for (section, entries) in listing {
        let v = match entries {
            Entries::Ids(ids) => Value::List(ids.iter().map(|i| Value::from(i.as_str())).collect()),
            Entries::Pairs(pairs) => Value::Map(
                pairs
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
                    .collect(),
            ),
        };
        top.insert(section.key().to_string(), v);
    }
    // salt-key's answer is a plain dict, which PyYAML's dumper sorts (the
    // yaml outputter keeps the order of the OrderedDicts most returns are).
    if out == "yaml" {
        top.sort_keys();
    }
    let opts = brine_core::output::OutputOptions::default();
    brine_core::output::render_data(out, &Value::Map(top), &opts).unwrap_or_else(|e| {
        tracing::error!("brine-key: {e}");
        String::new()
    })
}

/// The listing through `--out` (salt-key's own layout by default).
fn render(args: &Args, listing: &Listing) -> String {
    match &args.out {
        Some(out) => render_with(out, listing),
        None => render_key(listing),
    }
}

pub fn main_with(argv: &[String], io: &mut Io) -> i32 {
    let cmd = command();
    // What is answered without running: help, version, the manual page
    // and completions.
    let told = match cmd.parse(argv) {
        Ok(brine_cli::Parsed::Help) => Some(cmd.help()),
        Ok(brine_cli::Parsed::Version) => Some(format!("brine-key {}\n", brine_cli::version())),
        Ok(brine_cli::Parsed::ManPage) => Some(cmd.man_page()),
        Ok(brine_cli::Parsed::Completion(shell)) => match cmd.completion(&shell) {
            Some(t) => Some(t),
            None => {
                let _ = writeln!(
                    io.stderr,
                    "{}\n\nbrine-key: error: --completion: {shell:?} is not one of {}",
                    cmd.usage_line(),
                    brine_cli::SHELLS.join(", ")
                );
                return EX_USAGE;
            }
        },
        _ => None,
    };
    if let Some(text) = told {
        let _ = io.stdout.write_all(text.as_bytes());
        return 0;
    }
    let args = match parse(argv) {
        Ok(Some(a)) => a,
        Ok(None) => {
            let _ = io.stdout.write_all(cmd.help().as_bytes());
            return 0;
        }
        Err(e) => {
            let _ = writeln!(io.stderr, "{}\n\nbrine-key: error: {e}", cmd.usage_line());
            return EX_USAGE;
        }
    };
    match run(&args, io) {
        Ok(code) => code,
        Err(msg) => {
            let _ = writeln!(io.stderr, "Error: {msg}");
            1
        }
    }
}

/// Why `brine-key` could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum KeyCliError {
    #[error(transparent)]
    Config(#[from] opts::OptsError),
    #[error(transparent)]
    Keys(#[from] super::KeyStoreError),
    #[error(transparent)]
    Backend(#[from] crate::backend::BackendError),
    #[error("{0}: {1}")]
    GenKeys(PathBuf, brine_protocol::keys::KeyFileError),
    #[error(transparent)]
    SaltImport(#[from] super::salt_import::SaltImportError),
}

/// The master's `pki_dir` from `<config_dir>/master` (Salt's defaults and
/// `root_dir` handling), and where its minion keys live.
/// The master's `pki_dir`, key backend and `max_pending_keys`.
pub fn pki_dir(
    config_dir: &std::path::Path,
) -> Result<(PathBuf, crate::backend::Backend, usize), KeyCliError> {
    let mut defaults = Map::default();
    defaults.insert("root_dir".into(), Value::from("/"));
    defaults.insert("pki_dir".into(), Value::from(DEFAULT_PKI_DIR));
    defaults.insert("cachedir".into(), Value::from("/var/cache/brine/master"));
    // master.d/*.conf over master, as the daemon reads them.
    let loaded = opts::load_including(
        &config_dir.join("master"),
        defaults,
        Some(&config_dir.join("master.d")),
    )?;
    let cachedir =
        PathBuf::from(opts::get_str(&loaded.opts, "cachedir").unwrap_or("/var/cache/brine/master"));
    let backend = crate::backend::Backend::of(&loaded.opts, &cachedir)?;
    let max_pending = match loaded.opts.get("max_pending_keys") {
        Some(Value::Int(n)) => usize::try_from(*n).unwrap_or(usize::MAX),
        _ => super::DEFAULT_MAX_PENDING,
    };
    Ok((
        PathBuf::from(opts::get_str(&loaded.opts, "pki_dir").unwrap_or(DEFAULT_PKI_DIR)),
        backend,
        max_pending,
    ))
}

fn run(args: &Args, io: &mut Io) -> Result<i32, KeyCliError> {
    // Needs no key store (salt-key --gen-keys runs without a master).
    if let Command::GenKeys { name, dir } = &args.command {
        return gen_keys(name, dir, args, io);
    }
    let (pki, backend, max_pending) = pki_dir(&args.config_dir)?;
    let store = KeyStore::for_config(&pki, &backend)?;
    let mut failed = false;
    let print = |io: &mut Io, listing: &Listing| {
        let text = render(args, listing);
        let _ = io.stdout.write_all(text.as_bytes());
    };
    match &args.command {
        Command::GenKeys { .. } => {}
        Command::ListAll => {
            let listing = list_states(&store, &KeyState::ALL)?;
            print(io, &listing);
            warn_unreadable(&store, &listing, io);
            warn_pending_full(&listing, max_pending, io);
        }
        Command::List(which) => {
            let states: &[KeyState] = if which.starts_with("acc") {
                &[KeyState::Accepted]
            } else if which.starts_with("pre") || which.starts_with("un") {
                &[KeyState::Pending]
            } else if which.starts_with("rej") {
                &[KeyState::Rejected]
            } else if which.starts_with("den") {
                &[KeyState::Denied]
            } else {
                &KeyState::ALL
            };
            let listing = list_states(&store, states)?;
            print(io, &listing);
            warn_unreadable(&store, &listing, io);
            warn_pending_full(&listing, max_pending, io);
        }
        Command::Finger(pattern) => {
            let matches = name_match(&store, pattern, true)?;
            let listing = fingerprints(&store, matches, io, &mut failed);
            print(io, &listing);
        }
        Command::FingerAll => {
            let matches = name_match(&store, "*", true)?;
            let listing = fingerprints(&store, matches, io, &mut failed);
            print(io, &listing);
        }
        Command::Print(_) | Command::PrintAll => {
            let pattern = match &args.command {
                Command::Print(p) => p.as_str(),
                _ => "*",
            };
            let mut listing = Listing::new();
            for (section, ids) in name_match(&store, pattern, false)? {
                let Section::State(state) = section else {
                    continue;
                };
                let mut pairs = Vec::new();
                for id in ids {
                    match store.read_text(state, &id) {
                        Ok(t) => pairs.push((id, t)),
                        Err(e) => {
                            let _ = writeln!(io.stderr, "Error: {e}");
                            failed = true;
                        }
                    }
                }
                listing.push((section, Entries::Pairs(pairs)));
            }
            print(io, &listing);
        }
        Command::Accept(pattern) | Command::Reject(pattern) | Command::Delete(pattern) => {
            failed |= change(&store, args, pattern, io)?;
        }
        Command::ImportSaltPki(dir) => failed |= import_salt_pki(&store, args, dir, io)?,
    }
    Ok(if failed { 1 } else { 0 })
}

/// Name, on stderr, every listed accepted or pending key that is not a
/// readable key: such a minion cannot authenticate, and the listing alone
/// would not show why. (stdout stays what salt-key prints.)
fn warn_unreadable(store: &KeyStore, listing: &Listing, io: &mut Io) {
    for (section, entries) in listing {
        let (Section::State(state @ (KeyState::Accepted | KeyState::Pending)), Entries::Ids(ids)) =
            (section, entries)
        else {
            continue;
        };
        for id in ids {
            if let Err(e) = store.read(*state, id) {
                let _ = writeln!(
                    io.stderr,
                    "Warning: the {} key of minion '{id}' cannot be read: {e}; the minion cannot \
                     authenticate until the file is fixed or the key deleted (brine-key -d {id})",
                    state.adjective()
                );
            }
        }
    }
}

/// Say so when the pending keys listed fill the master's
/// `max_pending_keys`: the master refuses every new minion until some are
/// dealt with.
fn warn_pending_full(listing: &Listing, max: usize, io: &mut Io) {
    for (section, entries) in listing {
        if let (Section::State(KeyState::Pending), Entries::Ids(ids)) = (section, entries) {
            if ids.len() >= max {
                let _ = writeln!(
                    io.stderr,
                    "Warning: {} keys are pending, the master's max_pending_keys ({max}): new \
                     minions are refused until pending keys are accepted, rejected or deleted",
                    ids.len()
                );
            }
        }
    }
}

/// `--gen-keys`: make (or keep) the pair, print the public key's
/// fingerprint under `return`, as salt-key does.
fn gen_keys(
    name: &str,
    dir: &std::path::Path,
    args: &Args,
    io: &mut Io,
) -> Result<i32, KeyCliError> {
    if brine_protocol::keys::validate_id(name).is_err() || name.contains('/') {
        let _ = writeln!(
            io.stderr,
            "brine-key: --gen-keys: '{name}' is not a valid key name"
        );
        return Ok(EX_USAGE);
    }
    let pair = brine_protocol::keys::load_or_create_pair(dir, name)
        .map_err(|e| KeyCliError::GenKeys(dir.join(name), e))?;
    let mut ret = Map::default();
    ret.insert("return".into(), Value::Str(pair.public().fingerprint()));
    let out = args.out.as_deref().unwrap_or("nested");
    let opts = brine_core::output::OutputOptions::default();
    let text = brine_core::output::render_data(out, &Value::Map(ret), &opts).unwrap_or_default();
    let _ = io.stdout.write_all(text.as_bytes());
    Ok(0)
}

fn list_states(store: &KeyStore, states: &[KeyState]) -> Result<Listing, KeyCliError> {
    states
        .iter()
        .map(|&s| Ok((Section::State(s), Entries::Ids(store.list(s)?))))
        .collect()
}

/// salt-key's `name_match`: ids (and with `full`, local key files) matching
/// a glob or comma-separated globs, by section in Salt's order, only
/// sections with matches.
fn name_match(
    store: &KeyStore,
    pattern: &str,
    full: bool,
) -> Result<Vec<(Section, Vec<String>)>, KeyCliError> {
    let globs: Vec<&str> = pattern.split(',').collect();
    let matches = |name: &str| globs.iter().any(|g| fnmatch(name, g));
    let mut out: Vec<(Section, Vec<String>)> = store
        .matching(pattern)?
        .into_iter()
        .map(|(state, ids)| (Section::State(state), ids))
        .collect();
    if full {
        let mut local: Vec<String> = store
            .local_keys()?
            .into_iter()
            .filter(|n| matches(n))
            .collect();
        sort_ignorecase(&mut local);
        if !local.is_empty() {
            out.push((Section::Local, local));
        }
    }
    Ok(out)
}

fn fingerprints(
    store: &KeyStore,
    matches: Vec<(Section, Vec<String>)>,
    io: &mut Io,
    failed: &mut bool,
) -> Listing {
    let mut listing = Listing::new();
    for (section, ids) in matches {
        let mut pairs = Vec::new();
        for id in ids {
            let keys = match &section {
                Section::State(s) => store.read(*s, &id),
                Section::Local => store.read_local(&id),
            };
            match keys {
                Ok(k) => pairs.push((id, k.fingerprint())),
                Err(e) => {
                    let _ = writeln!(io.stderr, "Error: {e}");
                    *failed = true;
                }
            }
        }
        listing.push((section, Entries::Pairs(pairs)));
    }
    listing
}

/// `-a`/`-r`/`-d` (and the `-A`/`-R`/`-D` forms): show what will change,
/// confirm, change, report. Returns whether some key failed.
fn change(store: &KeyStore, args: &Args, pattern: &str, io: &mut Io) -> Result<bool, KeyCliError> {
    let (verb, past) = match args.command {
        Command::Accept(_) => ("accept", "accepted"),
        Command::Reject(_) => ("reject", "rejected"),
        _ => ("delete", "deleted"),
    };
    let matches = name_match(store, pattern, false)?;
    let find = |state| {
        matches
            .iter()
            .find(|(s, _)| *s == Section::State(state))
            .map(|(_, ids)| ids.clone())
    };
    // Which keys are acted on, in salt-key's order: pending first, then the
    // states the --include options add; delete takes every match.
    let mut chosen: Vec<(KeyState, Vec<String>)> = Vec::new();
    if verb == "delete" {
        for state in KeyState::ALL {
            if let Some(ids) = find(state) {
                chosen.push((state, ids));
            }
        }
    } else {
        for (state, wanted) in [
            (KeyState::Pending, true),
            (KeyState::Accepted, args.include_accepted),
            (KeyState::Rejected, args.include_rejected),
            (KeyState::Denied, args.include_denied),
        ] {
            if let Some(ids) = find(state).filter(|_| wanted) {
                chosen.push((state, ids));
            }
        }
    }
    if chosen.is_empty() {
        let mut statuses = vec!["unaccepted"];
        if args.include_accepted {
            statuses.push("accepted");
        }
        if args.include_rejected {
            statuses.push("rejected");
        }
        if args.include_denied {
            statuses.push("denied");
        }
        let stat = match statuses.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => "unaccepted".to_string(),
        };
        let _ = writeln!(
            io.stdout,
            "The key glob '{pattern}' does not match any {stat} keys."
        );
        return Ok(false);
    }
    let listing: Listing = chosen
        .iter()
        .map(|(s, ids)| (Section::State(*s), Entries::Ids(ids.clone())))
        .collect();
    let _ = writeln!(io.stdout, "The following keys are going to be {past}:");
    let shown = render(args, &listing);
    let _ = io.stdout.write_all(shown.as_bytes());

    // Accepting and rejecting default to yes, deleting to no, as in
    // salt-key.
    if !confirm(args, io, verb != "delete") {
        return Ok(false);
    }
    let mut failed = false;
    for (state, ids) in &chosen {
        for id in ids {
            failed |= !act(store, args, io, verb, id, *state);
        }
    }
    Ok(failed)
}

/// salt-key's "Proceed?" unless `-y`. No answer at all (EOF: no terminal,
/// closed stdin) is no.
fn confirm(args: &Args, io: &mut Io, default_yes: bool) -> bool {
    if args.yes {
        return true;
    }
    let prompt = if default_yes {
        "Proceed? [n/Y] "
    } else {
        "Proceed? [N/y] "
    };
    let _ = io.stdout.write_all(prompt.as_bytes());
    let _ = io.stdout.flush();
    let mut line = String::new();
    match io.stdin.read_line(&mut line) {
        Ok(0) | Err(_) => {
            let _ = writeln!(io.stderr, "Error: EOF when reading a line");
            return false;
        }
        Ok(_) => {}
    }
    let answer = line.trim_end_matches(['\n', '\r']);
    if answer.is_empty() {
        default_yes
    } else {
        answer.to_lowercase().starts_with('y')
    }
}

/// Accept, reject or delete `id`'s key in `state`, say so, fire the event.
/// Returns whether it worked.
fn act(store: &KeyStore, args: &Args, io: &mut Io, verb: &str, id: &str, state: KeyState) -> bool {
    let (result, past) = match verb {
        "accept" => (store.accept(id, state), "accepted"),
        "reject" => (store.reject(id, state), "rejected"),
        _ => (store.delete(id, state), "deleted"),
    };
    match result {
        Ok(()) => {
            let _ = writeln!(io.stdout, "Key for minion {id} {past}.");
            io.events.changed(&args.config_dir, id, verb);
            true
        }
        Err(e) => {
            let _ = writeln!(io.stderr, "Error: {e}");
            false
        }
    }
}

/// `--import-salt-pki DIR`: say what Salt's `pki_dir` holds and what that
/// means here, confirm, then accept and reject (see
/// [`super::salt_import`]). Returns whether some key failed.
fn import_salt_pki(
    store: &KeyStore,
    args: &Args,
    dir: &std::path::Path,
    io: &mut Io,
) -> Result<bool, KeyCliError> {
    use super::salt_import::{plan, read_salt_pki};
    let salt = read_salt_pki(dir)?;
    let count = |s| salt.of(s).len();
    let _ = writeln!(
        io.stdout,
        "Salt's keys in {}: {} accepted, {} pending, {} rejected, {} denied.",
        dir.display(),
        count(KeyState::Accepted),
        count(KeyState::Pending),
        count(KeyState::Rejected),
        count(KeyState::Denied),
    );
    for path in &salt.skipped {
        let _ = writeln!(
            io.stderr,
            "Warning: {}: not a minion key file, left out",
            path.display()
        );
    }
    let p = plan(&salt, store)?;
    let say = |io: &mut Io, title: &str, ids: &[String]| {
        if !ids.is_empty() {
            let _ = writeln!(io.stdout, "{title}");
            for id in ids {
                let _ = writeln!(io.stdout, "{id}");
            }
        }
    };
    say(io, "Accepted here and in Salt:", &p.already);
    say(
        io,
        "Accepted in Salt, no brine key yet (run this again once their brine-minion has \
         started):",
        &p.waiting,
    );
    say(
        io,
        "Pending here, not accepted or refused in Salt (left pending):",
        &p.undecided,
    );
    say(
        io,
        "Accepted here but rejected or denied in Salt (left accepted; brine-key -r to change):",
        &p.refused_there,
    );
    if p.accept.is_empty() && p.reject.is_empty() {
        let _ = writeln!(io.stdout, "No pending key to accept or reject.");
        return Ok(false);
    }
    say(
        io,
        "The following keys are going to be accepted (Salt accepted their ids):",
        &p.accept,
    );
    say(
        io,
        "The following keys are going to be rejected (Salt rejected or denied their ids):",
        &p.reject,
    );
    if !confirm(args, io, true) {
        return Ok(false);
    }
    let mut failed = false;
    for id in &p.accept {
        failed |= !act(store, args, io, "accept", id, KeyState::Pending);
    }
    for id in &p.reject {
        failed |= !act(store, args, io, "reject", id, KeyState::Pending);
    }
    Ok(failed)
}

#[cfg(test)]
mod tests;
