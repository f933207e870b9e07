//! Salt's `slsutil` module: what SLS templates use to combine data, and
//! a file or string run through the render pipeline.

use super::function::{sig, CallError, Ctx, Function};
use super::params::{opt_string, Params};
use brine_compile::minion_data::{ArgAt, Origin, Returned};
use brine_compile::pillar::merge::update;
use brine_compile::render;
use brine_core::Value;
use std::path::Path;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "merge",
        sig!(
            obj_a,
            obj_b,
            strategy = "smart",
            renderer = "yaml",
            merge_lists = false
        ),
        "A copy of the dict OBJ_A with OBJ_B merged in, the way the renderer RENDERER \
(default 'yaml') merges pillar with STRATEGY (default 'smart'; brine merges \
recursively: 'recurse', 'overwrite', or 'smart' with a YAML renderer). MERGE_LISTS \
extends lists instead of replacing them.\n\n    \
{% set web = salt['slsutil.merge'](defaults, salt['pillar.get']('web', {})) %}",
        merge,
    ),
    Function::reads(
        "renderer",
        sig!(
            path = null,
            string = null,
            default_renderer = "jinja|yaml",
            **kwargs
        ),
        "The file PATH (salt://, or an absolute local path) or the text STRING run \
through the render pipeline its shebang line names, else DEFAULT_RENDERER (default \
'jinja|yaml'); further keyword arguments are variables of the template.\n\n    \
brine '*' slsutil.renderer salt://defaults.yaml\n    \
brine '*' slsutil.renderer string='a: {{ 6 * 7 }}'",
        renderer,
    ),
];

fn renderer<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let path = p.take("path").filter(Value::is_truthy);
    let string = p.take("string").filter(Value::is_truthy);
    let default = opt_string(p.take("default_renderer")).unwrap_or_else(|| "jinja|yaml".into());
    let vars: Vec<(String, Value)> = p.take_kwargs().into_iter().collect();
    p.finish()?;
    let saltenv = vars
        .iter()
        .find(|(k, _)| k == "saltenv")
        .map(|(_, v)| v.to_python_str())
        .unwrap_or_else(|| "base".into());
    let (name, text) = match (path, string) {
        (None, None) => {
            return Err(CallError::InvalidArguments(
                "Must pass either path or string".into(),
            ))
        }
        (Some(_), Some(_)) => {
            return Err(CallError::InvalidArguments(
                "Must not pass both path and string".into(),
            ))
        }
        (None, Some(s)) => (":string:".to_string(), s.to_python_str()),
        (Some(path), None) => {
            let path = path.to_python_str();
            let local = if path.starts_with("salt://") {
                super::cp::cached(cx, &path, &saltenv)?
            } else if Path::new(&path).is_absolute() {
                Some(path.clone().into())
            } else {
                return Err(CallError::Failed(format!("Path '{path}' is not absolute")));
            };
            let Some(local) = local else {
                tracing::error!("Unable to fetch file {path} from saltenv {saltenv}.");
                tracing::error!("Template was specified incorrectly: False");
                return Ok(Returned::New(Value::new_map()));
            };
            let text = std::fs::read_to_string(&local)
                .map_err(|e| CallError::Failed(format!("{}: {e}", local.display())))?;
            (local.display().to_string(), text)
        }
    };
    let ctx = super::cp::template_context(cx, &saltenv, vars);
    render::render_text_with_default(Path::new(&name), &text, &ctx, &default)
        .map(Returned::New)
        .map_err(|e| CallError::Raised(format!("SaltRenderError: {e}")))
}

fn merge<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let (a, a_arg) = p.require_at("obj_a")?;
    let (b, b_arg) = p.require_at("obj_b")?;
    let strategy = opt_string(p.take("strategy")).unwrap_or_else(|| "smart".into());
    let renderer = opt_string(p.take("renderer")).unwrap_or_else(|| "yaml".into());
    let merge_lists = p.take("merge_lists").is_some_and(|v| v.is_truthy());
    p.finish()?;
    let recurse = match strategy.as_str() {
        "recurse" | "overwrite" => true,
        "smart" => renderer.split('|').next_back() == Some("yaml"),
        _ => false,
    };
    if !recurse {
        return Err(CallError::Failed(format!(
            "slsutil.merge: strategy '{strategy}' is not supported by brine"
        )));
    }
    let (Value::Map(mut dest), Value::Map(upd)) = (a, b) else {
        return Err(CallError::Failed(
            "Cannot update using non-dict types in dictupdate.update()".into(),
        ));
    };
    update(&mut dest, upd, merge_lists);
    Ok(Returned::Merged {
        value: Value::Map(dest),
        from: vec![
            Origin::Arg(ArgAt::new(a_arg)),
            Origin::Arg(ArgAt::new(b_arg)),
        ],
        into: None,
    })
}
