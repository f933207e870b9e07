//! What the master knows about each accepted minion (Salt's minion data
//! cache): the grains it sent when it authenticated, and the last pillar the
//! master compiled for it (with the pillarenv of that compile). Targeting
//! (`-G`, `-I`, `-C`...) and state compiles read it.
//!
//! Written to `<cachedir>/minions/<id>/data.p` (msgpack, 0600, in a 0700
//! folder per minion, as Salt lays it out: an id may use all 255 bytes a
//! file name has), so a restarted master can target before minions come
//! back. Grains and the pillarenv are also kept in memory (every compile
//! and most targets read them); a pillar is not: it is the largest thing a
//! minion has and only pillar targets (`-I`, `-J`, compound) read it, so
//! they read it from the file as Salt's `localfs` cache does (and so does
//! a pillar replay). The master's memory per minion is its grains (kept
//! packed: [`KnownMinion`]), plus about 100 bytes when its pillar can be
//! replayed: the digest of its file and what its compile was given (the
//! grains shared, not copied; the file set shared by every minion that
//! read the same files). Its last compiled states, when they may be sent
//! again, are in `states.p` beside `data.p` ([`state_replay`]: about 150
//! bytes of memory more).

use super::replay::{Given, InputsTable, Replay};
use super::state_replay::{self, StateReplays};
use brine_compile::inputs::Inputs;
use brine_compile::MinionData;
use brine_core::{Map, Value};
use brine_protocol::keys::validate_id;
use brine_protocol::messages::PackedValue;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("minion cache {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("minion cache: cannot encode the data of {id}: {source}")]
    Encode {
        id: String,
        source: rmp_serde::encode::Error,
    },
    #[error("minion cache: {0}")]
    BadId(#[from] brine_protocol::keys::InvalidId),
}

/// One minion's cached data, as the file holds it (written through
/// [`CachedMinionRef`], the same fields borrowed).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
struct CachedMinion {
    pub grains: Value,
    /// Null until the master compiled a pillar for the minion.
    pub pillar: Value,
    /// The minion's configured `pillarenv` (sent at auth).
    pub pillarenv: Option<String>,
}

/// [`CachedMinion`] to write, borrowing what it holds (`P`: the pillar, a
/// [`Value`] or the [`Map`] a compile gives, which serialize alike).
struct CachedMinionRef<'a, P: Serialize> {
    /// Packed, as [`KnownMinion`] keeps them.
    grains: &'a PackedValue,
    pillar: &'a P,
    pillarenv: &'a Option<String>,
}

impl<P: Serialize> CachedMinionRef<'_, P> {
    /// The file's bytes: what `rmp_serde::to_vec_named` gives for a
    /// [`CachedMinion`] holding the same values, the packed grains copied
    /// in as they are.
    fn encode(&self) -> Result<Vec<u8>, rmp_serde::encode::Error> {
        let mut bytes = Vec::with_capacity(self.grains.0.len() + 64);
        let field = |bytes: &mut Vec<u8>, name: &str| rmp::encode::write_str(bytes, name);
        rmp::encode::write_map_len(&mut bytes, 3)?;
        field(&mut bytes, "grains")?;
        bytes.extend_from_slice(&self.grains.0);
        field(&mut bytes, "pillar")?;
        rmp_serde::encode::write_named(&mut bytes, self.pillar)?;
        field(&mut bytes, "pillarenv")?;
        rmp_serde::encode::write_named(&mut bytes, self.pillarenv)?;
        Ok(bytes)
    }
}

/// What is kept in memory of a minion.
#[derive(Debug, Clone, PartialEq)]
pub struct KnownMinion {
    /// Its grains packed (msgpack): built as a [`Value`] a Debian host's
    /// took 36 KB of the master's memory (the most of what an idle minion
    /// cost it), packed they take 4 KB; they are built when a compile or
    /// a target reads them.
    grains: PackedValue,
    /// The minion's configured `pillarenv` (sent at auth).
    pub pillarenv: Option<String>,
}

impl Default for KnownMinion {
    /// A minion the master knows nothing of: no grains (nil).
    fn default() -> Self {
        KnownMinion {
            grains: PackedValue::nil(),
            pillarenv: None,
        }
    }
}

