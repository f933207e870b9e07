//! `order_chunks` (Salt's `State.order_chunks`): gives every low chunk a
//! numeric `order` and sorts by `(order, state + name + fun)`.
//!
//! - `cap` starts at 1 and, walking the chunks in compile order, becomes
//!   `order + 100` whenever an integer order reaches it (so it depends on
//!   the walk, not on the maximum);
//! - no `order` → `cap`; `first` → 0; `last` → `cap + 1000000`; any other
//!   non-number (a string, `null`) → `cap`;
//! - a `names` entry adds `name_order / 10000` (and loses `name_order`),
//!   unless the chunk had no `order` at all: then it keeps `name_order`;
//! - a negative order counts back from `last`: `cap + 1000000 + order`.

use super::py::{number, py_str, Num};
use brine_core::{Map, Value};

pub(crate) fn order_chunks(chunks: &mut [Map]) {
    let mut cap: i128 = 1;
    for chunk in chunks.iter() {
        // Python's isinstance(order, int): integers and booleans.
        if let Some(Num::Int(order)) = chunk
            .get("order")
            .filter(|v| !matches!(v, Value::Float(_)))
            .and_then(number)
        {
            if order > cap - 1 && order > 0 {
                cap = order + 100;
            }
        }
    }
    for chunk in chunks.iter_mut() {
        let Some(order) = chunk.get("order") else {
            chunk.insert("order".into(), Value::Int(cap as i64));
            continue;
        };
        let mut num = match number(order) {
            Some(n) => n,
            None => match order.as_str() {
                Some("last") => Num::Int(cap + 1_000_000),
                Some("first") => Num::Int(0),
                _ => Num::Int(cap),
            },
        };
        // Booleans stay booleans unless arithmetic touches them.
        let mut changed = !matches!(order, Value::Int(_) | Value::Float(_) | Value::Bool(_));
        if let Some(name_order) = chunk.shift_remove("name_order") {
            if let Some(n) = number(&name_order) {
                num = Num::Float(num.as_f64() + n.as_f64() / 10000.0);
                changed = true;
            }
        }
        if num.py_cmp(Num::Int(0)) == Some(std::cmp::Ordering::Less) {
            num = match num {
                Num::Int(i) => Num::Int(cap + 1_000_000 + i),
                Num::Float(f) => Num::Float((cap + 1_000_000) as f64 + f),
            };
            changed = true;
        }
        if changed {
            chunk.insert("order".into(), num.to_value());
        }
    }
    // Stable, like Python's sort; keys computed once.
    let mut keyed: Vec<(Num, String, Map)> = chunks
        .iter_mut()
        .map(|c| {
            let order = c.get("order").and_then(number).unwrap_or(Num::Int(0));
            let text = ["state", "name", "fun"]
                .iter()
                .map(|k| c.get(*k).map(py_str).unwrap_or_default())
                .collect::<String>();
            (order, text, std::mem::take(c))
        })
        .collect();
    keyed.sort_by(|a, b| {
        a.0.py_cmp(b.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.1.cmp(&b.1))
    });
    for (slot, (_, _, chunk)) in chunks.iter_mut().zip(keyed) {
        *slot = chunk;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(name: &str, order: Option<Value>, name_order: Option<i64>) -> Map {
        let mut c = Map::default();
        c.insert("state".into(), "test".into());
        c.insert("name".into(), name.into());
        if let Some(o) = order {
            c.insert("order".into(), o);
        }
        if let Some(n) = name_order {
            c.insert("name_order".into(), Value::Int(n));
        }
        c.insert("fun".into(), "nop".into());
        c
    }

    fn orders(chunks: &[Map]) -> Vec<(String, Value)> {
        chunks
            .iter()
            .map(|c| (py_str(&c["name"]), c["order"].clone()))
            .collect()
    }

    #[test]
    fn cap_follows_the_walk_not_the_maximum() {
        let mut chunks = vec![
            chunk("a", Some(Value::Int(10000)), None),
            chunk("b", Some(Value::Int(20000)), None),
            chunk("c", Some(Value::Int(20050)), None),
            chunk("z", Some("last".into()), None),
            chunk("y", Some("soon".into()), None),
            chunk("x", Some(Value::Int(-1)), None),
            chunk("w", Some("first".into()), None),
        ];
        order_chunks(&mut chunks);
        // cap: 10100, then 20100; 20050 does not reach it.
        assert_eq!(
            orders(&chunks),
            vec![
                ("w".into(), Value::Int(0)),
                ("a".into(), Value::Int(10000)),
                ("b".into(), Value::Int(20000)),
                ("c".into(), Value::Int(20050)),
                ("y".into(), Value::Int(20100)),
                ("x".into(), Value::Int(1020099)),
                ("z".into(), Value::Int(1020100)),
            ]
        );
    }

    #[test]
    fn names_get_fractions_unless_the_chunk_had_no_order() {
        let mut chunks = vec![
            chunk("n2", Some(Value::Int(5)), Some(2)),
            chunk("n1", Some(Value::Int(5)), Some(1)),
            chunk("bare", None, Some(1)),
        ];
        order_chunks(&mut chunks);
        assert_eq!(
            orders(&chunks),
            vec![
                ("n1".into(), Value::Float(5.0001)),
                ("n2".into(), Value::Float(5.0002)),
                ("bare".into(), Value::Int(105)),
            ]
        );
        assert!(!chunks[0].contains_key("name_order"));
        // Salt only drops name_order from chunks that had an order.
        assert_eq!(chunks[2].get("name_order"), Some(&Value::Int(1)));
        let keys: Vec<&str> = chunks[2].keys().map(String::as_str).collect();
        assert_eq!(keys, ["state", "name", "name_order", "fun", "order"]);
    }

    #[test]
    fn ties_sort_by_state_name_fun_text() {
        let mut chunks = vec![
            chunk("b", Some(Value::Int(7)), None),
            chunk("a", Some(Value::Int(7)), None),
        ];
        chunks[1].insert("fun".into(), "zzz".into());
        order_chunks(&mut chunks);
        assert_eq!(py_str(&chunks[0]["name"]), "a");
    }
}
