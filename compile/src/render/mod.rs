//! The render pipeline: source text → data, as chosen by the shebang line
//! (`#!jinja|yaml` by default, `#!yaml`, `#!jinja|json`, `#!json`, and
//! `|gpg` after any of them: [`gpg`]).
//! Shared by pillar SLS, state SLS, top files and PillarStack.

pub mod decrypt;
pub mod gpg;
pub mod jinja;
use brine_core::yaml;

pub use jinja::TemplateContext;

use brine_core::Value;
use std::path::{Path, PathBuf};

/// Why a file could not be rendered; always names the file.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("{path}: cannot read: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: Jinja error: {source}")]
    Jinja {
        path: PathBuf,
        source: jinja::JinjaError,
    },
    #[error("{path}: YAML error: {source}")]
    Yaml {
        path: PathBuf,
        source: yaml::YamlError,
    },
    #[error("{path}: JSON error: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// A block the gpg renderer could not decrypt (Salt's words).
    #[error("{path}: {message}")]
    Gpg { path: PathBuf, message: String },
    #[error(
        "{path}: unknown renderer '{name}' in '#!{pipeline}' (supported: jinja, yaml, json, gpg)"
    )]
    UnknownRenderer {
        path: PathBuf,
        name: String,
        pipeline: String,
    },
}

/// One stage of a render pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Jinja,
    Yaml,
    Json,
    Gpg,
}

/// The pipeline a file asks for with its first line (`#!jinja|yaml`), or
/// `default` (a pipeline spelled as after `#!`), and the text to feed it
/// (the shebang line itself is dropped).
fn pipeline<'a>(
    path: &Path,
    text: &'a str,
    default: &str,
) -> Result<(Vec<Stage>, &'a str), RenderError> {
    let Some(rest) = text.strip_prefix("#!") else {
        return Ok((stages(path, default)?, text));
    };
    // The body keeps the shebang line's newline so that line numbers in
    // errors stay those of the file.
    let (line, body) = match rest.find('\n') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    Ok((stages(path, line.trim())?, body))
}

/// The renderers `spec` (`jinja|yaml`) names.
fn stages(path: &Path, spec: &str) -> Result<Vec<Stage>, RenderError> {
    let mut stages = Vec::new();
    for name in spec.split('|') {
        // Renderer options (`#!jinja --some-option`) are accepted and ignored.
        let name = name.split_whitespace().next().unwrap_or("");
        stages.push(match name {
            "jinja" => Stage::Jinja,
            "yaml" => Stage::Yaml,
            "json" => Stage::Json,
            "gpg" => Stage::Gpg,
            other => {
                return Err(RenderError::UnknownRenderer {
                    path: path.to_path_buf(),
                    name: other.to_string(),
                    pipeline: spec.to_string(),
                })
            }
        });
    }
    Ok(stages)
}

/// Render `text` (the contents of `path`) through its pipeline.
pub fn render_text(path: &Path, text: &str, ctx: &TemplateContext) -> Result<Value, RenderError> {
    render_text_with_default(path, text, ctx, "jinja|yaml")
}

/// [`render_text`] with `default` the pipeline of a text without a
/// shebang line (`slsutil.renderer`'s `default_renderer`).
pub fn render_text_with_default(
    path: &Path,
    text: &str,
    ctx: &TemplateContext,
    default: &str,
) -> Result<Value, RenderError> {
    let (stages, body) = pipeline(path, text, default)?;
    let mut current = std::borrow::Cow::Borrowed(body);
    let mut data: Option<Value> = None;
    for stage in stages {
        match stage {
            Stage::Jinja => {
                let name = path.display().to_string();
                current = std::borrow::Cow::Owned(jinja::render(&name, &current, ctx).map_err(
                    |source| RenderError::Jinja {
                        path: path.to_path_buf(),
                        source,
                    },
                )?);
            }
            Stage::Yaml => {
                data = Some(yaml::load(&current).map_err(|source| RenderError::Yaml {
                    path: path.to_path_buf(),
                    source,
                })?);
            }
            Stage::Json => {
                let trimmed = current.trim();
                data = Some(if trimmed.is_empty() {
                    Value::Null
                } else {
                    serde_json::from_str::<Value>(trimmed).map_err(|source| RenderError::Json {
                        path: path.to_path_buf(),
                        source,
                    })?
                });
            }
            Stage::Gpg => {
                let input = data
                    .take()
                    .unwrap_or_else(|| Value::Str(current.to_string()));
                let opts = ctx.minion.opts.as_map();
                let deferred = opts
                    .and_then(|o| o.get(gpg::DEFER_OPTION))
                    .is_some_and(Value::is_truthy);
                data = Some(if deferred {
                    gpg::defer(input)
                } else {
                    let opts = opts.cloned().unwrap_or_default();
                    gpg::Gpg::of(&opts)
                        .decrypt(input)
                        .map_err(|message| RenderError::Gpg {
                            path: path.to_path_buf(),
                            message,
                        })?
                });
            }
        }
    }
    // A pipeline of only `jinja` yields text, which Salt treats as YAML-less
    // output: a string.
    Ok(data.unwrap_or_else(|| Value::Str(current.into_owned())))
}

