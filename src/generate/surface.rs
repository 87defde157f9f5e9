//! The public surfaces a generated crate's code and mcpgen's own commands rely on, pinned in
//! goldens: `runtime::ext` (tests/golden/ext-surface.txt) and the whole runtime crate
//! (tests/golden/runtime-surface.txt). Changing either means changing its golden on purpose.

use super::runtime_crate;

/// What a generated crate's own code may use (`runtime::ext`, and the fields of the request
/// types it re-exports) is pinned: changing it means changing this golden file on purpose.
#[test]
fn ext_surface_is_pinned() {
    let source = |name: &str| runtime_crate::sources().iter().find(|(n, _)| *n == name).map(|(_, s)| *s).unwrap();
    let mut surface = String::from("// runtime::ext, what a generated crate's own code may use\n\n");
    surface.push_str(&self::surface(source("src/ext.rs"), &[]));
    for (file, types) in
        [("src/ext/hooks.rs", &[][..]), ("src/ext/context.rs", &["Context"][..]), ("src/ext/own.rs", &["OwnTools"][..])]
    {
        surface.push_str(&format!(
            "\n// runtime::{}\n\n",
            file.trim_start_matches("src/").trim_end_matches(".rs").replace('/', "::")
        ));
        surface.push_str(&self::surface(source(file), types));
    }
    surface.push_str("\n// runtime::upstream::request, the types ext re-exports (fields only)\n\n");
    surface.push_str(&self::surface(source("src/upstream/request.rs"), &["PreparedRequest", "PreparedBody", "Part"]));
    expectorate::assert_contents("tests/golden/ext-surface.txt", &surface);
}

/// The whole public surface of the runtime crate, pinned: its root, errors, flags and entry
/// point, `tooling`, and the engine's public types with their methods (`ext` is pinned above).
/// Changing it means changing `tests/golden/runtime-surface.txt` on purpose.
#[test]
fn runtime_surface_is_pinned() {
    let source = |name: &str| runtime_crate::sources().iter().find(|(n, _)| *n == name).map(|(_, s)| *s).unwrap();
    let mut surface = String::from("// The public surface of mcpgen-runtime (ext: ext-surface.txt)\n");
    for file in ["src/lib.rs", "src/error.rs", "src/cli/mod.rs", "src/cli/args.rs", "src/tooling.rs"] {
        surface.push_str(&format!("\n// {file}\n\n"));
        surface.push_str(&self::surface(source(file), &[]));
    }
    let types = [
        ("src/engine/mod.rs", "Engine"),
        ("src/engine/options.rs", "EngineOptions"),
        ("src/engine/tool.rs", "ToolEntry"),
        ("src/engine/stored.rs", "StoredSchema"),
    ];
    for (file, name) in types {
        surface.push_str(&format!("\n// {file}: {name}\n\n"));
        surface.push_str(&self::surface(source(file), &[name]));
    }
    expectorate::assert_contents("tests/golden/runtime-surface.txt", &surface);
}

/// Whether `i` is an inherent impl of one of `types`.
fn impl_of(i: &syn::ItemImpl, types: &[&str]) -> bool {
    let syn::Type::Path(p) = &*i.self_ty else { return false };
    i.trait_.is_none() && p.path.segments.last().is_some_and(|s| types.contains(&s.ident.to_string().as_str()))
}

/// The public items of a module without bodies or docs (`only`: these types' definitions and
/// inherent methods).
fn surface(source: &str, only: &[&str]) -> String {
    use syn::Visibility::Public;
    let mut file: syn::File = syn::parse_str(source).unwrap();
    let no_docs = |attrs: &mut Vec<syn::Attribute>| attrs.retain(|a| !a.path().is_ident("doc"));
    let empty_block = || syn::parse_quote!({});
    let mut items = Vec::new();
    for item in std::mem::take(&mut file.items) {
        let kept = match item {
            syn::Item::Use(mut u) if matches!(u.vis, Public(_)) && only.is_empty() => {
                no_docs(&mut u.attrs);
                syn::Item::Use(u)
            }
            syn::Item::Struct(mut s)
                if matches!(s.vis, Public(_)) && (only.is_empty() || only.contains(&s.ident.to_string().as_str())) =>
            {
                no_docs(&mut s.attrs);
                let fields = s.fields.iter_mut().filter(|f| matches!(f.vis, Public(_)));
                fields.for_each(|f| no_docs(&mut f.attrs));
                if let syn::Fields::Named(named) = &mut s.fields {
                    let all = std::mem::take(&mut named.named);
                    named.named = all.into_iter().filter(|f| matches!(f.vis, Public(_))).collect();
                }
                syn::Item::Struct(s)
            }
            syn::Item::Enum(mut e)
                if matches!(e.vis, Public(_)) && (only.is_empty() || only.contains(&e.ident.to_string().as_str())) =>
            {
                no_docs(&mut e.attrs);
                for v in &mut e.variants {
                    no_docs(&mut v.attrs);
                    v.fields.iter_mut().for_each(|f| no_docs(&mut f.attrs));
                }
                syn::Item::Enum(e)
            }
            syn::Item::Trait(mut t) if matches!(t.vis, Public(_)) && only.is_empty() => {
                no_docs(&mut t.attrs);
                for i in &mut t.items {
                    if let syn::TraitItem::Fn(f) = i {
                        // A provided method keeps an (empty) body: users may leave it out.
                        no_docs(&mut f.attrs);
                        if f.default.is_some() {
                            f.default = Some(empty_block());
                        }
                    }
                }
                syn::Item::Trait(t)
            }
            syn::Item::Fn(mut f) if matches!(f.vis, Public(_)) && only.is_empty() => {
                no_docs(&mut f.attrs);
                *f.block = empty_block();
                syn::Item::Fn(f)
            }
            syn::Item::Const(mut c) if matches!(c.vis, Public(_)) && only.is_empty() => {
                no_docs(&mut c.attrs);
                syn::Item::Const(c)
            }
            syn::Item::Type(mut t) if matches!(t.vis, Public(_)) && only.is_empty() => {
                no_docs(&mut t.attrs);
                syn::Item::Type(t)
            }
            syn::Item::Mod(mut m) if matches!(m.vis, Public(_)) && only.is_empty() => {
                no_docs(&mut m.attrs);
                if let Some((_, inner)) = &mut m.content {
                    let mut inner_file: syn::File = syn::parse_quote!();
                    inner_file.items = std::mem::take(inner);
                    let kept: syn::File = syn::parse_str(&surface(&prettyplease::unparse(&inner_file), &[])).unwrap();
                    *inner = kept.items;
                }
                syn::Item::Mod(m)
            }
            syn::Item::Impl(mut i) if only.is_empty() || impl_of(&i, only) => {
                no_docs(&mut i.attrs);
                i.items.retain(|m| matches!(m, syn::ImplItem::Fn(f) if matches!(f.vis, Public(_))));
                for m in &mut i.items {
                    if let syn::ImplItem::Fn(f) = m {
                        no_docs(&mut f.attrs);
                        f.block = empty_block();
                    }
                }
                syn::Item::Impl(i)
            }
            _ => continue,
        };
        items.push(kept);
    }
    file.attrs.clear();
    file.items = items;
    prettyplease::unparse(&file)
}
