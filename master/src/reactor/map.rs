//! The reactor map: `reactor:` in the master config, a list of
//! `{tag glob: [sls file, ...]}` in order.

use brine_compile::matcher::glob::fnmatch;
use brine_core::{Map, Value};
use std::path::PathBuf;

/// Tag globs and the SLS files each runs, in the config's order.
#[derive(Debug, Default)]
pub struct ReactorMap(Vec<(String, Vec<PathBuf>)>);

impl ReactorMap {
    /// The map in `opts` (entries of other shapes are warned about and left
    /// out).
    pub fn of(opts: &Map) -> ReactorMap {
        let Some(Value::List(list)) = opts.get("reactor") else {
            return ReactorMap::default();
        };
        let mut out = Vec::new();
        for entry in list {
            let Value::Map(m) = entry else {
                tracing::warn!(
                    "reactor: an entry is not a mapping: {}",
                    entry.to_python_str()
                );
                continue;
            };
            for (glob, files) in m {
                let files: Vec<PathBuf> = match files {
                    Value::List(l) => l.iter().map(|f| PathBuf::from(f.to_python_str())).collect(),
                    Value::Str(s) => vec![PathBuf::from(s)],
                    other => {
                        tracing::warn!(
                            "reactor: {glob}: not a list of files: {}",
                            other.to_python_str()
                        );
                        continue;
                    }
                };
                out.push((glob.clone(), files));
            }
        }
        ReactorMap(out)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The SLS files of every glob `tag` matches, in order.
    pub fn matching<'a>(&'a self, tag: &'a str) -> impl Iterator<Item = &'a PathBuf> + 'a {
        self.0
            .iter()
            .filter(move |(glob, _)| fnmatch(tag, glob))
            .flat_map(|(_, files)| files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_pick_files_in_order() {
        let opts = match Value::from_json(&serde_json::json!({"reactor": [
            {"my/react/*": ["/r/a.sls", "/r/b.sls"]},
            {"salt/minion/*/start": ["/r/start.sls"]},
            "bogus",
        ]})) {
            Value::Map(m) => m,
            _ => unreachable!(),
        };
        let m = ReactorMap::of(&opts);
        assert_eq!(m.len(), 2);
        let got: Vec<_> = m.matching("my/react/one").collect();
        assert_eq!(
            got,
            [&PathBuf::from("/r/a.sls"), &PathBuf::from("/r/b.sls")]
        );
        assert_eq!(m.matching("salt/minion/web1/start").count(), 1);
        assert_eq!(m.matching("other").count(), 0);
    }
}
