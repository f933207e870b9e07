//! [`PackedValue`]: a Salt value as msgpack bytes inside a message. A
//! minion packs a job's return once; it is queued, sent, stored in the job
//! cache and passed to the CLI as those bytes, checked (not built) when a
//! message carrying it is decoded.

use super::wire::{hinted_buffer, WireError, MAX_DEPTH};
use brine_core::Value;
use serde::de::IntoDeserializer;
use serde::{Deserialize, Serialize};

/// A [`Value`] as msgpack bytes: one whole value, at most [`MAX_DEPTH`]
/// deep (checked when it is decoded from a message, so a master stores
/// and passes on a minion's return without building it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct PackedValue(#[serde(with = "serde_bytes")] pub Vec<u8>);

impl PackedValue {
    /// Encode `v` (named maps, as the job cache stores values).
    pub fn pack(v: &Value) -> Result<PackedValue, rmp_serde::encode::Error> {
        rmp_serde::to_vec_named(v).map(PackedValue)
    }

    /// None (msgpack's nil).
    pub fn nil() -> PackedValue {
        PackedValue(vec![NIL])
    }

    /// A string value (an error message in a return's place).
    pub fn text(s: &str) -> PackedValue {
        // A lone string has nothing nested: encoding it cannot fail, but
        // if it ever did, None is still a value.
        Self::pack(&Value::Str(s.into())).unwrap_or_else(|_| Self::nil())
    }

    /// The value; bytes that do not decode (a damaged job cache) read as
    /// None, as the job cache reads them.
    pub fn unpack(&self) -> Value {
        rmp_serde::from_slice(&self.0).unwrap_or(Value::Null)
    }

    /// A decoder over the bytes (with the message depth limit), for a
    /// reader that uses the value as it is decoded instead of building it
    /// (the CLI writes a return's JSON this way).
    pub fn decoder(&self) -> rmp_serde::Deserializer<rmp_serde::decode::ReadRefReader<'_, [u8]>> {
        let mut de = rmp_serde::Deserializer::from_read_ref(self.0.as_slice());
        de.set_max_depth(MAX_DEPTH);
        de
    }

    /// Whether the bytes are exactly one value that decodes as a [`Value`]
    /// within [`MAX_DEPTH`], walked without building it.
    pub fn check(&self) -> Result<(), WireError> {
        check_packed(&self.0)
    }

    /// Pack `v` and check it as [`check`](Self::check) would, in one
    /// pass: a value packed from a [`Value`] always decodes, so only its
    /// depth can fail, and one well within the limit (most of them) needs
    /// no walk of its bytes. The walk that used to decide that was a
    /// twentieth of a minion's CPU in a fleet highstate; the encoding now
    /// notes the depth as it goes. The buffer starts at the size of the
    /// previous value packed on this thread (a fleet's returns are alike
    /// and hundreds of kilobytes: growing from empty copied each several
    /// times).
    pub fn pack_checked(v: &Value) -> Result<PackedValue, WireError> {
        thread_local! {
            static LAST_SIZE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        }
        let deep = std::cell::Cell::new(false);
        let shallow = Shallow {
            v,
            left: MAX_DEPTH / 2,
            deep: &deep,
        };
        let buf = hinted_buffer(&LAST_SIZE, |buf| {
            rmp_serde::encode::write_named(buf, &shallow).map_err(|source| WireError::Encode {
                kind: "packed value",
                source,
            })
        })?;
        let packed = PackedValue(buf);
        if deep.get() {
            packed.check()?;
        }
        Ok(packed)
    }
}

/// `v` serialized exactly as [`Value`] serializes itself, noting in `deep`
/// whether anything sits `left` or more levels down.
struct Shallow<'a> {
    v: &'a Value,
    left: usize,
    deep: &'a std::cell::Cell<bool>,
}

impl Shallow<'_> {
    fn below<'b>(&'b self, v: &'b Value) -> Shallow<'b> {
        Shallow {
            v,
            left: self.left - 1,
            deep: self.deep,
        }
    }
}

