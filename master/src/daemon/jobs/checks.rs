//! What every job cache backend must do, as checks one test per backend
//! calls: the SQLite tests here, the PostgreSQL ones in `tests/` (they
//! start a private PostgreSQL server). They panic on the first difference.

use super::{Job, JobCache, Stored};
use brine_core::{Map, Value};
use brine_protocol::messages::{JobReturn, PackedValue};

/// A `state.apply` job on `web*` with one argument and `test=True`.
pub fn job(jid: &str, start_ms: u64) -> Job {
    let mut kwarg = Map::default();
    kwarg.insert("test".into(), Value::Bool(true));
    Job {
        jid: jid.into(),
        fun: "state.apply".into(),
        arg: vec!["web".into()],
        kwarg,
        tgt: "web*".into(),
        tgt_type: "glob".into(),
        user: "root".into(),
        start_ms,
    }
}

/// `id`'s return of `v` for `jid`.
pub fn ret(jid: &str, id: &str, v: Value) -> JobReturn {
    JobReturn {
        jid: jid.into(),
        id: id.into(),
        fun: "state.apply".into(),
        fun_args: vec![],
        ret: PackedValue::pack(&v).unwrap_or_else(|_| PackedValue::nil()),
        retcode: 0,
        success: true,
        out: Some("highstate".into()),
        schedule: None,
        called: false,
        user: None,
    }
}

/// Jobs, targets, first-wins returns, refusal of untargeted returns,
/// reopening (`open` opens the same store again) and cleanup by age.
pub fn jobs_targets_returns_and_cleanup(open: &dyn Fn() -> JobCache) {
    let c = open();
    let j = job("20240102030405123456", 1_000);
    c.add_job(&j, &["web2".into(), "web1".into()]).unwrap();
    assert_eq!(c.job(&j.jid).unwrap(), Some(j.clone()));
    assert!(c.has_job(&j.jid).unwrap() && !c.has_job("other").unwrap());
    assert_eq!(c.expected(&j.jid).unwrap(), vec!["web1", "web2"]);
    assert_eq!(c.counts(&j.jid).unwrap(), (2, 0));
    let f = Value::Float(1.5);
    assert_eq!(
        c.add_return(&ret(&j.jid, "web2", f.clone()), 2_000)
            .unwrap(),
        Stored::New
    );
    assert_eq!(
        c.add_return(&ret(&j.jid, "web2", Value::Null), 2_500)
            .unwrap(),
        Stored::Duplicate
    );
    c.add_return(&ret(&j.jid, "web1", Value::Bool(true)), 3_000)
        .unwrap();
    let rs = c.returns(&j.jid).unwrap();
    assert_eq!(rs.keys().collect::<Vec<_>>(), vec!["web2", "web1"]);
    assert_eq!(rs["web2"].ret, f);
    assert_eq!(rs["web2"].out.as_deref(), Some("highstate"));
    assert_eq!(
        c.first_outputter(&j.jid).unwrap().as_deref(),
        Some("highstate")
    );
    // A return for a job this master never published, or from a minion it
    // was not published to, is not stored.
    for (jid, id) in [("other", "web1"), (j.jid.as_str(), "db1")] {
        assert_eq!(
            c.add_return(&ret(jid, id, Value::Null), 3_000).unwrap(),
            Stored::NotTargeted
        );
    }
    assert_eq!(c.returns(&j.jid).unwrap().len(), 2);
    assert_eq!(c.counts(&j.jid).unwrap(), (2, 2));
    assert_eq!(c.counts("other").unwrap(), (0, 0));
    let by_id = c.returns_by_id(&j.jid, None, 1 << 20).unwrap();
    let ids: Vec<&str> = by_id.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["web1", "web2"]);
    assert_eq!(c.returns_by_id(&j.jid, Some("web1"), 1).unwrap().len(), 1);

    // Survives reopening.
    drop(c);
    let c = open();
    assert_eq!(c.jobs().unwrap(), vec![j.clone()]);
    assert_eq!(c.counts(&j.jid).unwrap(), (2, 2));
    assert_eq!(c.clean(0, u64::MAX).unwrap(), 0);
    let hour = 3_600_000;
    assert_eq!(c.clean(1, 1_000 + hour).unwrap(), 0);
    assert_eq!(c.clean(1, 3_001 + hour).unwrap(), 1);
    assert!(c.job(&j.jid).unwrap().is_none());
    assert!(c.returns(&j.jid).unwrap().is_empty());
    assert!(c.returns("other").unwrap().is_empty());
    assert!(c.expected(&j.jid).unwrap().is_empty());
    assert_eq!(c.counts(&j.jid).unwrap(), (0, 0));
}

/// Pages follow arrival order from a cursor, end when their stored size
/// passes the budget (never empty while returns remain), and say whether
/// more wait. `c` must hold no job with this test's jid.
pub fn returns_come_in_bounded_pages(c: &JobCache) {
    let j = job("20240102030405999999", 1_000);
    let ids: Vec<String> = (0..5).map(|i| format!("m{i}")).collect();
    c.add_job(&j, &ids).unwrap();
    // Stored in the order m3 m0 m4 m1 m2, each about 1000 bytes.
    for (n, i) in [3, 0, 4, 1, 2].into_iter().enumerate() {
        let big = Value::Str("x".repeat(1000));
        c.add_return(&ret(&j.jid, &ids[i], big), 2_000 + n as u64)
            .unwrap();
    }
    let mut order = Vec::new();
    let mut cursor = 0;
    let mut pages = 0;
    loop {
        let page = c.returns_page(&j.jid, cursor, 2_100).unwrap();
        assert!(!page.returns.is_empty() && page.returns.len() <= 2);
        order.extend(page.returns.iter().map(|r| r.id.clone()));
        cursor = page.next;
        pages += 1;
        if !page.more {
            break;
        }
    }
    assert_eq!(order, ["m3", "m0", "m4", "m1", "m2"]);
    assert_eq!(pages, 3);
    // Past the end: empty, nothing more, the cursor stays.
    let end = c.returns_page(&j.jid, cursor, 2_100).unwrap();
    assert!(end.returns.is_empty() && !end.more && end.next == cursor);
    // A budget smaller than one return still moves on by one.
    let one = c.returns_page(&j.jid, 0, 1).unwrap();
    assert_eq!(one.returns.len(), 1);
    assert!(one.more);
    assert_eq!(c.returned(&j.jid).unwrap().len(), 5);
}
