//! Stage 2, normalize: a loaded [`Document`] to the [`ApiIr`].

mod bind;
mod functions;
mod openapi;
pub(crate) mod schema;
mod swagger2;

use crate::diag::{DiagKind, Diagnostic};
use crate::error::{Error, Result};
use crate::ir::{ApiInfo, ApiIr, Dialect};
use crate::load::Document;

pub(crate) use bind::missing_binding;
pub use bind::{Bindings, Forward, ForwardMode, Routing, bind};
pub(crate) use schema::DEFS_PREFIX;

/// Where Swagger 2.0's upgrade keeps a parameter's index in the list that declared it (body and
/// form parameters leave the list, so the upgraded list's indices differ): the walker reads it
/// for [`crate::ir::Parameter::pointer`].
const DECLARED_INDEX: &str = "x-mcpgen-declared-index";

/// Normalises a loaded document. Problems confined to one operation become diagnostics; the
/// document fails as a whole only when nothing usable is left. `lenient`: bad entries of a
/// function list are skipped with a warning instead of failing the list.
pub fn normalize(mut doc: Document, lenient: bool) -> Result<ApiIr> {
    let mut diagnostics = std::mem::take(&mut doc.warnings);
    if !doc.dialect.is_openapi() {
        let (functions, schemas, diags) = functions::functions(&doc, lenient)?;
        if functions.is_empty() {
            let skipped = diags.into_iter().filter(|d| d.kind == DiagKind::OperationSkipped).collect();
            let reason = "no function could be converted".to_string();
            return Err(Error::NoTools { origin: doc.origin().to_string(), reason, diagnostics: skipped });
        }
        diagnostics.extend(diags);
        let title = doc.origin().rsplit('/').next().unwrap_or("tools").split('.').next().unwrap_or("tools").to_string();
        return Ok(ApiIr {
            dialect: doc.dialect,
            info: ApiInfo { title, version: "0.0.0".into(), description: None, tags: Default::default() },
            servers: Vec::new(),
            security_schemes: Default::default(),
            security: Vec::new(),
            operations: Vec::new(),
            functions,
            schemas,
            credentials: Default::default(),
            headers: Default::default(),
            bindings_file: None,
            diagnostics,
        });
    }
    if doc.dialect == Dialect::Swagger2 {
        let upgraded = swagger2::upgrade(doc.root(), &mut diagnostics);
        doc.docs.replace_root(upgraded);
    }
    let base_url = doc.root_url().cloned();
    let origin = doc.origin().to_string();
    let docs = &doc.docs;
    let mut walker =
        openapi::Walker { docs, schemas: schema::SchemaConverter::new(docs), diagnostics: Vec::new(), base_url };
    let root = docs.root_value();
    let info = walker.info();
    let servers = walker.servers(root.get("servers"), "#/servers");
    let security_schemes = walker.security_schemes();
    let security = walker.security(root.get("security"), "#/security").unwrap_or_default();
    let operations = walker.operations();
    let (schemas, schema_diags) = walker.schemas.finish();
    diagnostics.extend(walker.diagnostics);
    diagnostics.extend(schema_diags);
    check_duplicate_ids(&operations, &mut diagnostics);
    let has_paths = root.get("paths").and_then(|p| p.as_object()).is_some_and(|p| !p.is_empty());
    let dialect = doc.dialect;
    // The source documents are no longer needed.
    crate::mem::free_now(doc);
    if operations.is_empty() {
        let reason = if has_paths {
            "no operation could be converted".to_string()
        } else {
            "the document has no operations under #/paths".to_string()
        };
        let skipped = diagnostics.into_iter().filter(|d| d.kind == DiagKind::OperationSkipped).collect();
        return Err(Error::NoTools { origin, reason, diagnostics: skipped });
    }
    Ok(ApiIr {
        dialect,
        info,
        servers,
        security_schemes,
        security,
        operations,
        functions: Vec::new(),
        schemas,
        credentials: Default::default(),
        headers: Default::default(),
        bindings_file: None,
        diagnostics,
    })
}

fn check_duplicate_ids(ops: &[crate::ir::Operation], diags: &mut Vec<Diagnostic>) {
    let mut first: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for op in ops {
        if let Some(id) = &op.operation_id
            && let Some(prev) = first.insert(id, &op.pointer)
        {
            diags.push(Diagnostic::new(
                DiagKind::DuplicateOperationId,
                &op.pointer,
                format!("operationId `{id}` is already used at {prev}; the tool name is made unique"),
            ));
        }
    }
}
