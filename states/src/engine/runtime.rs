//! The run itself (Salt's `call_chunks` / `call_chunk`): each chunk once,
//! its requisites first, on fresh stacks as chains grow deep, with the
//! running dictionary kept by tag.

use super::call;
use super::chunk::{gen_tag, Chunk, RuntimeError};
use super::clock;
use super::index;
use crate::StateContext;
use brine_core::{Map, Value};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

/// Requisite chains recurse a few frames per level. Every
/// [`LEVELS_PER_STACK`] levels the recursion continues on a fresh thread
/// with a roomy stack, so deep (reverse-ordered) chains cannot overflow
/// while ordinary runs stay on the caller's thread (and its allocator
/// arena). Without a thread (out of resources) the work runs here, still
/// bounded by [`MAX_DEPTH`].
pub(super) fn on_fresh_stack<T: Send, F: FnOnce() -> T + Send>(f: F) -> T {
    let slot = std::sync::Mutex::new(Some(f));
    let take = || slot.lock().ok().and_then(|mut g| g.take());
    let spawned = std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("state-runtime".into())
            .stack_size(STACK_PER_HOP)
            .spawn_scoped(s, || take().map(|f| f()));
        match handle {
            Ok(h) => match h.join() {
                Ok(v) => v,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(e) => {
                tracing::warn!("state runtime thread: {e}");
                None
            }
        }
    });
    match spawned {
        Some(v) => v,
        None => match take() {
            Some(f) => f(),
            // The thread took the closure and returned: impossible to get
            // here without a value, but never panic on it.
            None => unreachable_value(),
        },
    }
}

#[cold]
pub(super) fn unreachable_value<T>() -> T {
    eprintln!("brine: the state runtime thread lost its work");
    std::process::exit(2)
}

/// Requisite levels run on one stack before hopping to a new one (a
/// power of two).
pub(super) const LEVELS_PER_STACK: usize = 64;
/// The stack of each hop: far more than 64 levels need, even unoptimised.
pub(super) const STACK_PER_HOP: usize = 64 << 20;

/// How many nested `call_chunk`s we allow before calling it a loop (Salt
/// would hit Python's recursion limit far earlier).
pub(super) const MAX_DEPTH: usize = 10_000;

/// The `state_runs_disabled` grain (set by `state.disable`): matching
/// chunks leave the run (no requisite finds them) and are reported as
/// disabled, numbered first.
pub(super) fn take_disabled(
    ctx: &StateContext,
    lows: &mut Vec<Map>,
    run_num: &mut i64,
) -> Vec<(String, Map)> {
    let Some(pats) = ctx
        .grains
        .get("state_runs_disabled")
        .and_then(Value::as_list)
    else {
        return Vec::new();
    };
    let pats: Vec<String> = pats.iter().map(Value::to_python_str).collect();
    let mut disabled = Vec::new();
    lows.retain(|low| {
        let full = format!(
            "{}.{}",
            low.get("state")
                .map(Value::to_python_str)
                .unwrap_or_default(),
            low.get("fun").map(Value::to_python_str).unwrap_or_default()
        );
        let Some(pat) = pats
            .iter()
            .find(|p| brine_compile::matcher::glob::fnmatch(&full, p))
        else {
            return true;
        };
        let mut ret = Map::default();
        ret.insert("changes".into(), Value::new_map());
        ret.insert("result".into(), Value::Bool(false));
        ret.insert(
            "comment".into(),
            Value::Str(format!(
                "The state function \"{full}\" is currently disabled by \"{pat}\", to \
                 re-enable, run state.enable {pat}."
            )),
        );
        ret.insert("__run_num__".into(), Value::Int(*run_num));
        ret.insert(
            "__sls__".into(),
            low.get("__sls__").cloned().unwrap_or(Value::Null),
        );
        *run_num += 1;
        disabled.push((gen_tag(low), ret));
        false
    });
    disabled
}

/// A dictionary keyed by tag index that remembers insertion order (a
/// Python dict in Salt).
#[derive(Default)]
pub(super) struct TagDict {
    slots: Vec<Option<Map>>,
    order: Vec<usize>,
}

impl TagDict {
    pub(super) fn with_len(n: usize) -> TagDict {
        TagDict {
            slots: (0..n).map(|_| None).collect(),
            order: Vec::new(),
        }
    }
    pub(super) fn get(&self, tag: usize) -> Option<&Map> {
        self.slots.get(tag).and_then(Option::as_ref)
    }
    pub(super) fn contains(&self, tag: usize) -> bool {
        self.get(tag).is_some()
    }
    pub(super) fn insert(&mut self, tag: usize, ret: Map) {
        if let Some(slot) = self.slots.get_mut(tag) {
            if slot.is_none() {
                self.order.push(tag);
            }
            *slot = Some(ret);
        }
    }
}

