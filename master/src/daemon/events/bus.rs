//! The master's event bus: every event is encoded once and handed to each
//! subscriber's queue. A queue is bounded in bytes (`event_subscriber_buffer`):
//! a subscriber that falls that far behind is cut (logged once) rather than
//! allowed to grow the master's memory, and firing never waits on one.
//! The number of subscribers is bounded too (`max_event_subscribers`).

use super::wire::{self, Event};
use brine_core::{Map, Value};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// One encoded event frame (length first), shared by every queue.
pub type Frame = Arc<[u8]>;

/// The bounds of a bus.
#[derive(Debug, Clone, Copy)]
pub struct BusLimits {
    /// Most subscribers at once.
    pub max_subscribers: usize,
    /// Most bytes waiting for one subscriber.
    pub subscriber_buffer: usize,
    /// Largest event carried (Salt's `max_event_size`): larger data has
    /// its biggest values replaced, as Salt trims them.
    pub max_event_size: usize,
}

impl Default for BusLimits {
    fn default() -> BusLimits {
        BusLimits {
            max_subscribers: 64,
            subscriber_buffer: 32 << 20,
            max_event_size: wire::DEFAULT_MAX_EVENT_SIZE,
        }
    }
}

struct Subscriber {
    id: u64,
    name: String,
    tx: mpsc::UnboundedSender<Frame>,
    pending: Arc<AtomicUsize>,
}

/// The bus. Cheap to fire on with nobody listening.
pub struct EventBus {
    limits: BusLimits,
    subscribers: Mutex<Vec<Subscriber>>,
    /// `subscribers.len()`, read without the lock on every fire.
    count: AtomicUsize,
    next_id: AtomicU64,
}

impl std::fmt::Debug for EventBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventBus")
            .field("subscribers", &self.count.load(Ordering::Relaxed))
            .finish()
    }
}

/// Events for one subscriber, in the order fired.
pub struct Subscription {
    rx: mpsc::UnboundedReceiver<Frame>,
    pending: Arc<AtomicUsize>,
}

impl Subscription {
    /// The next event frame; `None` once the bus cut this subscriber (or
    /// is gone).
    pub async fn next(&mut self) -> Option<Frame> {
        let f = self.rx.recv().await?;
        self.pending.fetch_sub(f.len(), Ordering::Relaxed);
        Some(f)
    }

