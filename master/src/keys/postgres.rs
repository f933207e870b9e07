//! Minion keys in the PostgreSQL several masters share (`master_job_cache:
//! pgjsonb`): one table, `brine_keys`, with the text a key file would hold,
//! so `brine-key -a` on one master is what every master sees at the
//! minion's next request. The master's own key pair stays in `pki_dir`
//! (every master of a site holds the same one, as with Salt).

use super::KeyState;
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

#[derive(Debug, Clone)]
pub struct PgKeys {
    pg: Arc<Pg>,
}

impl PgKeys {
    /// Make the key table if the database lacks it.
    pub fn open(pg: Arc<Pg>) -> Result<PgKeys, PgError> {
        pg.run("create the key table", |mut conn| async move {
            let tx = conn.transaction().await?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
                .await?;
            tx.batch_execute(SCHEMA).await?;
            tx.commit().await
        })?;
        Ok(PgKeys { pg })
    }

    /// The stored text of `id`'s key in `state`.
    pub fn read_text(&self, state: KeyState, id: &str) -> Result<Option<String>, PgError> {
        let (state, id) = (state.dir_name(), id.to_string());
        self.pg.run("read a minion key", move |conn| async move {
            conn.query_opt(
                "SELECT pub FROM brine_keys WHERE state = $1 AND id = $2",
                &[&state, &id],
            )
            .await?
            .map(|r| r.try_get(0))
            .transpose()
        })
    }

    /// Store `text` as `id`'s key in `state`, replacing one there.
    pub fn write(&self, state: KeyState, id: &str, text: String) -> Result<(), PgError> {
        let (state, id) = (state.dir_name(), id.to_string());
        self.pg.run("store a minion key", move |conn| async move {
            conn.execute(
                "INSERT INTO brine_keys (state, id, pub) VALUES ($1, $2, $3)
                 ON CONFLICT (state, id) DO UPDATE SET pub = $3",
                &[&state, &id, &text],
            )
            .await
            .map(drop)
        })
    }

    /// Store `text` as `id`'s key in `state` unless one is there; whether
    /// it was stored. Two masters seeing a new minion at once file it once.
    pub fn add(&self, state: KeyState, id: &str, text: String) -> Result<bool, PgError> {
        let (state, id) = (state.dir_name(), id.to_string());
        self.pg
            .run("store a new minion key", move |conn| async move {
                conn.execute(
                    "INSERT INTO brine_keys (state, id, pub) VALUES ($1, $2, $3)
                 ON CONFLICT DO NOTHING",
                    &[&state, &id, &text],
                )
                .await
                .map(|n| n == 1)
            })
    }

    /// Move `id`'s key from `from` to `to` (replacing one there); false
    /// when `from` holds none.
    pub fn move_key(&self, id: &str, from: KeyState, to: KeyState) -> Result<bool, PgError> {
        let (from, to, id) = (from.dir_name(), to.dir_name(), id.to_string());
        self.pg
            .run("move a minion key", move |mut conn| async move {
                let tx = conn.transaction().await?;
                let Some(row) = tx
                    .query_opt(
                        "DELETE FROM brine_keys WHERE state = $1 AND id = $2 RETURNING pub",
                        &[&from, &id],
                    )
                    .await?
                else {
                    return Ok(false);
                };
                let text: String = row.try_get(0)?;
                tx.execute(
                    "INSERT INTO brine_keys (state, id, pub) VALUES ($1, $2, $3)
                 ON CONFLICT (state, id) DO UPDATE SET pub = $3",
                    &[&to, &id, &text],
                )
                .await?;
                tx.commit().await?;
                Ok(true)
            })
    }

    /// Remove `id`'s key in `state`; false when there was none.
    pub fn delete(&self, id: &str, state: KeyState) -> Result<bool, PgError> {
        let (state, id) = (state.dir_name(), id.to_string());
        self.pg.run("delete a minion key", move |conn| async move {
            conn.execute(
                "DELETE FROM brine_keys WHERE state = $1 AND id = $2",
                &[&state, &id],
            )
            .await
            .map(|n| n == 1)
        })
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
        a.delete("web1", KeyState::Accepted).unwrap();
        assert!(b.accepted("web1").unwrap().is_none());
        assert!(b.delete("web1", KeyState::Accepted).is_err());
    }
}
