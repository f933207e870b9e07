//! Minion keys in the PostgreSQL several masters share (`master_job_cache:
//! pgjsonb`): one table, `brine_keys`, with the text a key file would hold,
//! so `brine-key -a` on one master is what every master sees at the
//! minion's next request. The master's own key pair stays in `pki_dir`
//! (every master of a site holds the same one, as with Salt).
//!
//! Every request of a minion checks its accepted key, so accepted keys are
//! kept in memory ([`Accepted`]) while a connection of their own LISTENs on
//! the `brine_keys` channel: any master that changes a key NOTIFYs its id
//! there, and every master drops it. While that connection is down nothing
//! is kept, so a key deleted on another master is never honoured from
//! memory.

use super::state::KeyState;
use crate::postgres::{Pg, PgError};
use std::sync::Arc;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS brine_keys (
    state varchar(16) NOT NULL,
    id varchar(255) NOT NULL,
    pub text NOT NULL,
    PRIMARY KEY (state, id)
);
";

/// Masters starting at once would race on `CREATE ... IF NOT EXISTS`.
const SCHEMA_LOCK: i64 = 0x6272_696e_6502;

/// The channel key changes are announced on (the payload: the minion id).
const CHANNEL: &str = "brine_keys";

/// The most accepted keys kept in memory (beyond it, they are read each
/// time).
const MAX_KEPT: usize = 200_000;

#[derive(Debug, Clone)]
pub struct PgKeys {
    pg: Arc<Pg>,
    accepted: Arc<Accepted>,
}

/// Accepted keys kept in memory while the LISTEN connection is up.
#[derive(Debug, Default)]
pub struct Accepted {
    state: std::sync::Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    live: bool,
    /// Bumped by every drop: a read that began before a drop does not
    /// keep what it read.
    generation: u64,
    keys: std::collections::HashMap<String, String>,
}

impl Accepted {
    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The kept key text of `id`, and the generation to keep a read under.
    fn get(&self, id: &str) -> (Option<String>, Option<u64>) {
        let k = self.lock();
        if !k.live {
            return (None, None);
        }
        (k.keys.get(id).cloned(), Some(k.generation))
    }

    fn keep(&self, id: &str, text: &str, generation: u64) {
        let mut k = self.lock();
        if k.live && k.generation == generation && k.keys.len() < MAX_KEPT {
            k.keys.insert(id.to_string(), text.to_string());
        }
    }

    fn drop_key(&self, id: &str) {
        let mut k = self.lock();
        k.generation += 1;
        k.keys.remove(id);
    }

    /// A number that changes whenever a key may have changed, while the
    /// LISTEN connection is up; `None` while it is not.
    fn stamp(&self) -> Option<u64> {
        let k = self.lock();
        k.live.then_some(k.generation)
    }

    fn set_live(&self, live: bool) {
        let mut k = self.lock();
        k.live = live;
        k.generation += 1;
        k.keys.clear();
    }
}