    /// The next event, decoded (in-process subscribers: the reactor).
    pub async fn next_event(&mut self) -> Option<Event> {
        loop {
            let f = self.next().await?;
            match rmp_serde::from_slice(&f[4..]) {
                Ok(e) => return Some(e),
                Err(e) => tracing::error!("an event frame did not decode: {e}"),
            }
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("the event bus has its {0} subscribers (max_event_subscribers)")]
pub struct BusFull(pub usize);

impl EventBus {
    pub fn new(limits: BusLimits) -> EventBus {
        EventBus {
            limits,
            subscribers: Mutex::new(Vec::new()),
            count: AtomicUsize::new(0),
            next_id: AtomicU64::new(1),
        }
    }

    pub fn limits(&self) -> BusLimits {
        self.limits
    }

    /// Whether anyone listens: builders of costly event data ask first.
    pub fn listened(&self) -> bool {
        self.count.load(Ordering::Relaxed) > 0
    }

    /// A new subscriber named `name` (for the log).
    pub fn subscribe(&self, name: &str) -> Result<Subscription, BusFull> {
        let mut subs = self.lock();
        if subs.len() >= self.limits.max_subscribers {
            return Err(BusFull(subs.len()));
        }
        let (tx, rx) = mpsc::unbounded_channel();
        let pending = Arc::new(AtomicUsize::new(0));
        subs.push(Subscriber {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            name: name.to_string(),
            tx,
            pending: pending.clone(),
        });
        self.count.store(subs.len(), Ordering::Relaxed);
        Ok(Subscription { rx, pending })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Subscriber>> {
        self.subscribers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Fire `tag` with `data` (a map: Salt stamps it with `_stamp`, the
    /// UTC time, unless it has one).
    pub fn fire(&self, tag: &str, data: Map) {
        if !self.listened() {
            return;
        }
        self.fire_value(tag, Value::Map(data));
    }

    /// Fire data of any shape (`event.fire_master` carries what it is
    /// given; a map is stamped).
    pub fn fire_value(&self, tag: &str, mut data: Value) {
        if !self.listened() {
            return;
        }
        if let Value::Map(m) = &mut data {
            if !m.contains_key("_stamp") {
                m.insert("_stamp".into(), Value::Str(stamp()));
            }
        }
        let event = Event {
            tag: tag.to_string(),
            data,
        };
        let frame = match self.encode(event) {
            Some(f) => f,
            None => return,
        };
        self.deliver(frame);
    }

    fn encode(&self, mut event: Event) -> Option<Frame> {
        let max = self.limits.max_event_size;
        let mut frame = match wire::encode(&event) {
            Ok(f) => f,
            Err(e) => {
                tracing::error!("event {} not fired: {e}", event.tag);
                return None;
            }
        };
        if frame.len() - 4 > max {
            trim(&mut event.data, max);
            frame = wire::encode(&event).ok()?;
            if frame.len() - 4 > max {
                tracing::warn!(
                    "event {} is over max_event_size ({max} bytes) even trimmed; not fired",
                    event.tag
                );
                return None;
            }
        }
        Some(Frame::from(frame))
    }

    fn deliver(&self, frame: Frame) {
        let budget = self.limits.subscriber_buffer;
        let mut subs = self.lock();
        subs.retain(|s| {
            let waiting = s.pending.load(Ordering::Relaxed);
            if waiting + frame.len() > budget {
                tracing::warn!(
                    "event subscriber {} (#{}) fell {waiting} bytes behind (event_subscriber_buffer {budget}); cut",
                    s.name,
                    s.id
                );
                return false;
            }
            s.pending.fetch_add(frame.len(), Ordering::Relaxed);
            // A closed receiver: the subscriber left.
            s.tx.send(frame.clone()).is_ok()
        });
        self.count.store(subs.len(), Ordering::Relaxed);
    }
}

/// Salt's `_stamp`: `datetime.utcnow().isoformat()`.
pub fn stamp() -> String {
    brine_host::time::iso_utc_float(brine_host::time::now_micros() as f64 / 1e6)
}

/// What Salt puts in place of a value too large for an event.
const TRIMMED: &str = "VALUE_TRIMMED";

/// Replace `data`'s values, the largest first, by "VALUE_TRIMMED" until
/// it encodes in `max` bytes (Salt's `trim_dict`: values larger than a
/// share of the limit that shrinks by steps, nested maps entered).
fn trim(data: &mut Value, max: usize) {
    fn size(v: &Value) -> usize {
        rmp_serde::to_vec_named(v)
            .map(|b| b.len())
            .unwrap_or(usize::MAX)
    }
    fn cut(v: &mut Value, over: usize) {
        if let Value::Map(m) = v {
            for (_, item) in m.iter_mut() {
                if matches!(item, Value::Map(_)) {
                    cut(item, over);
                } else if size(item) > over {
                    *item = Value::Str(TRIMMED.into());
                }
            }
        }
    }
    for percent in (0..=50).rev() {
        cut(data, max * percent / 100);
        if size(data) < max {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, Value)]) -> Map {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[tokio::test]
    async fn events_reach_every_subscriber_stamped_in_order() {
        let bus = EventBus::new(BusLimits::default());
        // Nobody listening: nothing is built.
        bus.fire("lost", Map::default());
        let mut a = bus.subscribe("a").unwrap();
        let mut b = bus.subscribe("b").unwrap();
        bus.fire("one", map(&[("x", Value::Int(1))]));
        bus.fire_value("two", Value::Str("plain".into()));
        for s in [&mut a, &mut b] {
            let e = s.next_event().await.unwrap();
            assert_eq!(e.tag, "one");
            let m = e.data.as_map().unwrap();
            assert_eq!(m.get("x"), Some(&Value::Int(1)));
            let stamp = m.get("_stamp").and_then(Value::as_str).unwrap();
            assert_eq!(&stamp[4..5], "-");
            assert_eq!(&stamp[10..11], "T");
            assert_eq!(
                s.next_event().await.unwrap().data,
                Value::Str("plain".into())
            );
        }
    }

    #[tokio::test]
    async fn a_slow_subscriber_is_cut_at_its_budget_and_others_go_on() {
        let bus = EventBus::new(BusLimits {
            subscriber_buffer: 10_000,
            ..BusLimits::default()
        });
        let mut slow = bus.subscribe("slow").unwrap();
        let mut quick = bus.subscribe("quick").unwrap();
        let blob = Value::Str("x".repeat(1000));
        let mut got = 0;
        for _ in 0..100 {
            bus.fire("big", map(&[("blob", blob.clone())]));
            quick.next().await.unwrap();
            got += 1;
        }
        assert_eq!(got, 100);
        // The slow one got what fit in its budget, then its end.
        let mut kept = 0;
        while slow.next().await.is_some() {
            kept += 1;
        }
        assert!((1..10).contains(&kept), "{kept}");
        assert!(bus.listened());
        drop(quick);
        bus.fire("after", Map::default());
        assert!(!bus.listened());
    }

    #[test]
    fn subscribers_are_bounded() {
        let bus = EventBus::new(BusLimits {
            max_subscribers: 2,
            ..BusLimits::default()
        });
        let _a = bus.subscribe("a").unwrap();
        let _b = bus.subscribe("b").unwrap();
        assert!(bus.subscribe("c").is_err());
    }

    #[tokio::test]
    async fn data_over_max_event_size_is_trimmed_as_salt_trims() {
        let bus = EventBus::new(BusLimits {
            max_event_size: 2048,
            ..BusLimits::default()
        });
        let mut s = bus.subscribe("s").unwrap();
        let mut inner = Map::default();
        inner.insert("huge".into(), Value::Str("y".repeat(5000)));
        inner.insert("small".into(), Value::Int(3));
        bus.fire(
            "t",
            map(&[
                ("return", Value::Map(inner)),
                ("id", Value::Str("m".into())),
            ]),
        );
        let e = s.next_event().await.unwrap();
        let ret = e
            .data
            .as_map()
            .unwrap()
            .get("return")
            .unwrap()
            .as_map()
            .unwrap();
        assert_eq!(ret.get("huge"), Some(&Value::Str(TRIMMED.into())));
        assert_eq!(ret.get("small"), Some(&Value::Int(3)));
        assert_eq!(
            e.data.as_map().unwrap().get("id"),
            Some(&Value::Str("m".into()))
        );
    }
}
