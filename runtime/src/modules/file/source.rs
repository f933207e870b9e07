//! `source_list` and `get_source_sum`: the file state's source handling
//! (`state::modules::file::managed`), called on its own.

use super::path_str;
use crate::modules::function::{CallError, Ctx};
use crate::modules::params::Params;
use brine_compile::minion_data::Returned;
use brine_core::{Map, Value};
use brine_states::fileclient::{FileClient, LocalFileClient};
use brine_states::modules::file::managed::first_source;
use brine_states::modules::file::remote::Fetcher;
use brine_states::modules::file::source_hash;
use std::sync::Arc;

/// The running minion's file client (the master's file server under the
/// daemon), or `file_roots` for a template.
pub(super) fn client(c: &Ctx) -> Arc<dyn FileClient> {
    match c.running() {
        Some(m) => m.file_client(),
        None => Arc::new(LocalFileClient::from_opts(c.opts)),
    }
}

pub(super) fn source_list<'c>(c: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let source = p.require("source")?;
    let source_hash = p.require("source_hash")?;
    let saltenv = p.require("saltenv")?.to_python_str();
    p.finish()?;
    let client = client(c);
    let fetcher = Fetcher {
        opts: c.opts,
        client: client.as_ref(),
        saltenv: &saltenv,
        verify_ssl: true,
    };
    let (url, hash) = match source {
        Value::List(items) => first_source(&fetcher, &items, &source_hash)
            .map(|(u, h)| (Value::Str(u), h))
            .map_err(CallError::Failed)?,
        other => (other, source_hash),
    };
    Ok(Returned::New(Value::List(vec![url, hash])))
}

pub(super) fn get_source_sum<'c>(c: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let text = |v: Option<Value>| v.filter(Value::is_truthy).map(|v| v.to_python_str());
    let file_name = text(p.take("file_name")).unwrap_or_default();
    let source = text(p.take("source")).unwrap_or_default();
    let source_hash = p.take("source_hash").unwrap_or(Value::Null);
    let source_hash_name = text(p.take("source_hash_name"));
    let saltenv = text(p.take("saltenv")).unwrap_or_else(|| "base".into());
    let verify_ssl = p.take("verify_ssl").is_none_or(|v| v.is_truthy());
    // Signatures of hash files are not checked by brine.
    for unused in [
        "source_hash_sig",
        "signed_by_any",
        "signed_by_all",
        "keyring",
        "gnupghome",
    ] {
        p.take(unused);
    }
    p.finish()?;
    let source_hash = path_str("isabs", source_hash)?;
    let client = client(c);
    let fetcher = Fetcher {
        opts: c.opts,
        client: client.as_ref(),
        saltenv: &saltenv,
        verify_ssl,
    };
    let sum = source_hash::get_source_sum(
        &fetcher,
        &file_name,
        &source,
        &source_hash,
        source_hash_name.as_deref(),
    )
    .map_err(|e| CallError::Failed(e.to_string()))?;
    let mut m = Map::default();
    m.insert("hash_type".into(), Value::Str(sum.hash_type));
    m.insert("hsum".into(), sum.hsum.map_or(Value::Null, Value::Str));
    Ok(Returned::New(Value::Map(m)))
}
