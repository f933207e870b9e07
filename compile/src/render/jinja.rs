//! Jinja through minijinja, with Salt's template context: `grains`, `pillar`,
//! `opts`, `saltenv`, `sls`, `slspath`, `tpldir`, ..., and `salt` as a
//! mapping of callables (`salt['pillar.get']`, `salt.grains.get`, ...):
//! the execution functions the caller handed in with the minion
//! ([`MinionData::functions`]).
//!
//! What Salt 3007's jinja renderer does and this mirrors:
//! - `StrictUndefined` (unless `allow_undefined` is set in opts): printing,
//!   testing or iterating an undefined name is an error.
//! - `{{ x }}` prints Python's `str(x)`: `True`, `None`, `['a', 1]`,
//!   `{'k': 'v'}`; elsewhere (`|string`, `'%s' % x`, `~`) YAML-loaded
//!   pillar dicts print as `OrderedDict([('k', 'v')])`, and `|yaml` keeps
//!   their order while sorting plain dicts.
//! - Newlines are read as `\n`; Jinja drops the last one and Salt adds it
//!   back.
//! - Lists and dicts bound with `{% set %}` take `.append()`, `.update()`...
//!   (minijinja values are immutable, so `set` binds a mutable copy; Salt
//!   would share the object, e.g. a pillar subtree, with its source).
//! - Extensions `do` and `loopcontrols`, Salt's filters and tests, the
//!   `import_yaml`/`import_json`/`import_text` and `load_yaml`/`load_json`/
//!   `load_text` tags.
//! - `{% import %}`/`{% include %}` names resolve against the environment's
//!   roots; `./x` and `../x` against the importing template's directory.
//!
//! Performance: the environment with all filters is built once; a minion's
//! grains/pillar/opts are converted to template values once per thread and
//! reused while the same `Arc<MinionData>` is rendered; a process that
//! renders the same files again and again (the master, for every minion)
//! keeps them compiled ([`keep_compiled_templates`], `jinja/kept.rs`).

mod budget;
#[cfg(any(test, feature = "salt-cases"))]
pub mod cases;
mod convert;
mod environment;
mod filters;
mod kept;
mod mutable;
mod preprocess;
mod pyargs;
mod pyjson;
mod pystr;
mod salt_functions;
mod yaml_repr;
use environment::{build_context, environment_with, jinja_error, rewrite, Settings, SlsVars};
pub use environment::{release_cached_context, JinjaError, TemplateContext, TemplateFetch};
pub use kept::keep_compiled_templates;

/// Render `source` (named `name` in errors) with Salt's context.
pub fn render(name: &str, source: &str, ctx: &TemplateContext) -> Result<String, JinjaError> {
    render_with(name, source, ctx, kept::enabled())
}

/// [`render`], through a kept compiled template when `keep`.
fn render_with(
    name: &str,
    source: &str,
    ctx: &TemplateContext,
    keep: bool,
) -> Result<String, JinjaError> {
    let vars = SlsVars::new(ctx);
    let settings = Settings::of(ctx, &vars);
    let context = build_context(ctx, &vars);
    // Kept for the words of an undefined error (what the lookup lacked).
    let looked_up = context.clone();
    // A fetching loader belongs to one client: not kept across renders.
    let keep = keep && ctx.fetch.is_none();
    let mut out = budget::BudgetWriter::new(&ctx.minion.opts);
    let rendered = if keep {
        let env = kept::environment(name, source, ctx, &vars, settings)?;
        env.get_template(name)
            .and_then(|t| t.render_captured_to(context, &mut out).map(|_| ()))
    } else {
        let source_ext = rewrite(name, source)?;
        let env = environment_with(
            settings,
            ctx.search_paths.clone(),
            ctx.fetch.clone(),
            name,
            vars.tpldir(),
            None,
        );
        env.template_from_named_str(name, &source_ext)
            .and_then(|t| t.render_captured_to(context, &mut out).map(|_| ()))
    };
    if let Err(e) = rendered {
        return Err(match (&out.over, e.kind()) {
            (Some(over), _) => JinjaError {
                message: format!("Rendering {name} went past {}", over.describe()),
                line: e.line(),
            },
            (None, minijinja::ErrorKind::OutOfFuel) => JinjaError {
                message: format!(
                    "Rendering {name} went past render_max_instructions ({})",
                    budget::instructions(&ctx.minion.opts).unwrap_or_default()
                ),
                line: e.line(),
            },
            _ => jinja_error(name, &e, Some(&looked_up)),
        });
    }
    // minijinja writes whole `str`s: the bytes are UTF-8.
    let mut output = String::from_utf8(out.out).map_err(|e| JinjaError {
        message: format!("Rendering {name}: {e}"),
        line: None,
    })?;
    // Jinja drops the final newline of the template; Salt puts it back.
    if source.ends_with('\n') {
        output.push('\n');
    }
    Ok(output)
}

#[cfg(test)]
mod tests;