impl Serialize for Shallow<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        if self.left == 0 {
            self.deep.set(true);
            return self.v.serialize(s);
        }
        match self.v {
            Value::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&self.below(item))?;
                }
                seq.end()
            }
            Value::Map(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, item) in m {
                    map.serialize_entry(k, &self.below(item))?;
                }
                map.end()
            }
            scalar => scalar.serialize(s),
        }
    }
}

/// The encoded value of field `name` of the msgpack map `bytes` (a
/// struct encoded with named fields), found by skimming past the other
/// fields without building them; `None` when `bytes` is not such a map
/// or has no such field. Values deeper than [`MAX_DEPTH`] are refused.
pub fn map_field<'a>(bytes: &'a [u8], name: &str) -> Option<&'a [u8]> {
    let mut cur = std::io::Cursor::new(bytes);
    let fields = rmp::decode::read_map_len(&mut cur).ok()?;
    for _ in 0..fields {
        let len = usize::try_from(rmp::decode::read_str_len(&mut cur).ok()?).ok()?;
        let at = usize::try_from(cur.position()).ok()?;
        let key = bytes.get(at..at.checked_add(len)?)?;
        let start = at + len;
        let end = start.checked_add(skim(bytes.get(start..)?).ok()?)?;
        cur.set_position(u64::try_from(end).ok()?);
        if key == name.as_bytes() {
            return bytes.get(start..end);
        }
    }
    None
}

/// Whether encoded `bytes` begin with a msgpack map's header.
pub fn is_map(bytes: &[u8]) -> bool {
    rmp::decode::read_map_len(&mut &bytes[..]).is_ok()
}

/// msgpack's nil.
const NIL: u8 = 0xc0;

fn check_packed(bytes: &[u8]) -> Result<(), WireError> {
    let decode = |why: &str| WireError::Decode {
        kind: "packed value",
        source: serde::de::Error::custom(why),
    };
    match skim(bytes) {
        Ok(len) if len == bytes.len() => Ok(()),
        Ok(_) => Err(decode("bytes left after the value")),
        Err(why) => Err(decode(why)),
    }
}