/// The cores this process may use, asked once (the answer reads cgroup
/// files, and the master compiles for a whole fleet).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// Compiles running now in this process (counted by [`compiling`]).
static IN_FLIGHT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// One compile running, for as long as the guard lives. A process that
/// compiles for many minions at once (the master) counts its compiles so
/// that renders ahead stand down while another compile has the cores.
pub struct Compiling(());

/// Count one compile in flight until the guard is dropped.
pub fn compiling() -> Compiling {
    IN_FLIGHT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Compiling(())
}

impl Drop for Compiling {
    fn drop(&mut self) {
        IN_FLIGHT.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// `f` over `items` on `workers` scoped threads, each taking the next item
/// not yet taken: the files of one compile rendered ahead, on all cores.
/// Answers (with the item's index, in no particular order) for the items
/// `f` gave one for. Each thread lets go of its converted template context
/// when done.
///
/// Nothing is done ahead while another compile runs in the process (see
/// [`compiling`]): those already use every core, and each thread here
/// converts the minion's pillar for Jinja again. The caller renders what
/// it got no answer for in turn, as it does for any item `f` skipped.
pub fn on_threads<T: Sync, R: Send>(
    workers: usize,
    items: &[T],
    f: impl Fn(&T) -> Option<R> + Sync,
) -> Vec<(usize, R)> {
    if IN_FLIGHT.load(std::sync::atomic::Ordering::Relaxed) > 1 {
        return Vec::new();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    // What the helpers read is the compile's reading too.
    let recording = crate::inputs::current();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let (recording, next, f) = (recording.clone(), &next, &f);
                scope.spawn(move || {
                    crate::inputs::within(recording, || {
                        let mut out = Vec::new();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(item) = items.get(i) else { break };
                            if let Some(r) = f(item) {
                                out.push((i, r));
                            }
                        }
                        jinja::release_cached_context();
                        out
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// Read `path` and render it. A file whose answer cannot depend on the
/// context (no Jinja in it) is parsed once and kept while its text is
/// unchanged ([`static_files`]).
pub fn render_file(path: &Path, ctx: &TemplateContext) -> Result<Value, RenderError> {
    let text = crate::file_text::read_to_string(path).map_err(|source| RenderError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    // Templates never enter the table: they do not take its lock. Nor do
    // encrypted files: their plaintext depends on a keyring.
    if !static_files::context_free(&text) || uses_gpg(&text) {
        return render_text(path, &text, ctx);
    }
    if let Some(v) = static_files::get(path, &text) {
        return Ok(v);
    }
    let value = render_text(path, &text, ctx)?;
    static_files::put(path, text.to_string(), &value);
    Ok(value)
}

/// Does the file's shebang pipeline hold the gpg renderer?
fn uses_gpg(text: &str) -> bool {
    text.strip_prefix("#!")
        .and_then(|r| r.lines().next())
        .is_some_and(|l| {
            l.split('|')
                .any(|s| s.split_whitespace().next() == Some("gpg"))
        })
}

/// Parsed files whose data cannot depend on the minion, the environment
/// or the options: nothing in them for Jinja to evaluate (top files and
/// plain YAML often are). Shared by every compile of the process (the
/// master compiles for a fleet). An entry is used only while the file
/// still reads the same text, compared in full: an edit is seen at once,
/// however close in time (timestamps can be a tick coarse).
mod static_files {
    use brine_core::Value;
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};
    use std::sync::{Mutex, OnceLock};

    /// Text kept at most, all files together; past it the table starts
    /// over.
    const MAX_BYTES: usize = 32 << 20;
    /// Larger files are not kept.
    const MAX_TEXT: usize = 1 << 20;

    #[derive(Default)]
    struct Table {
        files: HashMap<PathBuf, (String, Value)>,
        bytes: usize,
    }

    fn table() -> std::sync::MutexGuard<'static, Table> {
        static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
        crate::file_text::process_table(&TABLE)
    }

    /// Nothing for Jinja to do: no `{{`, `{%` or `{#` (Salt's delimiters;
    /// brine has no line statements).
    pub(super) fn context_free(text: &str) -> bool {
        text.len() <= MAX_TEXT
            && !text.contains("{{")
            && !text.contains("{%")
            && !text.contains("{#")
    }

    pub(super) fn get(path: &Path, text: &str) -> Option<Value> {
        table()
            .files
            .get(path)
            .filter(|(t, _)| t == text)
            .map(|(_, v)| v.clone())
    }

    pub(super) fn put(path: &Path, text: String, value: &Value) {
        let mut t = table();
        if t.bytes.saturating_add(text.len()) > MAX_BYTES {
            *t = Table::default();
        }
        t.bytes = t.bytes.saturating_add(text.len());
        if let Some((old, _)) = t.files.insert(path.to_path_buf(), (text, value.clone())) {
            t.bytes = t.bytes.saturating_sub(old.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_ahead_stand_down_while_another_compile_runs() {
        let items = [1, 2, 3];
        let ahead = || {
            let mut got = on_threads(2, &items, |i| Some(i * 10));
            got.sort();
            got
        };
        let one = compiling();
        assert_eq!(ahead(), vec![(0, 10), (1, 20), (2, 30)]);
        let two = compiling();
        assert_eq!(ahead(), vec![]);
        drop(two);
        assert_eq!(ahead().len(), 3);
        drop(one);
    }

    #[test]
    fn shebang_selects_the_pipeline() {
        let p = Path::new("x.sls");
        let (st, body) = pipeline(p, "#!yaml\na: 1\n", "jinja|yaml").unwrap();
        assert_eq!(st, vec![Stage::Yaml]);
        assert_eq!(body, "\na: 1\n");
        let (st, _) = pipeline(p, "#!jinja|json\n{}", "jinja|yaml").unwrap();
        assert_eq!(st, vec![Stage::Jinja, Stage::Json]);
        let (st, body) = pipeline(p, "a: 1", "jinja|yaml").unwrap();
        assert_eq!(st, vec![Stage::Jinja, Stage::Yaml]);
        assert_eq!(body, "a: 1");
        assert!(matches!(
            pipeline(p, "#!py\n", "jinja|yaml"),
            Err(RenderError::UnknownRenderer { .. })
        ));
    }

    #[test]
    fn a_file_without_jinja_is_rendered_once_and_again_when_changed() {
        let td = tempfile::tempdir().unwrap();
        let plain = td.path().join("top.sls");
        let tpl = td.path().join("t.sls");
        std::fs::write(&plain, "base:\n  '*':\n    - a\n").unwrap();
        std::fs::write(&tpl, "a: {{ 1 + 1 }}\n").unwrap();
        let ctx = TemplateContext::default();
        let first = render_file(&plain, &ctx).unwrap();
        let text = std::fs::read_to_string(&plain).unwrap();
        assert_eq!(static_files::get(&plain, &text), Some(first.clone()));
        assert_eq!(render_file(&plain, &ctx).unwrap(), first);
        // Rewritten at once, same length (timestamps may not differ): seen.
        std::fs::write(&plain, "base:\n  '*':\n    - b\n").unwrap();
        let again = render_file(&plain, &ctx).unwrap();
        assert_eq!(again.to_json(), serde_json::json!({"base": {"*": ["b"]}}));
        // Templates are rendered every time.
        assert_eq!(
            render_file(&tpl, &ctx).unwrap().to_json(),
            serde_json::json!({"a": 2})
        );
        let text = std::fs::read_to_string(&tpl).unwrap();
        assert_eq!(static_files::get(&tpl, &text), None);
        assert!(render_file(&td.path().join("missing.sls"), &ctx).is_err());
    }

    #[test]
    fn json_pipeline_renders() {
        let v = render_text(
            Path::new("x.sls"),
            "#!json\n{\"a\": [1, true]}",
            &TemplateContext::default(),
        )
        .unwrap();
        assert_eq!(v.to_json(), serde_json::json!({"a": [1, true]}));
    }
}
