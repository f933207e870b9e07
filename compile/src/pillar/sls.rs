//! One pillar SLS: rendered, then its `include`s rendered and merged under
//! it (the including file's own keys win), in both include forms:
//! `- name` and `- name: {defaults: {...}, key: a:b}`.

use super::compiler::{Compiler, Mods};
use super::merge::merge;
use crate::matcher::glob::fnmatch_filter;
use crate::render::{self, TemplateContext};
use brine_core::{Map, Value};
use std::path::Path;

/// Fewer top-level SLS than this are rendered in order only (threads cost
/// more than they save).
const PRERENDER_MIN: usize = 16;

impl Compiler<'_> {
    /// The template context of `sls` (file `path`) in `saltenv`, with
    /// `defaults` as extra variables.
    fn sls_context(
        &self,
        sls: &str,
        saltenv: &str,
        path: &Path,
        defaults: &Map,
    ) -> TemplateContext {
        TemplateContext {
            minion: self.minion.clone(),
            saltenv: saltenv.to_string(),
            pillarenv: self.pillarenv.clone(),
            sls: Some(sls.to_string()),
            tplpath: Some(path.display().to_string()),
            fetch: None,
            search_paths: self.roots.dirs(saltenv).to_vec(),
            extra: defaults
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }

    /// Render the top-level SLS `files` of `saltenv` ahead, on all cores.
    /// A file's render depends only on the minion and its own path (not on
    /// the pillar merged so far, as in Salt), so the in-order pass that
    /// merges them gets the same values as rendering each in turn; what it
    /// does not take (an SLS already included) is dropped. Errors are kept
    /// for that pass to report in order.
    pub(super) fn prerender(&self, saltenv: &str, files: &[String]) {
        let workers = self.prerender_workers.min(files.len() / PRERENDER_MIN);
        if workers < 2 {
            return;
        }
        let done = render::on_threads(workers, files, |sls| {
            let file = self.roots.find_sls(saltenv, sls)?;
            let ctx = self.sls_context(sls, saltenv, &file.path, &Map::default());
            let rendered = render::render_file(&file.path, &ctx);
            Some((file, rendered))
        });
        let mut table = self.prerendered.lock().unwrap_or_else(|p| p.into_inner());
        for (i, rendered) in done {
            table.insert((saltenv.to_string(), files[i].clone()), rendered);
        }
    }

    /// Render `sls` of `saltenv` and its includes; `defaults` are extra
    /// template variables (from an including file's `defaults:`).
    pub(super) fn render_pstate(
        &self,
        sls: &str,
        saltenv: &str,
        mods: &mut Mods,
        defaults: &Map,
        errors: &mut Vec<String>,
    ) -> Option<Value> {
        // Rendered ahead (found then): its file and answer. Only plain
        // renders were done ahead; an include with `defaults` renders here.
        let ahead = if defaults.is_empty() {
            self.prerendered
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&(saltenv.to_string(), sls.to_string()))
        } else {
            None
        };
        let found = match ahead {
            Some((file, rendered)) => Some((file, Some(rendered))),
            None => self.roots.find_sls(saltenv, sls).map(|f| (f, None)),
        };
        let Some((file, ahead)) = found else {
            if self
                .ignored
                .get(saltenv)
                .is_some_and(|l| l.iter().any(|s| s == sls))
            {
                tracing::debug!(
                    "Skipping ignored and missing SLS '{sls}' in environment '{saltenv}'"
                );
            } else if !self.roots.dirs(saltenv).is_empty() {
                let msg = format!(
                    "Specified SLS '{sls}' in environment '{saltenv}' is not available on the salt master"
                );
                tracing::error!("{msg}");
                errors.push(msg);
            } else {
                tracing::debug!("Specified SLS '{sls}' in environment '{saltenv}' was not found");
            }
            return None;
        };
        let rendered = ahead.unwrap_or_else(|| {
            let ctx = self.sls_context(sls, saltenv, &file.path, defaults);
            render::render_file(&file.path, &ctx)
        });
        let mut state = match rendered {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::error!("Rendering SLS '{sls}' failed, render error:\n{e}");
                errors.push(if self.safe_render_error {
                    format!("Rendering SLS '{sls}' failed. Please see master log for details.")
                } else {
                    format!("Rendering SLS '{sls}' failed, render error:\n{e}")
                });
                None
            }
        };

        let include = match &mut state {
            Some(Value::Map(m)) => m.shift_remove("include"),
            Some(v) if v.is_truthy() => {
                let msg = format!("SLS '{sls}' does not render to a dictionary");
                tracing::error!("{msg}");
                errors.push(msg);
                None
            }
            _ => None,
        };
        mods.insert(sls.to_string(), state.clone());
        let Some(include) = include else {
            return state;
        };
        let Value::List(include) = include else {
            let msg = format!("Include Declaration in SLS '{sls}' is not formed as a list");
            tracing::error!("{msg}");
            errors.push(msg);
            return state;
        };

        let avail = self.roots.list_sls(saltenv);
        let mut include_states: Vec<Value> = Vec::new();
        // Salt reuses the previous include's `defaults` for a following plain
        // include; keep that so the same trees render the same.
        let mut inc_defaults = defaults.clone();
        for item in include {
            let (name, key) = match item {
                Value::Map(m) => {
                    let Some((name, opts)) = m.into_iter().next() else {
                        continue;
                    };
                    inc_defaults = opts
                        .get("defaults")
                        .and_then(Value::as_map)
                        .cloned()
                        .unwrap_or_default();
                    let key = opts.get("key").and_then(Value::as_str).map(str::to_string);
                    (name, key)
                }
                Value::Str(s) => (s, None),
                other => (other.to_python_str(), None),
            };
            for sub in resolve_include(&name, sls, file.is_init, &avail) {
                if !mods.contains_key(&sub) && self.roots.find_sls(saltenv, &sub).is_none() {
                    // Salt's error names only the missing SLS; the log says
                    // which file asked for it.
                    tracing::error!(
                        "{}: include of '{sub}' in environment '{saltenv}': no such SLS",
                        file.path.display()
                    );
                }
                let nstate = if let Some(cached) = mods.get(&sub) {
                    cached.clone()
                } else {
                    self.render_pstate(&sub, saltenv, mods, &inc_defaults, errors)
                };
                let Some(mut nstate) = nstate.filter(Value::is_truthy) else {
                    continue;
                };
                if let Some(key) = &key {
                    for fragment in key.split(':').rev() {
                        let mut wrap = Map::default();
                        wrap.insert(fragment.to_string(), nstate);
                        nstate = Value::Map(wrap);
                    }
                }
                if self.includes_override_sls {
                    if let (Some(Value::Map(s)), Value::Map(n)) = (&mut state, nstate) {
                        merge(s, n, self.strategy, self.merge_lists);
                    }
                } else {
                    include_states.push(nstate);
                }
            }
        }
        if self.includes_override_sls {
            return state;
        }
        // Included data first, the including file's own data last (it wins).
        if let Some(own) = state.take() {
            include_states.push(own);
        }
        let mut merged: Option<Map> = None;
        for s in include_states {
            let Value::Map(s) = s else { continue };
            match &mut merged {
                None => merged = Some(s),
                Some(m) => merge(m, s, self.strategy, self.merge_lists),
            }
        }
        merged.map(Value::Map)
    }
}