impl KnownMinion {
    /// Its grains (a map; Null when none were cached).
    pub fn grains(&self) -> Value {
        self.grains.unpack()
    }

    /// Whether grains were cached for it (a map).
    pub fn has_grains(&self) -> bool {
        brine_protocol::messages::is_map(&self.grains.0)
    }

    /// One grain, built alone.
    pub fn grain(&self, name: &str) -> Option<Value> {
        let field = brine_protocol::messages::map_field(&self.grains.0, name)?;
        rmp_serde::from_slice(field).ok()
    }

    /// A minion known by these grains alone.
    #[cfg(test)]
    pub fn with_grains(grains: &Value) -> KnownMinion {
        KnownMinion {
            grains: pack_grains("test", grains).unwrap(),
            pillarenv: None,
        }
    }

    /// The grains as packed (what a compile's digest takes).
    pub fn packed_grains(&self) -> &[u8] {
        &self.grains.0
    }
}

/// `grains` packed to be kept, holding no spare capacity.
fn pack_grains(id: &str, grains: &Value) -> Result<PackedValue, CacheError> {
    let mut packed = PackedValue::pack(grains).map_err(|source| CacheError::Encode {
        id: id.to_string(),
        source,
    })?;
    packed.0.shrink_to_fit();
    Ok(packed)
}

/// What a target type reads of a minion besides its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Needs {
    pub grains: bool,
    pub pillar: bool,
    /// The master's options (nodegroups).
    pub opts: bool,
}

impl Needs {
    /// What matching `tgt_type` reads: glob, pcre and list only the id;
    /// a compound or nodegroup expression may read anything.
    pub fn of(tgt_type: &str) -> Needs {
        let (grains, pillar, opts) = match tgt_type {
            "glob" | "pcre" | "list" => (false, false, false),
            "grain" | "grain_pcre" | "ipcidr" => (true, false, false),
            "pillar" | "pillar_pcre" | "pillar_exact" => (false, true, false),
            _ => (true, true, true),
        };
        Needs {
            grains,
            pillar,
            opts,
        }
    }
}

/// The file in a minion's folder (Salt's name).
const DATA_FILE: &str = "data.p";

#[derive(Debug)]
pub struct MinionCache {
    dir: PathBuf,
    map: RwLock<HashMap<String, Arc<KnownMinion>>>,
    /// Held through a change and its write to disk, so that two changes of
    /// one minion (an authentication and a pillar compile) reach its file
    /// in the order they reach memory; readers of `map` do not wait on it.
    /// It holds the digest of what was last written to each minion's file
    /// (an entry per minion written since start): a compile that gives the
    /// same pillar again (every highstate of an unchanged tree) writes
    /// nothing. With it, what the pillar in the file was compiled from,
    /// when it can be given again ([`super::replay`]).
    writes: Mutex<HashMap<String, Written>>,
    /// The file sets of those replays, shared.
    inputs: Mutex<InputsTable>,
    /// Compiled states kept to be sent again ([`state_replay`]).
    states: Mutex<StateReplays>,
}