/// One state run: Salt's `State` object during `call_chunks`.
pub(super) struct Runtime<'c> {
    pub(super) ctx: &'c StateContext,
    pub(super) chunks: Vec<Chunk>,
    pub(super) tags: Vec<String>,
    pub(super) index: index::Index,
    pub(super) running: TagDict,
    /// Salt's `self.pre`: test-mode returns of prereq'd states.
    pub(super) pre: HashMap<usize, Map>,
    /// Salt's `self.active`: tags being evaluated in this top-level chunk.
    pub(super) active: HashSet<usize>,
    pub(super) run_num: i64,
    /// Salt's `__FAILHARD__` marker, set when a failhard state failed
    /// inside a requisite chain.
    pub(super) failhard: bool,
    /// Salt leaves the marker in the running dict when the top-level
    /// chunk also ended the run.
    pub(super) failhard_key: bool,
    pub(super) depth: usize,
    /// States run before the chunks: the `state_runs_disabled` grain.
    pub(super) disabled: Vec<(String, Map)>,
    /// Shrink each chunk to what requisites still read once it has run
    /// (not when `listen` needs the whole chunks afterwards).
    pub(super) compact: bool,
}

impl<'c> Runtime<'c> {
    pub(super) fn new(ctx: &'c StateContext, mut lows: Vec<Map>, mut run_num: i64) -> Runtime<'c> {
        let disabled = take_disabled(ctx, &mut lows, &mut run_num);
        // A tag is an index into `tags`; a tag written twice (the same
        // state twice in a run) is one index. The lookup borrows the tags
        // generated, so no tag is copied.
        let generated: Vec<String> = lows.iter().map(gen_tag).collect();
        let mut ids = Vec::with_capacity(generated.len());
        let mut first = Vec::with_capacity(generated.len());
        {
            let mut seen: HashMap<&str, usize> = HashMap::with_capacity(generated.len());
            for t in &generated {
                let next = seen.len();
                let id = *seen.entry(t.as_str()).or_insert(next);
                first.push(id == next);
                ids.push(id);
            }
        }
        let tags: Vec<String> = generated
            .into_iter()
            .zip(&first)
            .filter_map(|(t, &f)| f.then_some(t))
            .collect();
        let chunks: Vec<Chunk> = lows
            .into_iter()
            .zip(ids)
            .map(|(low, tag)| Chunk {
                low,
                tag,
                prereq: false,
                prerequired: false,
            })
            .collect();
        let index = index::Index::build(&chunks);
        let n = tags.len();
        Runtime {
            ctx,
            chunks,
            tags,
            index,
            running: TagDict::with_len(n),
            pre: HashMap::new(),
            active: HashSet::new(),
            run_num,
            failhard: false,
            failhard_key: false,
            depth: 0,
            disabled,
            compact: false,
        }
    }

    /// The running dictionary, tags as keys, in the order Salt inserts them.
    pub(super) fn into_running(self) -> Map {
        self.into_parts().0
    }

    /// The running dictionary and the low chunks as the run left them.
    pub(super) fn into_parts(self) -> (Map, Vec<Map>) {
        let Runtime {
            mut tags,
            mut running,
            disabled,
            chunks,
            failhard_key,
            ..
        } = self;
        let mut out = Map::with_capacity_and_hasher(
            running.order.len() + disabled.len() + 1,
            Default::default(),
        );
        for (tag, ret) in disabled {
            out.insert(tag, Value::Map(ret));
        }
        for t in running.order {
            if let (Some(Some(ret)), Some(tag)) = (running.slots.get_mut(t), tags.get_mut(t)) {
                out.insert(std::mem::take(tag), Value::Map(std::mem::take(ret)));
            }
        }
        if failhard_key {
            out.insert("__FAILHARD__".into(), Value::Bool(true));
        }
        (out, chunks.into_iter().map(|c| c.low).collect())
    }

    /// Salt's `call_chunks`: every chunk not already run, in order, until a
    /// `failhard` failure.
    pub(super) fn call_chunks(&mut self) -> Result<(), RuntimeError> {
        for i in 0..self.chunks.len() {
            if self.failhard {
                // Salt drops the marker and returns the bare running dict
                // (no disabled states).
                self.disabled.clear();
                return Ok(());
            }
            let tag = self.chunks[i].tag;
            if self.running.contains(tag) {
                self.active.clear();
                continue;
            }
            match self.call_chunk(i, 0) {
                Ok(()) => {}
                Err(RuntimeError::FailhardStop) => {
                    self.disabled.clear();
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
            if self.check_failhard(i) {
                self.failhard_key = self.failhard;
                self.disabled.clear();
                return Ok(());
            }
            self.active.clear();
        }
        Ok(())
    }

    /// Salt's `check_failhard`: a failed (not `None`) state with
    /// `failhard` (its own or the global option) ends the run, except in
    /// test mode.
    pub(super) fn check_failhard(&self, i: usize) -> bool {
        if self.ctx.test {
            return false;
        }
        let Some(chunk) = self.chunks.get(i) else {
            return false;
        };
        let failhard = match chunk.low.get("failhard") {
            Some(v) => v.is_truthy(),
            None => self.ctx.opts.get("failhard").is_some_and(Value::is_truthy),
        };
        if !failhard {
            return false;
        }
        // Not run, or a `None` result (test mode): no failhard.
        match self.running.get(chunk.tag).and_then(|r| r.get("result")) {
            Some(Value::Null) | None => false,
            Some(v) => !v.is_truthy(),
        }
    }

    /// A return for a state that was not run: Salt's bookkeeping keys in
    /// Salt's order.
    pub(super) fn not_run(&self, i: usize, result: bool, comment: &str, timed: bool) -> Map {
        let low = &self.chunks[i].low;
        let mut ret = Map::default();
        ret.insert("changes".into(), Value::new_map());
        ret.insert("result".into(), Value::Bool(result));
        if timed {
            let (start, dur) = clock::fake_duration();
            ret.insert("duration".into(), Value::Float(dur));
            ret.insert("start_time".into(), Value::Str(start));
        }
        ret.insert("comment".into(), Value::Str(comment.to_string()));
        ret.insert("__run_num__".into(), Value::Int(self.run_num));
        for key in ["__sls__", "__id__", "name"] {
            ret.insert(key.into(), low.get(key).cloned().unwrap_or(Value::Null));
        }
        ret
    }

    /// Run chunk `i` through Salt's `State.call`; resets `__prereq__` as
    /// Salt does once the test-mode call returned.
    pub(super) fn call_chunk_fn(&mut self, i: usize) -> Result<Map, RuntimeError> {
        let prereq = self.chunks[i].prereq;
        let chunk = &mut self.chunks[i];
        let called = call::call(self.ctx, &mut self.run_num, &mut chunk.low, prereq, 1)?;
        if called.reset_prereq {
            chunk.prereq = false;
        }
        Ok(called.ret)
    }

    /// Salt's `call_chunk`: evaluate the requisites of chunk `i` (running
    /// them first when they have not run) and then run or skip it.
    pub(super) fn call_chunk(&mut self, i: usize, depth: u32) -> Result<(), RuntimeError> {
        self.depth += 1;
        let r = if self.depth > MAX_DEPTH {
            let ret = self.not_run(i, false, "Recursive requisite found", false);
            self.running.insert(self.chunks[i].tag, ret);
            self.run_num += 1;
            Ok(())
        } else if self.depth & (LEVELS_PER_STACK - 1) == 0 {
            on_fresh_stack(|| self.call_chunk_inner(i, depth))
        } else {
            self.call_chunk_inner(i, depth)
        };
        self.depth -= 1;
        r
    }

    pub(super) fn call_chunk_inner(&mut self, i: usize, depth: u32) -> Result<(), RuntimeError> {
        use index::Status;
        let tag = self.chunks[i].tag;
        if !self.chunks[i]
            .low
            .get("prerequired")
            .is_some_and(Value::is_truthy)
        {
            self.active.insert(tag);
        }
        let prereq = self.chunks[i].prereq;
        let (status, reqs) = self.check_requisite(i, !prereq)?;
        match status {
            Status::Unmet => return self.run_unmet(i, depth),
            Status::Met => {
                let ret = self.call_chunk_fn(i)?;
                self.store(i, prereq, ret);
            }
            Status::Fail => {
                if let Some(mut pre) = self.pre.get(&tag).cloned() {
                    // The test-mode run of a prereq'd state whose prereq
                    // failed: shown without its would-be changes.
                    if pre.get("changes").is_some_and(Value::is_truthy) {
                        pre.insert("changes".into(), Value::new_map());
                    }
                    pre.insert("__run_num__".into(), Value::Int(self.run_num));
                    for key in ["__sls__", "__id__", "name"] {
                        let v = self.chunks[i].low.get(key).cloned().unwrap_or(Value::Null);
                        pre.insert(key.into(), v);
                    }
                    self.pre.insert(tag, pre.clone());
                    self.running.insert(tag, pre);
                } else {
                    let failed = self.failed_requisites(&reqs);
                    let comment = format!("One or more requisite failed: {}", failed.join(", "));
                    let ret = self.not_run(i, false, &comment, true);
                    self.pre.insert(tag, ret.clone());
                    self.running.insert(tag, ret);
                }
                self.run_num += 1;
            }
            Status::Change if !prereq => {
                let mut ret = self.call_chunk_fn(i)?;
                let changed = ret.get("changes").is_some_and(Value::is_truthy);
                let skip = ret.get("skip_watch").is_some_and(Value::is_truthy);
                if !changed && !skip {
                    let mut low = self.chunks[i].low.clone();
                    let fun = low.get("fun").cloned().unwrap_or(Value::Null);
                    low.insert("sfun".into(), fun);
                    low.insert("fun".into(), Value::Str("mod_watch".into()));
                    low.insert("__reqs__".into(), self.reqs_for_mod_watch(&reqs));
                    ret = call::call(self.ctx, &mut self.run_num, &mut low, false, 1)?.ret;
                }
                self.running.insert(tag, ret);
            }
            Status::Pre => {
                let ret = self.not_run(i, true, "No changes detected", true);
                self.pre.insert(tag, ret.clone());
                self.running.insert(tag, ret);
                self.run_num += 1;
            }
            Status::Onfail => {
                let mut ret = self.not_run(
                    i,
                    true,
                    "State was not run because onfail req did not change",
                    true,
                );
                state_not_ran(&mut ret);
                self.running.insert(tag, ret);
                self.run_num += 1;
            }
            Status::Onchanges => {
                let mut ret = self.not_run(
                    i,
                    true,
                    "State was not run because none of the onchanges reqs changed",
                    true,
                );
                state_not_ran(&mut ret);
                self.running.insert(tag, ret);
                self.run_num += 1;
            }
            Status::Change => {
                // A prereq'd state whose watched state changed: a plain
                // test-mode call.
                let ret = self.call_chunk_fn(i)?;
                self.store(i, prereq, ret);
            }
        }
        if self.compact && self.running.contains(tag) {
            self.chunks[i].compact();
        }
        Ok(())
    }

    /// Into `pre` for a prereq'd (test-mode) call, else `running`.
    pub(super) fn store(&mut self, i: usize, prereq: bool, ret: Map) {
        let tag = self.chunks[i].tag;
        if prereq {
            self.pre.insert(tag, ret);
        } else {
            self.running.insert(tag, ret);
        }
    }

    /// `sls.id` of each requisite that failed, for "One or more requisite
    /// failed". (Salt collects them in a set, so its order varies between
    /// runs; brine keeps requisite order.)
    pub(super) fn failed_requisites(&self, reqs: &index::Reqs) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (_, idxs) in reqs {
            for &c in idxs {
                let ctag = self.chunks[c].tag;
                let ret = self.pre.get(&ctag).or_else(|| self.running.get(ctag));
                if ret.and_then(|r| r.get("result")) == Some(&Value::Bool(false)) {
                    let low = &self.chunks[c].low;
                    let key = format!(
                        "{}.{}",
                        low.get("__sls__")
                            .map(Value::to_python_str)
                            .unwrap_or_default(),
                        low.get("__id__")
                            .map(Value::to_python_str)
                            .unwrap_or_default()
                    );
                    if !out.contains(&key) {
                        out.push(key);
                    }
                }
            }
        }
        out
    }

    /// What `mod_watch` learns of the `watch` requisites (Salt's
    /// `__reqs__`): each watched state and whether it changed.
    pub(super) fn reqs_for_mod_watch(&self, reqs: &index::Reqs) -> Value {
        let mut watch = Vec::new();
        for (kind, idxs) in reqs {
            if *kind != index::Kind::Watch {
                continue;
            }
            for &c in idxs {
                let low = &self.chunks[c].low;
                let mut m = Map::default();
                for key in ["state", "__id__", "name", "fun"] {
                    m.insert(key.into(), low.get(key).cloned().unwrap_or(Value::Null));
                }
                let changed = self
                    .running
                    .get(self.chunks[c].tag)
                    .and_then(|r| r.get("changes"))
                    .is_some_and(Value::is_truthy);
                m.insert("__changed__".into(), Value::Bool(changed));
                watch.push(Value::Map(m));
            }
        }
        let mut out = Map::default();
        out.insert("watch".into(), Value::List(watch));
        Value::Map(out)
    }
}

pub(super) fn state_not_ran(ret: &mut Map) {
    // Salt puts `__state_ran__` right after the comment.
    let idx = ret.get_index_of("comment").map_or(ret.len(), |i| i + 1);
    ret.shift_insert(idx, "__state_ran__".into(), Value::Bool(false));
}