/// The SLS names an `include` entry stands for: a glob over the available
/// SLS, a relative `.name` resolved against the including SLS, or the name
/// itself when nothing matches (so that a missing include is reported).
fn resolve_include(
    name: &str,
    parent: &str,
    parent_is_init: bool,
    avail: &[String],
) -> Vec<String> {
    let mut matched = fnmatch_filter(avail, &name.trim_start_matches('.').replace('/', "."));
    let mut target = name.to_string();
    if let Some(rest) = name.strip_prefix('.') {
        let mut parts: Vec<&str> = parent.split('.').collect();
        if !parent_is_init {
            parts.pop();
        }
        parts.push(rest);
        target = parts.join(".");
    }
    matched.extend(fnmatch_filter(avail, &target));
    if matched.is_empty() {
        matched.push(target);
    }
    matched
}

#[cfg(test)]
mod tests {
    use super::resolve_include;

    #[test]
    fn includes_resolve_like_salt() {
        let avail: Vec<String> = ["a", "a.b", "a.c", "common"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        // A plain name is found twice by Salt's two filters (harmless: the
        // second comes from the rendered-SLS memory).
        assert_eq!(
            resolve_include("common", "x", false, &avail),
            ["common", "common"]
        );
        assert_eq!(
            resolve_include("a.*", "x", false, &avail),
            ["a.b", "a.c", "a.b", "a.c"]
        );
        assert_eq!(resolve_include(".c", "a.b", false, &avail), ["a.c"]);
        assert_eq!(resolve_include(".b", "a", true, &avail), ["a.b"]);
        assert_eq!(resolve_include("missing", "x", false, &avail), ["missing"]);
    }
}

#[cfg(test)]
mod ahead_tests {
    use super::super::{compile_with, PillarRequest};
    use brine_core::{Map, Value};

    /// Rendering ahead on threads answers exactly what rendering in turn
    /// does: values, merge order (later files win), includes (also of
    /// top-level files), render errors in order, Jinja on grains.
    #[test]
    fn rendering_ahead_answers_as_rendering_in_turn() {
        let td = tempfile::tempdir().unwrap();
        let base = td.path().join("base");
        std::fs::create_dir_all(&base).unwrap();
        let n = 48;
        let mut top = String::from("base:\n  '*':\n");
        for i in 0..n {
            top.push_str(&format!("    - p{i}\n"));
            let body = match i {
                7 => "a: [\n".to_string(),
                9 => "include:\n  - p30\n  - extra\nshared: from-9\n".to_string(),
                21 => "{{ undefined_thing.x }}: 1\n".to_string(),
                _ => {
                    format!("k{i}: {{{{ grains['id'] }}}}-{i}\nshared: from-{i}\nlist:\n  - {i}\n")
                }
            };
            std::fs::write(base.join(format!("p{i}.sls")), body).unwrap();
        }
        std::fs::write(base.join("extra.sls"), "extra: {{ grains['os'] }}\n").unwrap();
        std::fs::write(base.join("top.sls"), top).unwrap();
        let mut opts = crate::opts::minion_defaults();
        opts.insert(
            "pillar_roots".into(),
            Value::from_json(&serde_json::json!({"base": [base.display().to_string()]})),
        );
        let mut grains = Map::default();
        grains.insert("id".into(), "m1".into());
        grains.insert("os".into(), "Debian".into());
        let req = PillarRequest {
            opts,
            minion_id: "m1".into(),
            grains: Value::Map(grains),
            pillarenv: None,
            saltenv: None,
            pillar_override: None,
            known_pillar: None,
            functions: Default::default(),
        };
        let in_turn = compile_with(&req, 0);
        let ahead = compile_with(&req, 2);
        assert_eq!(ahead, in_turn);
        assert_eq!(in_turn.get("k5"), Some(&Value::from("m1-5")));
        assert_eq!(in_turn.get("extra"), Some(&Value::from("Debian")));
        assert_eq!(in_turn.get("shared"), Some(&Value::from("from-47")));
        let errors = in_turn.get("_errors").and_then(Value::as_list).unwrap();
        assert_eq!(errors.len(), 2, "{errors:?}");
    }
}