/// The length of the one msgpack value `bytes` begin with, if it is one
/// a [`Value`] decodes from (through rmp_serde with the [`MAX_DEPTH`]
/// limit): anything but an ext type or the reserved marker, containers
/// at most `MAX_DEPTH - 1` deep, strings taken as bytes (a `Value` reads
/// bad UTF-8 lossily). Walked over the slice without decoding it: going
/// through serde with a reader copied every string out and was a tenth
/// of a master's CPU in a fleet highstate, checking the returns.
fn skim(bytes: &[u8]) -> Result<usize, &'static str> {
    const SHORT: &str = "the value ends early";
    // Values still to read in each open container, innermost last.
    let mut open: Vec<u64> = Vec::new();
    let mut at = 0usize;
    let skip = |at: usize, n: usize| match at.checked_add(n) {
        Some(end) if end <= bytes.len() => Ok(end),
        _ => Err(SHORT),
    };
    let be = |at: usize, n: usize| -> Result<(usize, usize), &'static str> {
        let end = skip(at, n)?;
        let len = bytes[at..end]
            .iter()
            .fold(0usize, |len, b| len << 8 | usize::from(*b));
        Ok((end, len))
    };
    loop {
        let marker = *bytes.get(at).ok_or(SHORT)?;
        at += 1;
        // `Some(n)`: a container holding `n` values (a map's keys and
        // values both counted); `None`: a value read whole.
        let container: Option<u64> = match marker {
            0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => None,
            0x80..=0x8f => Some(2 * u64::from(marker & 0x0f)),
            0x90..=0x9f => Some(u64::from(marker & 0x0f)),
            0xa0..=0xbf => {
                at = skip(at, usize::from(marker & 0x1f))?;
                None
            }
            // Numbers of 1, 2, 4 and 8 bytes.
            0xca..=0xd3 => {
                let width = match marker {
                    0xcc | 0xd0 => 1,
                    0xcd | 0xd1 => 2,
                    0xca | 0xce | 0xd2 => 4,
                    _ => 8,
                };
                at = skip(at, width)?;
                None
            }
            // str8/16/32 and bin8/16/32: a length, then the bytes.
            0xd9 | 0xda | 0xdb | 0xc4 | 0xc5 | 0xc6 => {
                let width = match marker {
                    0xd9 | 0xc4 => 1,
                    0xda | 0xc5 => 2,
                    _ => 4,
                };
                let (end, len) = be(at, width)?;
                at = skip(end, len)?;
                None
            }
            // array16/32 and map16/32: a count of 2 or 4 bytes.
            0xdc..=0xdf => {
                let width = if marker & 1 == 0 { 2 } else { 4 };
                let per_entry = if marker >= 0xde { 2 } else { 1 };
                let (end, len) = be(at, width)?;
                at = end;
                Some(len as u64 * per_entry)
            }
            0xc1 => return Err("a reserved msgpack marker"),
            // ext8/16/32 and fixext: nothing a Salt value holds.
            0xc7..=0xc9 | 0xd4..=0xd8 => return Err("an ext type, which no Salt value holds"),
        };
        if let Some(items) = container {
            // rmp_serde counts every container, empty or not, against the
            // limit.
            if open.len() + 1 >= MAX_DEPTH {
                return Err("nested deeper than the depth limit");
            }
            if items > 0 {
                // Each value takes a byte at least: a count past the end
                // is refused here, not after reading to it.
                if items > (bytes.len() - at) as u64 {
                    return Err(SHORT);
                }
                open.push(items);
                continue;
            }
        }
        // One value read: close the containers it completes.
        loop {
            match open.last_mut() {
                None => return Ok(at),
                Some(left) if *left > 1 => {
                    *left -= 1;
                    break;
                }
                Some(_) => {
                    open.pop();
                }
            }
        }
    }
}

/// From a message: msgpack bytes, checked to hold one value; or, as older
/// minions sent returns, the value itself, packed on arrival.
impl<'de> Deserialize<'de> for PackedValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PackedValue, D::Error> {
        d.deserialize_any(PackedVisitor)
    }
}

struct PackedVisitor;

impl PackedVisitor {
    fn packed<E: serde::de::Error>(v: Value) -> Result<PackedValue, E> {
        PackedValue::pack(&v).map_err(E::custom)
    }
    fn scalar<'de, E: serde::de::Error>(
        d: impl serde::Deserializer<'de, Error = E>,
    ) -> Result<PackedValue, E> {
        Self::packed(Value::deserialize(d)?)
    }
}