/// Keep a connection LISTENing for key changes; `accepted` is live only
/// while it is.
async fn listen(config: tokio_postgres::Config, accepted: Arc<Accepted>) {
    loop {
        if let Ok(Ok((client, mut connection))) =
            tokio::time::timeout(crate::postgres::WAIT, config.connect(tokio_postgres::NoTls)).await
        {
            let a = accepted.clone();
            let driver = tokio::spawn(async move {
                while let Some(Ok(msg)) =
                    std::future::poll_fn(|cx| connection.poll_message(cx)).await
                {
                    if let tokio_postgres::AsyncMessage::Notification(n) = msg {
                        a.drop_key(n.payload());
                    }
                }
            });
            let listening = tokio::time::timeout(
                crate::postgres::WAIT,
                client.batch_execute(&format!("LISTEN {CHANNEL}")),
            )
            .await;
            if matches!(listening, Ok(Ok(()))) {
                accepted.set_live(true);
                let _ = driver.await;
            } else {
                driver.abort();
            }
            accepted.set_live(false);
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
}

impl PgKeys {
    /// Make the key table if the database lacks it.
    pub fn open(pg: Arc<Pg>) -> Result<PgKeys, PgError> {
        pg.create_schema("create the key table", SCHEMA_LOCK, SCHEMA)?;
        let accepted = Arc::new(Accepted::default());
        pg.spawn(listen(pg.config(), accepted.clone()));
        Ok(PgKeys { pg, accepted })
    }

    /// Tell every master (this one at once) that `id`'s keys changed.
    fn announce(&self, id: &str) -> Result<(), PgError> {
        self.accepted.drop_key(id);
        let id = id.to_string();
        self.pg
            .run("announce a key change", move |conn| async move {
                conn.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &id])
                    .await
                    .map(drop)
            })
    }

    /// The stored text of `id`'s key in `state`.
    pub fn read_text(&self, state: KeyState, id: &str) -> Result<Option<String>, PgError> {
        let mut generation = None;
        if state == KeyState::Accepted {
            let (kept, g) = self.accepted.get(id);
            if kept.is_some() {
                return Ok(kept);
            }
            generation = g;
        }
        let read = self.read_stored(state, id)?;
        if let (Some(text), Some(g)) = (&read, generation) {
            self.accepted.keep(id, text, g);
        }
        Ok(read)
    }

    fn read_stored(&self, state: KeyState, id: &str) -> Result<Option<String>, PgError> {
        let (state, id) = (state.dir_name(), id.to_string());
        self.pg.run("read a minion key", move |conn| async move {
            // Every request of a minion checks its key: prepared once per
            // connection.
            let st = conn
                .prepare_cached("SELECT pub FROM brine_keys WHERE state = $1 AND id = $2")
                .await?;
            conn.query_opt(&st, &[&state, &id])
                .await?
                .map(|r| r.try_get(0))
                .transpose()
        })
    }

    /// Store `text` as `id`'s key in `state`, replacing one there.
    pub fn write(&self, state: KeyState, id: &str, text: String) -> Result<(), PgError> {
        let (dir, who) = (state.dir_name(), id.to_string());
        self.pg.run("store a minion key", move |conn| async move {
            conn.execute(
                "INSERT INTO brine_keys (state, id, pub) VALUES ($1, $2, $3)
                 ON CONFLICT (state, id) DO UPDATE SET pub = $3",
                &[&dir, &who, &text],
            )
            .await
            .map(drop)
        })?;
        self.announce(id)
    }

    /// Store `text` as `id`'s key in `state` unless one is there; whether
    /// it was stored. Two masters seeing a new minion at once file it once.
    pub fn add(&self, state: KeyState, id: &str, text: String) -> Result<bool, PgError> {
        let (dir, who) = (state.dir_name(), id.to_string());
        let added = self
            .pg
            .run("store a new minion key", move |conn| async move {
                conn.execute(
                    "INSERT INTO brine_keys (state, id, pub) VALUES ($1, $2, $3)
                     ON CONFLICT DO NOTHING",
                    &[&dir, &who, &text],
                )
                .await
                .map(|n| n == 1)
            })?;
        if added {
            self.announce(id)?;
        }
        Ok(added)
    }

    /// Move `id`'s key from `from` to `to` (replacing one there); false
    /// when `from` holds none.
    pub fn move_key(&self, id: &str, from: KeyState, to: KeyState) -> Result<bool, PgError> {
        let (from, to, who) = (from.dir_name(), to.dir_name(), id.to_string());
        let moved = self
            .pg
            .run("move a minion key", move |mut conn| async move {
                let tx = conn.transaction().await?;
                let Some(row) = tx
                    .query_opt(
                        "DELETE FROM brine_keys WHERE state = $1 AND id = $2 RETURNING pub",
                        &[&from, &who],
                    )
                    .await?
                else {
                    return Ok(false);
                };
                let text: String = row.try_get(0)?;
                tx.execute(
                    "INSERT INTO brine_keys (state, id, pub) VALUES ($1, $2, $3)
                 ON CONFLICT (state, id) DO UPDATE SET pub = $3",
                    &[&to, &who, &text],
                )
                .await?;
                tx.commit().await?;
                Ok(true)
            })?;
        if moved {
            self.announce(id)?;
        }
        Ok(moved)
    }

    /// Remove `id`'s key in `state`; false when there was none.
    pub fn delete(&self, id: &str, state: KeyState) -> Result<bool, PgError> {
        let (dir, who) = (state.dir_name(), id.to_string());
        let deleted = self.pg.run("delete a minion key", move |conn| async move {
            conn.execute(
                "DELETE FROM brine_keys WHERE state = $1 AND id = $2",
                &[&dir, &who],
            )
            .await
            .map(|n| n == 1)
        })?;
        if deleted {
            self.announce(id)?;
        }
        Ok(deleted)
    }

    /// See [`Accepted::stamp`].
    pub fn stamp(&self) -> Option<u64> {
        self.accepted.stamp()
    }

    /// Ids with a key in `state` (unsorted).
    pub fn list(&self, state: KeyState) -> Result<Vec<String>, PgError> {
        let state = state.dir_name();
        self.pg.run("list minion keys", move |conn| async move {
            conn.query("SELECT id FROM brine_keys WHERE state = $1", &[&state])
                .await?
                .iter()
                .map(|r| r.try_get(0))
                .collect()
        })
    }

    /// How many keys `state` holds.
    pub fn count(&self, state: KeyState) -> Result<usize, PgError> {
        let state = state.dir_name();
        self.pg.run("count minion keys", move |conn| async move {
            let n: i64 = conn
                .query_one(
                    "SELECT COUNT(*) FROM brine_keys WHERE state = $1",
                    &[&state],
                )
                .await?
                .try_get(0)?;
            Ok(usize::try_from(n).unwrap_or(usize::MAX))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{keys, DECISIONS};
    use super::super::KeyStore;
    use super::*;
    use crate::postgres::test_server::TestServer;
    use brine_protocol::messages::AuthStatus;

    fn shared(server: &TestServer, db: &str, pki: &std::path::Path) -> KeyStore {
        let pg = Arc::new(Pg::connect(&server.options(db)).unwrap());
        KeyStore::create(pki)
            .unwrap()
            .shared_in(PgKeys::open(pg).unwrap())
    }

    /// Salt's `_auth` decisions hold with the keys in PostgreSQL (each
    /// check on a database of its own), and two masters sharing it see
    /// one set of keys: accepted on one, accepted on the other.
    #[test]
    fn keys_in_postgres_decide_as_files_do_and_are_shared() {
        let server = TestServer::start();
        let td = tempfile::tempdir().unwrap();
        for (n, check) in DECISIONS.iter().enumerate() {
            let db = format!("decide{n}");
            server.database(&db);
            check(shared(&server, &db, &td.path().join(format!("pki{n}"))));
        }
        let a = shared(&server, "salt", &td.path().join("a"));
        let b = shared(&server, "salt", &td.path().join("b"));
        let k = keys();
        assert_eq!(
            a.authenticate("web1", &k, false).unwrap(),
            AuthStatus::Pending
        );
        assert_eq!(b.list(KeyState::Pending).unwrap(), vec!["web1"]);
        assert_eq!(
            b.authenticate("web1", &k, false).unwrap(),
            AuthStatus::Pending
        );
        b.accept("web1", KeyState::Pending).unwrap();
        assert_eq!(
            a.authenticate("web1", &k, false).unwrap(),
            AuthStatus::Accepted
        );
        assert_eq!(a.accepted("web1").unwrap(), Some(k));
        assert_eq!(
            a.read_text(KeyState::Accepted, "web1").unwrap(),
            brine_protocol::keys::public_to_text(&k)
        );
        // Nothing was written under either pki_dir.
        for dir in ["a", "b"] {
            let files = std::fs::read_dir(td.path().join(dir).join("minions")).unwrap();
            assert_eq!(files.count(), 0);
        }
        // B keeps web1's accepted key in memory; A deletes it: B's next
        // look (after A's announcement reached it) finds none.
        assert_eq!(b.accepted("web1").unwrap(), Some(k));
        assert_eq!(b.accepted("web1").unwrap(), Some(k));
        a.delete("web1", KeyState::Accepted).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while b.accepted("web1").unwrap().is_some() {
            assert!(
                std::time::Instant::now() < deadline,
                "B still honours a deleted key"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(b.delete("web1", KeyState::Accepted).is_err());
    }
}
