//! Jinja values as YAML, for Salt's `yaml`, `yaml_encode`, `yaml_dquote`,
//! `yaml_squote` and `dict_to_sls_yaml_params` filters. This file is the
//! representer only (Salt's `SafeOrderedDumper`: which Jinja value becomes
//! which YAML node); the emitter is brine-core's, the same one the
//! outputters use, because Salt's filters and outputters both go through
//! `salt.utils.yaml.safe_dump` and so through libyaml's emitter.

use super::convert::{self, is_ordered_map, is_tuple, map_pairs, seq_items};
use brine_core::yaml::{self, DumpNode};
use minijinja::value::{Value as MjValue, ValueKind};

#[derive(Debug, thiserror::Error)]
#[error("cannot represent {0} as YAML")]
pub(crate) struct NotRepresentable(pub String);

/// `safe_dump(value, default_flow_style=flow)`, stripped of surrounding
/// whitespace and of the `...` document end marker, as Salt's `yaml` filter
/// returns it.
pub(crate) fn dump(v: &MjValue, flow: bool) -> Result<String, NotRepresentable> {
    Ok(yaml::format_node(&represent(v, 0)?, flow))
}

/// PyYAML's `SafeRepresenter` with Salt's `SafeOrderedDumper` additions:
/// plain dicts sorted by key, `OrderedDict`s in order, unknown types
/// (tuples among them) as `NULL`.
fn represent(v: &MjValue, depth: usize) -> Result<DumpNode<'static>, NotRepresentable> {
    if depth > convert::MAX_DEPTH {
        return Err(NotRepresentable("a self-containing value".into()));
    }
    Ok(match v.kind() {
        ValueKind::None | ValueKind::Undefined => DumpNode::typed("null"),
        ValueKind::Bool => DumpNode::typed(if v.is_true() { "true" } else { "false" }),
        ValueKind::Number => DumpNode::typed(number_text(v)),
        ValueKind::String => DumpNode::str(v.as_str().unwrap_or_default().to_string()),
        ValueKind::Seq | ValueKind::Iterable if is_tuple(v) => DumpNode::typed("NULL"),
        ValueKind::Seq | ValueKind::Iterable => DumpNode::Seq(
            seq_items(v)
                .iter()
                .map(|x| represent(x, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        ValueKind::Map => {
            let mut pairs = map_pairs(v);
            if !is_ordered_map(v) {
                pairs.sort_by(|a, b| a.0.cmp(&b.0));
            }
            DumpNode::Map(
                pairs
                    .iter()
                    .map(|(k, x)| Ok((represent(k, depth + 1)?, represent(x, depth + 1)?)))
                    .collect::<Result<_, NotRepresentable>>()?,
            )
        }
        _ => return Err(NotRepresentable(convert::py_repr(v))),
    })
}

/// PyYAML's int and float text.
fn number_text(v: &MjValue) -> String {
    if v.is_integer() {
        return v.to_string();
    }
    yaml::represent_float(f64::try_from(v.clone()).unwrap_or(f64::NAN))
}

/// Salt's `yaml_encode` was given a list or mapping.
#[derive(Debug, thiserror::Error)]
#[error("yaml_encode() only works with YAML scalar data; failed for <class '{0}'>")]
pub(crate) struct NotAScalar(&'static str);

/// `yaml_encode`: a scalar as YAML text; strings always double-quoted.
pub(crate) fn encode(v: &MjValue) -> Result<String, NotAScalar> {
    match represent(v, 0) {
        Ok(DumpNode::Scalar { text, .. }) => Ok(if v.kind() == ValueKind::String {
            yaml::yaml_dquote(&text)
        } else {
            text.into_owned()
        }),
        _ => Err(NotAScalar(py_type(v))),
    }
}

pub(crate) fn py_type(v: &MjValue) -> &'static str {
    match v.kind() {
        ValueKind::None | ValueKind::Undefined => "NoneType",
        ValueKind::Bool => "bool",
        ValueKind::Number if v.is_integer() => "int",
        ValueKind::Number => "float",
        ValueKind::String => "str",
        ValueKind::Seq if is_tuple(v) => "tuple",
        ValueKind::Seq | ValueKind::Iterable => "list",
        ValueKind::Map => "dict",
        _ => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_core::Value;

    /// The filter and the outputter share one emitter; what differs is the
    /// representer: Jinja has tuples (`NULL`) and ordered dicts (kept in
    /// order), and plain dicts are sorted as PyYAML sorts them.
    #[test]
    fn jinja_values_are_represented_as_salts_dumper_does() {
        let mut m = brine_core::Map::default();
        m.insert("b".into(), Value::Int(1));
        m.insert("a".into(), Value::List(vec![Value::Str("yes".into())]));
        let v = Value::Map(m);
        assert_eq!(
            dump(&convert::to_jinja(&v, false), true).unwrap(),
            brine_core::yaml::format_yaml(&v, true)
        );
        assert_eq!(
            dump(&convert::to_jinja(&v, false), true).unwrap(),
            "{a: ['yes'], b: 1}"
        );
        // An ordered dict keeps its order.
        assert_eq!(
            dump(&convert::to_jinja(&v, true), false).unwrap(),
            "b: 1\na:\n- 'yes'"
        );
        let t = convert::tuple(vec![MjValue::from(1)]);
        assert_eq!(dump(&t, true).unwrap(), "NULL");
        assert_eq!(
            encode(&MjValue::from(vec![1])).unwrap_err().to_string(),
            "yaml_encode() only works with YAML scalar data; failed for <class 'list'>"
        );
        assert_eq!(encode(&MjValue::from("été")).unwrap(), "\"\\xE9t\\xE9\"");
        assert_eq!(encode(&MjValue::from(1.5)).unwrap(), "1.5");
    }
}