/// A minion's file as last written.
#[derive(Debug)]
struct Written {
    digest: blake3::Hash,
    replay: Option<Replay<KnownMinion>>,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> CacheError + '_ {
    move |source| CacheError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl MinionCache {
    /// Open (creating, 0700) `dir` and load every cached minion. Files that
    /// do not decode are skipped with a warning: the minion's next
    /// authentication writes them anew.
    pub fn open(dir: &Path) -> Result<MinionCache, CacheError> {
        brine_protocol::keys::create_dir_private(dir).map_err(|e| CacheError::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })?;
        let mut map = HashMap::new();
        for entry in std::fs::read_dir(dir).map_err(io_err(dir))? {
            let entry = entry.map_err(io_err(dir))?;
            let Ok(id) = entry.file_name().into_string() else {
                continue;
            };
            if validate_id(&id).is_err() || !entry.path().is_dir() {
                continue;
            }
            // Kept compiled states are known to this process only: an
            // earlier one's are not sent, and go so the disk stays bounded.
            let _ = std::fs::remove_file(entry.path().join(state_replay::FILE));
            let path = entry.path().join(DATA_FILE);
            match std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| rmp_serde::from_slice::<CachedMinion>(&b).map_err(|e| e.to_string()))
            {
                Ok(c) => match pack_grains(&id, &c.grains) {
                    Ok(grains) => {
                        let known = KnownMinion {
                            grains,
                            pillarenv: c.pillarenv,
                        };
                        map.insert(id, Arc::new(known));
                    }
                    Err(e) => tracing::warn!("skipping minion cache {}: {e}", path.display()),
                },
                Err(e) => {
                    tracing::warn!("skipping unreadable minion cache {}: {e}", path.display())
                }
            }
        }
        Ok(MinionCache {
            dir: dir.to_path_buf(),
            map: RwLock::new(map),
            writes: Mutex::new(HashMap::new()),
            inputs: Mutex::default(),
            states: Mutex::default(),
        })
    }

    pub fn get(&self, id: &str) -> Option<Arc<KnownMinion>> {
        self.read().get(id).cloned()
    }

    /// The last pillar compiled for `id`, from its file (Null when none).
    pub fn pillar(&self, id: &str) -> Value {
        if validate_id(id).is_err() {
            return Value::Null;
        }
        self.load(id).map(|c| c.pillar).unwrap_or(Value::Null)
    }

    fn load(&self, id: &str) -> Option<CachedMinion> {
        let bytes = std::fs::read(self.path(id)).ok()?;
        rmp_serde::from_slice(&bytes).ok()
    }

    /// Ids with cached data.
    pub fn ids(&self) -> Vec<String> {
        self.read().keys().cloned().collect()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<String, Arc<KnownMinion>>> {
        // A panic while holding the lock leaves plain data behind; keep
        // serving it.
        self.map.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Change what is kept in memory of `id`, and write it with the pillar
    /// on disk (a new pillar goes through [`MinionCache::set_pillar`]).
    fn update(&self, id: &str, change: impl FnOnce(&mut KnownMinion)) -> Result<(), CacheError> {
        validate_id(id)?;
        let mut written = self.writes.lock().unwrap_or_else(|p| p.into_inner());
        let known = {
            let mut map = self.map.write().unwrap_or_else(|p| p.into_inner());
            let before = map.get(id);
            let mut known = before.map(|c| (**c).clone()).unwrap_or_default();
            change(&mut known);
            // A minion authenticating again with the same grains changes
            // nothing: its file and its pillar's replay stay.
            if before.is_some_and(|b| **b == known) {
                return Ok(());
            }
            // Memory first: a disk problem costs only the copy kept for
            // the next start and for pillar targets, not this run's
            // compiles.
            map.insert(id.to_string(), Arc::new(known.clone()));
            known
        };
        // Written outside the map's lock: targeting and compiles go on
        // reading grains meanwhile.
        let pillar = self.pillar(id);
        self.persist(
            id,
            &CachedMinionRef {
                grains: &known.grains,
                pillar: &pillar,
                pillarenv: &known.pillarenv,
            },
            None,
            &mut written,
        )
    }

    /// The grains a minion sent when it authenticated.
    pub fn set_grains(&self, id: &str, grains: Value) -> Result<(), CacheError> {
        let grains = pack_grains(id, &grains)?;
        self.update(id, |c| c.grains = grains)
    }

    /// What a minion sent when it authenticated: grains and its configured
    /// pillarenv.
    pub fn set_auth(
        &self,
        id: &str,
        grains: Value,
        pillarenv: Option<String>,
    ) -> Result<(), CacheError> {
        let grains = pack_grains(id, &grains)?;
        self.update(id, |c| {
            c.grains = grains;
            c.pillarenv = pillarenv;
        })
    }

    /// The pillar just compiled for the minion (Salt caches every compile).
    /// Memory is unchanged (grains and pillarenv are), so only the file is
    /// written, and only when its bytes change. With `replay`, what it was
    /// compiled from, when the compile may be given again.
    pub fn set_pillar(
        &self,
        id: &str,
        pillar: &Map,
        replay: Option<(Given<KnownMinion>, Inputs)>,
    ) -> Result<(), CacheError> {
        validate_id(id)?;
        let replay = replay.and_then(|(given, inputs)| {
            let inputs = self
                .inputs
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .intern(inputs)?;
            Some(Replay::new(given, inputs))
        });
        let mut written = self.writes.lock().unwrap_or_else(|p| p.into_inner());
        let known = self.get(id).unwrap_or_default();
        self.persist(
            id,
            &CachedMinionRef {
                grains: &known.grains,
                pillar,
                pillarenv: &known.pillarenv,
            },
            replay,
            &mut written,
        )
    }

    /// The pillar in `id`'s file, encoded as it is there (a map, as
    /// `rmp_serde::to_vec_named` encodes one), when it was compiled from
    /// `given` and every file that compile read is unchanged for a request
    /// that arrived at `received`: what compiling again would give. Not
    /// decoded: it is sealed to the minion as it is.
    pub fn pillar_replayed(
        &self,
        id: &str,
        given: &Given<KnownMinion>,
        received: Instant,
    ) -> Option<Vec<u8>> {
        let (inputs, digest) = {
            let written = self.writes.lock().unwrap_or_else(|p| p.into_inner());
            let w = written.get(id)?;
            (w.replay.as_ref()?.inputs_for(given)?, w.digest)
        };
        // Checked outside the lock: other minions' compiles go on.
        if !inputs.unchanged_since(received) {
            return None;
        }
        // The file must still be the one written for that compile (another
        // compile of this minion may have replaced it since).
        let bytes = std::fs::read(self.path(id)).ok()?;
        if blake3::hash(&bytes) != digest {
            return None;
        }
        let pillar = brine_protocol::messages::map_field(&bytes, "pillar")?;
        brine_protocol::messages::is_map(pillar).then(|| pillar.to_vec())
    }

    /// The compiled states kept for `id` (encoded), when they were
    /// compiled from `given` and every file that compile read is unchanged
    /// for a request that arrived at `received`.
    pub fn states_replayed(
        &self,
        id: &str,
        given: state_replay::Given,
        received: Instant,
    ) -> Option<Vec<u8>> {
        let c = self.state_replays().candidate(id, given)?;
        // Checked outside the lock: other minions' compiles go on.
        if !c.inputs.unchanged_since(received) {
            return None;
        }
        let bytes = std::fs::read(self.states_path(id)).ok()?;
        (blake3::hash(&bytes) == c.digest).then_some(bytes)
    }

    /// Keep `encoded`, the states just compiled for `id` from `given`
    /// after reading `inputs` (`keep`; `None`: not to be sent again), when
    /// the bounds allow; what was kept before goes.
    pub fn keep_states(
        &self,
        id: &str,
        keep: Option<(state_replay::Given, Inputs)>,
        encoded: &[u8],
    ) -> Result<(), CacheError> {
        validate_id(id)?;
        let admitted = {
            let mut states = self.state_replays();
            match keep {
                Some((given, inputs)) => states.admit(id, given, inputs, encoded),
                // Nothing was kept: no file to look for.
                None if !states.forget(id) => return Ok(()),
                None => false,
            }
        };
        if !admitted {
            // Past the bounds: the file of an earlier answer goes too.
            let _ = std::fs::remove_file(self.states_path(id));
            return Ok(());
        }
        self.write_private(id, state_replay::FILE, encoded)
            .inspect_err(|_| {
                self.state_replays().forget(id);
            })
    }

    fn state_replays(&self) -> std::sync::MutexGuard<'_, StateReplays> {
        self.states.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Bytes and minions of the kept compiled states.
    #[cfg(test)]
    pub fn states_kept(&self) -> (u64, usize) {
        let s = self.state_replays();
        (s.bytes(), s.len())
    }

    /// Paths held by the kept replays, all file sets together.
    #[cfg(test)]
    pub fn replay_paths(&self) -> usize {
        self.inputs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .paths()
    }

    /// Forget a minion (its key was deleted or rejected).
    pub fn remove(&self, id: &str) {
        if validate_id(id).is_err() {
            return;
        }
        let mut written = self.writes.lock().unwrap_or_else(|p| p.into_inner());
        written.remove(id);
        self.state_replays().forget(id);
        self.map
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
        let _ = std::fs::remove_dir_all(self.dir.join(id));
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(id).join(DATA_FILE)
    }

    /// Where the compiled states kept for `id` are.
    fn states_path(&self, id: &str) -> PathBuf {
        self.dir.join(id).join(state_replay::FILE)
    }

    /// Write atomically: a private temporary file, then rename. Not
    /// synced: a file a crash left empty is skipped at the next start and
    /// rewritten at the minion's next authentication (it is a cache).
    /// `written` is the table of digests, locked by the caller.
    fn persist<P: Serialize>(
        &self,
        id: &str,
        entry: &CachedMinionRef<'_, P>,
        replay: Option<Replay<KnownMinion>>,
        written: &mut HashMap<String, Written>,
    ) -> Result<(), CacheError> {
        let bytes = entry.encode().map_err(|source| CacheError::Encode {
            id: id.to_string(),
            source,
        })?;
        let digest = blake3::hash(&bytes);
        if let Some(w) = written.get_mut(id).filter(|w| w.digest == digest) {
            w.replay = replay;
            return Ok(());
        }
        // Forgotten until this write succeeds: a failed write is tried
        // again by the next change.
        written.remove(id);
        self.write_private(id, DATA_FILE, &bytes)?;
        written.insert(id.to_string(), Written { digest, replay });
        Ok(())
    }

    /// Write `bytes` to `name` in `id`'s folder atomically: a private
    /// temporary file, then rename.
    fn write_private(&self, id: &str, name: &str, bytes: &[u8]) -> Result<(), CacheError> {
        let mut suffix = [0u8; 8];
        brine_protocol::crypto::fill_random(&mut suffix).map_err(|e| CacheError::Io {
            path: self.dir.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
        let folder = self.dir.join(id);
        brine_protocol::keys::create_dir_private(&folder).map_err(|e| CacheError::Io {
            path: folder.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
        let tmp = folder.join(format!(
            ".{name}.{}.tmp",
            suffix
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        ));
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)?;
            f.write_all(bytes)?;
            std::fs::rename(&tmp, folder.join(name))
        };
        write().map_err(|source| {
            let _ = std::fs::remove_file(&tmp);
            CacheError::Io {
                path: folder.join(name),
                source,
            }
        })
    }

    /// What the matchers know of `id`: of its grains, pillar (empty maps
    /// when unknown or not needed) and `opts`, the master's options
    /// (nodegroups for `N@`), what `needs` asks for.
    pub fn minion_data(&self, id: &str, opts: &Value, needs: Needs) -> MinionData {
        let map_or_empty = |v: Option<Value>| match v {
            Some(m @ Value::Map(_)) => m,
            _ => Value::new_map(),
        };
        let grains = needs
            .grains
            .then(|| self.get(id).map(|c| c.grains()))
            .flatten();
        let pillar = needs.pillar.then(|| self.pillar(id));
        MinionData {
            id: id.to_string(),
            grains: map_or_empty(grains),
            pillar: map_or_empty(pillar),
            opts: if needs.opts {
                opts.clone()
            } else {
                Value::Null
            },
            // Targeting only: no templates.
            functions: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_core::Map;

    #[test]
    fn the_same_pillar_again_is_not_written_again() {
        use std::os::unix::fs::MetadataExt;
        let td = tempfile::tempdir().unwrap();
        let c = MinionCache::open(td.path()).unwrap();
        c.set_grains("web1", Value::new_map()).unwrap();
        let file = td.path().join("web1/data.p");
        let inode = || std::fs::metadata(&file).unwrap().ino();
        let mut p = Map::default();
        p.insert("role".into(), "web".into());
        c.set_pillar("web1", &p, None).unwrap();
        let first = inode();
        // Each write is a new file renamed into place: the same inode
        // means no write.
        c.set_pillar("web1", &p, None).unwrap();
        assert_eq!(inode(), first);
        p.insert("role".into(), "db".into());
        c.set_pillar("web1", &p, None).unwrap();
        assert_ne!(inode(), first);
        assert_eq!(c.pillar("web1"), Value::Map(p.clone()));
        // Grains changed: written, with the pillar kept.
        let mut g = Map::default();
        g.insert("os".into(), "Debian".into());
        c.set_grains("web1", Value::Map(g)).unwrap();
        assert_eq!(c.pillar("web1"), Value::Map(p));
    }

    #[test]
    fn survives_a_restart_and_skips_junk() {
        let td = tempfile::tempdir().unwrap();
        let dir = td.path().join("minions");
        let c = MinionCache::open(&dir).unwrap();
        let mut g = Map::default();
        g.insert("os".into(), "Debian".into());
        c.set_grains("web1", Value::Map(g.clone())).unwrap();
        let mut p = Map::default();
        p.insert("role".into(), "web".into());
        c.set_pillar("web1", &p, None).unwrap();
        c.set_auth("web1", Value::Map(g.clone()), Some("dev".into()))
            .unwrap();
        std::fs::create_dir(dir.join("junk")).unwrap();
        std::fs::write(dir.join("junk/data.p"), b"\xc1\xc1").unwrap();
        // An id as long as a file name may be.
        let long = "w".repeat(255);
        c.set_grains(&long, Value::Map(g.clone())).unwrap();
        assert!(c.set_grains("../evil", Value::Null).is_err());

        let c = MinionCache::open(&dir).unwrap();
        let got = c.get("web1").unwrap();
        assert_eq!(got.grains(), Value::Map(g));
        assert_eq!(c.pillar("web1"), Value::Map(p));
        assert_eq!(got.pillarenv.as_deref(), Some("dev"));
        assert!(c.get("junk").is_none());
        assert!(c.get(&long).is_some());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("web1/data.p"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);

        let all = Needs::of("compound");
        let d = c.minion_data("web1", &Value::Null, all);
        assert_eq!(d.grains.get("os"), Some(&Value::from("Debian")));
        assert_eq!(d.pillar.get("role"), Some(&Value::from("web")));
        let d = c.minion_data("web1", &Value::Null, Needs::of("glob"));
        assert_eq!(d.grains, Value::new_map());
        let unknown = c.minion_data("db1", &Value::Null, all);
        assert_eq!(unknown.grains, Value::new_map());
        c.remove("web1");
        assert!(MinionCache::open(&dir).unwrap().get("web1").is_none());
    }

    /// What the file held when the grains were kept as a value.
    #[derive(Serialize)]
    struct AsValues<'a> {
        grains: &'a Value,
        pillar: &'a Value,
        pillarenv: &'a Option<String>,
    }

    #[test]
    fn packed_grains_are_written_and_read_as_the_values_were() {
        let grains = Value::from_json(&serde_json::json!({
            "os": "Debian", "id": "web1", "ipv4": ["10.0.0.1", "127.0.0.1"],
            "nested": {"a": [1, 2.5, null, true]}, "big": "x".repeat(300),
        }));
        let pillar = Value::from_json(&serde_json::json!({"role": "web"}));
        for pillarenv in [None, Some("dev".to_string())] {
            let packed = pack_grains("web1", &grains).unwrap();
            let entry = CachedMinionRef {
                grains: &packed,
                pillar: &pillar,
                pillarenv: &pillarenv,
            };
            let old = rmp_serde::to_vec_named(&AsValues {
                grains: &grains,
                pillar: &pillar,
                pillarenv: &pillarenv,
            })
            .unwrap();
            assert_eq!(entry.encode().unwrap(), old);
        }
        let known = KnownMinion {
            grains: pack_grains("web1", &grains).unwrap(),
            pillarenv: None,
        };
        assert!(known.has_grains());
        assert_eq!(known.grains(), grains);
        assert_eq!(known.grain("os"), Some(Value::from("Debian")));
        assert_eq!(known.grain("nested"), grains.get("nested").cloned());
        assert_eq!(known.grain("missing"), None);
        let unknown = KnownMinion::default();
        assert!(!unknown.has_grains());
        assert_eq!(unknown.grains(), Value::Null);
        // A minion known only by its pillar still writes a whole file.
        let entry = CachedMinionRef {
            grains: &unknown.grains,
            pillar: &pillar,
            pillarenv: &None,
        };
        let back: CachedMinion = rmp_serde::from_slice(&entry.encode().unwrap()).unwrap();
        assert_eq!(back.grains, Value::Null);
        assert_eq!(back.pillar, pillar);
    }
}