impl<'de> serde::de::Visitor<'de> for PackedVisitor {
    type Value = PackedValue;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a packed Salt value")
    }
    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<PackedValue, E> {
        self.visit_byte_buf(v.to_vec())
    }
    fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<PackedValue, E> {
        check_packed(&v).map_err(E::custom)?;
        Ok(PackedValue(v))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<PackedValue, E> {
        Self::packed(Value::Null)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<PackedValue, E> {
        Self::packed(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<PackedValue, D::Error> {
        Self::packed(Value::deserialize(d)?)
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<PackedValue, E> {
        Self::scalar(v.into_deserializer())
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<PackedValue, E> {
        Self::scalar(v.into_deserializer())
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<PackedValue, E> {
        Self::scalar(v.into_deserializer())
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<PackedValue, E> {
        Self::scalar(v.into_deserializer())
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<PackedValue, E> {
        Self::scalar(v.into_deserializer())
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<PackedValue, A::Error> {
        Self::packed(Value::deserialize(
            serde::de::value::SeqAccessDeserializer::new(seq),
        )?)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<PackedValue, A::Error> {
        Self::packed(Value::deserialize(
            serde::de::value::MapAccessDeserializer::new(map),
        )?)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{from_slice, JobReturn};
    use super::*;
    use brine_core::Map;

    fn echo_return(ret: PackedValue) -> JobReturn {
        JobReturn {
            jid: "1".into(),
            id: "web1".into(),
            fun: "test.echo".into(),
            fun_args: vec![],
            ret,
            retcode: 0,
            success: true,
            out: None,
            schedule: None,
            called: false,
            user: None,
        }
    }

    /// `depth` lists, one inside the other.
    fn nested(depth: usize) -> Value {
        (0..depth).fold(Value::Null, |v, _| Value::List(vec![v]))
    }

    #[test]
    fn a_value_packed_here_is_checked_as_its_bytes_are() {
        for depth in [
            0,
            1,
            10,
            MAX_DEPTH / 2 - 1,
            MAX_DEPTH / 2,
            MAX_DEPTH / 2 + 1,
            MAX_DEPTH - 1,
            MAX_DEPTH,
            MAX_DEPTH + 1,
            MAX_DEPTH * 2,
        ] {
            let v = nested(depth);
            let p = PackedValue::pack(&v).unwrap();
            let checked = PackedValue::pack_checked(&v);
            assert_eq!(checked.is_ok(), p.check().is_ok(), "depth {depth}");
            if let Ok(q) = checked {
                assert_eq!(q, p, "depth {depth}: the same bytes as Value packs");
            }
        }
        assert!(PackedValue::pack_checked(&nested(MAX_DEPTH * 2)).is_err());
        // Maps, scalars of every kind, and a hint from a larger value.
        let mut m = Map::default();
        m.insert("s".into(), "x".into());
        m.insert(
            "l".into(),
            Value::List(vec![Value::Null, Value::Bool(true), Value::Float(1.5)]),
        );
        m.insert("i".into(), Value::Int(-7));
        m.insert("m".into(), Value::Map(Map::default()));
        let v = Value::Map(m);
        let big = Value::List((0..10_000).map(Value::Int).collect());
        for v in [&big, &v, &Value::Null] {
            let packed = PackedValue::pack_checked(v).unwrap();
            assert_eq!(packed, PackedValue::pack(v).unwrap());
            assert!(packed.0.capacity() <= 2 * packed.0.len() + 4096);
        }
    }

    #[test]
    fn a_field_is_found_in_its_encoded_map_as_its_own_encoding() {
        #[derive(serde::Serialize)]
        struct Entry<'a> {
            grains: &'a Value,
            pillar: &'a Value,
            pillarenv: Option<&'a str>,
        }
        let mut pillar = Map::default();
        pillar.insert("k".into(), Value::List(vec![Value::Float(1.5), "x".into()]));
        pillar.insert("m".into(), Value::Map(Map::default()));
        let pillar = Value::Map(pillar);
        let grains = Value::List((0..300).map(Value::Int).collect());
        let entry = Entry {
            grains: &grains,
            pillar: &pillar,
            pillarenv: Some("dev"),
        };
        let bytes = rmp_serde::to_vec_named(&entry).unwrap();
        let want = rmp_serde::to_vec_named(&pillar).unwrap();
        assert_eq!(map_field(&bytes, "pillar"), Some(want.as_slice()));
        assert!(is_map(&want) && !is_map(map_field(&bytes, "grains").unwrap()));
        assert!(!is_map(&[]));
        let env = map_field(&bytes, "pillarenv").unwrap();
        assert_eq!(rmp_serde::from_slice::<String>(env).unwrap(), "dev");
        assert_eq!(map_field(&bytes, "nope"), None);
        // Not a map, cut short, or too deep: nothing, and no panic.
        assert_eq!(map_field(&want[..0], "k"), None);
        assert_eq!(map_field(&bytes[..bytes.len() - 3], "pillarenv"), None);
        for cut in 0..bytes.len() {
            let _ = map_field(&bytes[..cut], "pillar");
        }
        let mut deep = Map::default();
        deep.insert("pillar".into(), nested(MAX_DEPTH * 2));
        let deep = rmp_serde::to_vec_named(&Value::Map(deep)).unwrap();
        assert_eq!(map_field(&deep, "pillar"), None);
    }

    #[test]
    fn a_return_travels_packed_and_older_unpacked_returns_still_decode() {
        let mut m = Map::default();
        m.insert(
            "a".into(),
            Value::List(vec![1i64.into(), "x".into(), Value::Null]),
        );
        m.insert("b".into(), Value::Float(2.5));
        let value = Value::Map(m);
        let ret = echo_return(PackedValue::pack(&value).unwrap());
        let bytes = rmp_serde::to_vec_named(&ret).unwrap();
        let back: JobReturn = from_slice("return", &bytes).unwrap();
        assert_eq!(back.ret.unpack(), value);
        // An older minion sent the value itself in `return`.
        #[derive(Serialize)]
        struct Older<'a> {
            jid: &'a str,
            id: &'a str,
            fun: &'a str,
            fun_args: Vec<Value>,
            #[serde(rename = "return")]
            ret: &'a Value,
            retcode: i64,
            success: bool,
            out: Option<String>,
        }
        for v in [value.clone(), Value::Null, Value::Int(-3), "s".into()] {
            let older = Older {
                jid: "1",
                id: "web1",
                fun: "test.echo",
                fun_args: vec![],
                ret: &v,
                retcode: 0,
                success: true,
                out: None,
            };
            let bytes = rmp_serde::to_vec_named(&older).unwrap();
            let back: JobReturn = from_slice("return", &bytes).unwrap();
            assert_eq!(back.ret.unpack(), v);
            assert_eq!(back.ret, PackedValue::pack(&v).unwrap());
        }
    }

    #[test]
    fn packed_bytes_must_hold_one_value_within_the_depth_limit() {
        let decode_ret = |packed: Vec<u8>| {
            let ret = echo_return(PackedValue(packed));
            from_slice::<JobReturn>("return", &rmp_serde::to_vec_named(&ret).unwrap())
        };
        assert!(decode_ret(PackedValue::text("fine").0).is_ok());
        // Truncated, junk, two values, an ext type Value has no place for.
        let mut two = PackedValue::text("a").0;
        two.extend(PackedValue::text("b").0);
        for bad in [
            vec![0x92, 0x01],
            vec![0xc1],
            two,
            vec![0xd4, 0x01, 0x00],
            vec![],
        ] {
            assert!(decode_ret(bad.clone()).is_err(), "{bad:?}");
            assert!(PackedValue(bad).check().is_err());
        }
        let mut deep = vec![0x91u8; MAX_DEPTH + 1];
        deep.push(0xc0);
        assert!(decode_ret(deep.clone()).is_err());
        let ok_depth = deep.split_off(2);
        assert!(PackedValue(ok_depth).check().is_ok());
    }

    /// What the walk must agree with: rmp_serde building a [`Value`] with
    /// the depth limit, and every byte used.
    fn decodes_as_a_value(bytes: &[u8]) -> bool {
        let mut de = rmp_serde::Deserializer::new(std::io::Cursor::new(bytes));
        de.set_max_depth(MAX_DEPTH);
        Value::deserialize(&mut de).is_ok() && de.position() == bytes.len() as u64
    }

    /// Random msgpack, of every marker and nested, written by hand so that
    /// what no `Value` encodes (ext, bin, bad UTF-8, u64) is in it too.
    fn random_msgpack(rng: &mut impl FnMut() -> u64, depth: u32, out: &mut Vec<u8>) {
        let pick = rng() % if depth == 0 { 12 } else { 16 };
        let blob = |rng: &mut dyn FnMut() -> u64, n: usize| -> Vec<u8> {
            (0..n).map(|_| rng() as u8).collect()
        };
        match pick {
            0 => out.push(rng() as u8 & 0x7f),
            1 => out.push(0xe0 | (rng() as u8 & 0x1f)),
            2 => out.push([0xc0, 0xc2, 0xc3, 0xc1][(rng() % 4) as usize]),
            3 => {
                let m = [0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3, 0xca, 0xcb];
                let marker = m[(rng() % 10) as usize];
                out.push(marker);
                let width = match marker {
                    0xcc | 0xd0 => 1,
                    0xcd | 0xd1 => 2,
                    0xca | 0xce | 0xd2 => 4,
                    _ => 8,
                };
                out.extend(blob(rng, width));
            }
            4 | 5 => {
                let n = (rng() % 40) as usize;
                let text: Vec<u8> = if rng().is_multiple_of(4) {
                    blob(rng, n)
                } else {
                    (0..n).map(|i| b'a' + (i % 26) as u8).collect()
                };
                match rng() % 4 {
                    0 if n < 32 => out.push(0xa0 | n as u8),
                    1 => out.extend([0xd9, n as u8]),
                    2 => out.extend([0xda, 0, n as u8]),
                    _ => out.extend([0xdb, 0, 0, 0, n as u8]),
                }
                out.extend(text);
            }
            6 => {
                let n = (rng() % 20) as usize;
                out.extend([[0xc4, n as u8].as_slice(), &[0xc5, 0, n as u8]][(rng() % 2) as usize]);
                out.extend(blob(rng, n));
            }
            7 => {
                let ext = [0xd4, 0xd5, 0xd6, 0xd7, 0xd8][(rng() % 5) as usize];
                out.push(ext);
                out.push(1);
                out.extend(blob(rng, 1 << (ext - 0xd4)));
            }
            8..=11 => out.push(0xc0),
            _ => {
                let n = (rng() % 5) as usize;
                let map = rng().is_multiple_of(2);
                match (rng() % 3, map) {
                    (0, false) => out.push(0x90 | n as u8),
                    (0, true) => out.push(0x80 | n as u8),
                    (1, false) => out.extend([0xdc, 0, n as u8]),
                    (1, true) => out.extend([0xde, 0, n as u8]),
                    (_, false) => out.extend([0xdd, 0, 0, 0, n as u8]),
                    (_, true) => out.extend([0xdf, 0, 0, 0, n as u8]),
                }
                for _ in 0..n * if map { 2 } else { 1 } {
                    random_msgpack(rng, depth - 1, out);
                }
            }
        }
    }

    #[test]
    fn the_walk_accepts_exactly_what_decodes_as_a_value() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut rng = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut good, mut bad) = (0, 0);
        for case in 0..30_000 {
            let mut bytes = Vec::new();
            random_msgpack(&mut rng, 4, &mut bytes);
            match case % 5 {
                // Cut short, a byte changed, junk after, or as written.
                0 if !bytes.is_empty() => bytes.truncate((rng() as usize) % bytes.len()),
                1 if !bytes.is_empty() => {
                    let at = (rng() as usize) % bytes.len();
                    bytes[at] = rng() as u8;
                }
                2 => bytes.push(rng() as u8),
                _ => {}
            }
            let want = decodes_as_a_value(&bytes);
            assert_eq!(
                PackedValue(bytes.clone()).check().is_ok(),
                want,
                "{bytes:02x?}"
            );
            if want {
                good += 1;
            } else {
                bad += 1;
            }
        }
        // Both answers were asked often enough to mean something.
        assert!(good > 5_000 && bad > 5_000, "{good} good, {bad} bad");
        // The depth limit, with maps and empty containers at the bottom.
        for (depth, last) in [
            (MAX_DEPTH - 2, 0x90),
            (MAX_DEPTH - 1, 0x80),
            (MAX_DEPTH, 0x90),
        ] {
            let mut bytes = [0x81, 0xa1, b'k'].repeat(depth - 1);
            bytes.push(last);
            let want = decodes_as_a_value(&bytes);
            assert_eq!(PackedValue(bytes).check().is_ok(), want, "depth {depth}");
            assert_eq!(want, depth < MAX_DEPTH, "depth {depth}");
        }
    }
}
