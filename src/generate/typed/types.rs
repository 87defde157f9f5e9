//! The argument types of `src/generated/args.rs`: a small JSON Schema to Rust generator ([`TypeGen`]).

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use super::unique;
use crate::names::{escape_keyword, pascal_identifier, snake_identifier};
use mcpgen_config::Tool;

/// A field identifier for a property name (the wire name is kept with `#[serde(rename)]`).
fn field_ident(property: &str) -> String {
    escape_keyword(snake_identifier(property, "field"))
}

/// Nested types deeper than this are `serde_json::Value`.
const MAX_DEPTH: usize = 8;

/// At most this many types per tool; past it, objects are maps.
const MAX_TYPES: usize = 100;

/// Type names that tools.rs and handlers.rs use otherwise (the prelude, their imports).
pub(super) const TAKEN_TYPES: [&str; 21] = [
    "Api",
    "BTreeMap",
    "Box",
    "CallToolResult",
    "Context",
    "Dispatch",
    "Error",
    "HandlerFuture",
    "Handlers",
    "Hooks",
    "Map",
    "Option",
    "OwnTools",
    "Request",
    "Result",
    "RustTools",
    "Self",
    "String",
    "Tool",
    "Value",
    "Vec",
];

type Object = serde_json::Map<String, Value>;

/// A Rust type for a schema, and whether `null` is one of the schema's values.
struct RustType {
    tokens: TokenStream,
    nullable: bool,
    /// `serde_json::Value`, which holds `null` itself.
    any: bool,
    /// A `$defs` type, boxed where a field holds it (not in a `Vec` or a map).
    boxed: bool,
}

impl RustType {
    fn value() -> RustType {
        RustType { tokens: quote!(serde_json::Value), nullable: true, any: true, boxed: false }
    }

    fn of(tokens: TokenStream, nullable: bool) -> RustType {
        RustType { tokens, nullable, any: false, boxed: false }
    }

    /// The type where it is used: `Option<T>` when the field may be absent, or `null` is a value
    /// that `T` cannot hold. The flag says whether it is an `Option`.
    fn used(&self, optional: bool) -> (TokenStream, bool) {
        let t = &self.tokens;
        let t = if self.boxed { quote!(Box<#t>) } else { t.clone() };
        if optional || (self.nullable && !self.any) { (quote!(Option<#t>), true) } else { (t, false) }
    }
}

/// The Rust types of one tool's argument schema: its struct, one struct per nested object and one
/// enum per string enum, named after the path to them (`PlaceOrderShippingAddress`), and one per
/// `$defs` entry (boxed where used: they may be recursive). What Rust cannot say plainly (`anyOf`,
/// mixed types, objects with typed extra properties) is `serde_json::Value`.
struct TypeGen<'a> {
    tool: &'a str,
    /// The start of the names of the tool's nested types (`PlaceOrder`).
    prefix: String,
    /// Type names taken in tools.rs.
    used: &'a mut BTreeSet<String>,
    defs: Option<&'a Object>,
    /// `$defs` entry -> its type's name (`None`: neither a struct nor an enum).
    def_types: BTreeMap<String, Option<String>>,
    items: Vec<TokenStream>,
}

impl TypeGen<'_> {
    /// The Rust type of a property schema; nested types are named `name`.
    fn rust_type(&mut self, schema: &Value, name: &str, path: &str, depth: usize) -> RustType {
        let Some(obj) = schema.as_object() else { return RustType::value() };
        if let Some(Value::String(r)) = obj.get("$ref") {
            let annotated_only = obj.keys().all(|k| matches!(k.as_str(), "$ref" | "description" | "title"));
            let def = r.strip_prefix("#/$defs/").filter(|_| annotated_only);
            return match def.and_then(|d| Some((self.def_type(d, depth)?, self.defs?.get(d)?))) {
                Some((ident, schema)) => RustType {
                    boxed: true,
                    ..RustType::of(
                        quote!(#ident),
                        schema.as_object().and_then(types_of).is_some_and(|t| t.contains(&"null")),
                    )
                },
                None => RustType::value(),
            };
        }
        // `anyOf: [X, {type: null}]` is an X that may be null.
        if let Some(Value::Array(branches)) = obj.get("anyOf").or_else(|| obj.get("oneOf"))
            && branches.len() == 2
            && let Some(null_at) = branches.iter().position(|b| b.get("type").and_then(Value::as_str) == Some("null"))
        {
            let mut t = self.rust_type(&branches[1 - null_at], name, path, depth);
            t.nullable = true;
            return t;
        }
        if !is_plain(obj) {
            return RustType::value();
        }
        let types = types_of(obj);
        let nullable = types.as_ref().is_some_and(|t| t.contains(&"null"));
        let non_null: Vec<&str> = types.unwrap_or_default().into_iter().filter(|t| *t != "null").collect();
        if let Some(values) = obj.get("enum").and_then(Value::as_array)
            && matches!(non_null.as_slice(), [] | ["string"])
            && let Some(ident) = self.string_enum(obj, values, name, path)
        {
            return RustType::of(quote!(#ident), nullable || values.contains(&Value::Null));
        }
        let object =
            matches!(non_null.as_slice(), ["object"]) || (non_null.is_empty() && obj.contains_key("properties"));
        if object
            && obj.get("properties").is_some_and(Value::is_object)
            && depth < MAX_DEPTH
            && self.items.len() < MAX_TYPES
        {
            let ident = self.structure(obj, name, path, depth);
            return RustType::of(quote!(#ident), nullable);
        }
        let tokens = match non_null.as_slice() {
            ["string"] => quote!(String),
            ["integer"] => quote!(i64),
            ["number"] => quote!(f64),
            ["boolean"] => quote!(bool),
            ["array"] if depth < MAX_DEPTH => {
                let item = match obj.get("items") {
                    Some(items) => self.rust_type(items, &format!("{name}Item"), &format!("{path}[]"), depth + 1),
                    None => RustType::value(),
                };
                // A Vec holds its items on the heap already.
                let (item, _) = RustType { boxed: false, ..item }.used(false);
                quote!(Vec<#item>)
            }
            ["object"] => match obj.get("additionalProperties") {
                Some(extra @ Value::Object(_)) if depth < MAX_DEPTH => {
                    let value = self.rust_type(extra, &format!("{name}Value"), &format!("{path}.*"), depth + 1);
                    let (value, _) = RustType { boxed: false, ..value }.used(false);
                    quote!(std::collections::BTreeMap<String, #value>)
                }
                _ => quote!(serde_json::Map<String, serde_json::Value>),
            },
            _ => return RustType::value(),
        };
        RustType::of(tokens, nullable)
    }

    /// A `pub struct` for an object schema, named `name` (made unique); its fields' types are
    /// named after it.
    fn structure(&mut self, obj: &Object, name: &str, path: &str, depth: usize) -> syn::Ident {
        let name = unique(self.used, name.to_string());
        let ident = format_ident!("{}", name);
        let children = if path.is_empty() { self.prefix.clone() } else { name.clone() };
        // Its place comes before its nested types'.
        let slot = self.items.len();
        self.items.push(TokenStream::new());
        let required: Vec<&str> =
            obj.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let mut field_names = BTreeSet::new();
        let mut fields = Vec::new();
        for (property, schema) in obj.get("properties").and_then(Value::as_object).into_iter().flatten() {
            let field = unique(&mut field_names, field_ident(property));
            let field_path = if path.is_empty() { property.clone() } else { format!("{path}.{property}") };
            let ty = self.rust_type(
                schema,
                &format!("{children}{}", pascal_identifier(&field, "tool")),
                &field_path,
                depth + 1,
            );
            let (ty, option) = ty.used(!required.contains(&property.as_str()));
            let field = format_ident!("{}", field);
            let rename = (field != property).then(|| quote!(rename = #property));
            let skip = option.then(|| quote!(skip_serializing_if = "Option::is_none"));
            let serde = (rename.is_some() || skip.is_some()).then(|| {
                let args = rename.into_iter().chain(skip);
                quote!(#[serde(#(#args),*)])
            });
            let docs = doc_lines(schema.as_object());
            fields.push(quote! {
                #docs
                #serde
                pub #field: #ty,
            });
        }
        let docs = self.type_docs(obj, path);
        self.items[slot] = quote! {
            #docs
            #[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
            pub struct #ident {
                #(#fields)*
            }
        };
        ident
    }

    /// A `pub enum` of the strings `values`, or `None` when they are not all strings (`null`
    /// aside) or give no distinct Rust names.
    fn string_enum(&mut self, obj: &Object, values: &[Value], name: &str, path: &str) -> Option<syn::Ident> {
        let strings: Vec<&str> = values.iter().filter(|v| !v.is_null()).map(Value::as_str).collect::<Option<_>>()?;
        if strings.is_empty() || self.items.len() >= MAX_TYPES {
            return None;
        }
        let mut names = BTreeSet::new();
        let mut variants = Vec::new();
        for value in strings {
            let variant = pascal_words(value);
            let variant = escape_keyword(variant);
            if !names.insert(variant.clone()) {
                return None;
            }
            let variant = format_ident!("{}", variant);
            let rename = (variant != value).then(|| quote!(#[serde(rename = #value)]));
            variants.push(quote! {
                #rename
                #variant,
            });
        }
        let ident = format_ident!("{}", unique(self.used, name.to_string()));
        let docs = self.type_docs(obj, path);
        self.items.push(quote! {
            #docs
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Deserialize, serde::Serialize)]
            pub enum #ident {
                #(#variants)*
            }
        });
        Some(ident)
    }

    /// The schema's description, or where the type is.
    fn type_docs(&self, obj: &Object, path: &str) -> TokenStream {
        let described = doc_lines(Some(obj));
        if !described.is_empty() {
            return described;
        }
        let doc = match path {
            "" => format!(" The arguments of `{}`.", self.tool),
            path => match path.strip_prefix("$defs/") {
                Some(def) => format!(" `{def}`, a definition in the arguments of `{}`.", self.tool),
                None => format!(" `{path}` in the arguments of `{}`.", self.tool),
            },
        };
        quote!(#[doc = #doc])
    }

    /// The struct or enum of a `$defs` entry of the tool's schema, made once (and named before
    /// its fields are, so that it may refer to itself); `None` for any other schema.
    fn def_type(&mut self, def: &str, depth: usize) -> Option<syn::Ident> {
        if let Some(known) = self.def_types.get(def) {
            return known.as_ref().map(|n| format_ident!("{}", n));
        }
        // Until made, a reference to it is a Value (a cycle through anything but a struct).
        self.def_types.insert(def.to_string(), None);
        let obj = self.defs?.get(def)?.as_object()?;
        let types = types_of(obj).unwrap_or_default();
        let non_null: Vec<&str> = types.into_iter().filter(|t| *t != "null").collect();
        let name = format!("{}{}", self.prefix, pascal_words(def));
        let path = format!("$defs/{def}");
        let ident = if is_plain(obj)
            && obj.get("properties").is_some_and(Value::is_object)
            && !obj.contains_key("enum")
            && matches!(non_null.as_slice(), [] | ["object"])
            && depth < MAX_DEPTH
            && self.items.len() < MAX_TYPES
        {
            let name = unique(self.used, name);
            self.def_types.insert(def.to_string(), Some(name.clone()));
            self.used.remove(&name);
            self.structure(obj, &name, &path, depth)
        } else {
            let values = obj.get("enum").and_then(Value::as_array)?;
            if !matches!(non_null.as_slice(), [] | ["string"]) {
                return None;
            }
            self.string_enum(obj, values, &name, &path)?
        };
        self.def_types.insert(def.to_string(), Some(ident.to_string()));
        Some(ident)
    }
}

/// `first-class` -> `FirstClass`; `Value...` when nothing (or a digit) leads.
fn pascal_words(text: &str) -> String {
    pascal_identifier(text, "value")
}

/// The `type` of a schema as a list, when it has one.
fn types_of(obj: &Object) -> Option<Vec<&str>> {
    match obj.get("type") {
        Some(Value::String(t)) => Some(vec![t.as_str()]),
        Some(Value::Array(ts)) => Some(ts.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

/// No combinators, and no typed extra properties beside declared ones: a plain Rust type says it.
fn is_plain(obj: &Object) -> bool {
    let typed_extra = obj.get("additionalProperties").is_some_and(Value::is_object) && obj.contains_key("properties");
    ["anyOf", "oneOf", "allOf", "not", "if", "patternProperties"].iter().all(|k| !obj.contains_key(*k)) && !typed_extra
}

/// A schema's `description` (or `title`) as doc attributes, one per line.
fn doc_lines(schema: Option<&Object>) -> TokenStream {
    let text = schema.and_then(|s| s.get("description").or_else(|| s.get("title"))).and_then(Value::as_str);
    let lines = text.into_iter().flat_map(str::lines).map(|l| format!(" {l}"));
    quote!(#(#[doc = #lines])*)
}

/// The argument struct of one tool and its nested types, or a `Value` alias when its schema is
/// not a plain object.
pub(super) fn args_items(tool: &Tool, args_type: &str, used: &mut BTreeSet<String>) -> TokenStream {
    let ty = format_ident!("{}", args_type);
    let schema = &tool.input_schema;
    let Some(obj) = Some(schema).filter(|o| plain_root(o)) else {
        let doc = format!(" The arguments of `{}`.", tool.name);
        return quote! {
            #[doc = #doc]
            pub type #ty = serde_json::Value;
        };
    };
    let mut types = TypeGen {
        tool: &tool.name,
        prefix: args_type.strip_suffix("Args").unwrap_or(args_type).to_string(),
        used,
        defs: obj.get("$defs").and_then(Value::as_object),
        def_types: BTreeMap::new(),
        items: Vec::new(),
    };
    // The root's name was made unique with the others (`typed::names`): it is taken again here.
    types.used.remove(args_type);
    types.structure(obj, args_type, "", 0);
    let items = types.items;
    quote!(#(#items)*)
}

/// A root schema with properties and no typed extra properties.
fn plain_root(obj: &Object) -> bool {
    is_plain(obj) && obj.get("properties").is_some_and(Value::is_object)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn field_idents() {
        assert_eq!(field_ident("type"), "type_");
        assert_eq!(field_ident("self"), "self_");
        assert_eq!(field_ident("userId"), "user_id");
        assert_eq!(field_ident("名前"), "field");
        assert_eq!(field_ident("1st"), "field_1st");
    }

    /// The types of one property schema: the field's type and the items made for it.
    fn types_of_property(schema: Value) -> (String, String) {
        let mut used = BTreeSet::new();
        let mut g = TypeGen {
            tool: "t",
            prefix: "T".into(),
            used: &mut used,
            defs: None,
            def_types: BTreeMap::new(),
            items: Vec::new(),
        };
        let (ty, _) = g.rust_type(&schema, "TX", "x", 1).used(false);
        let items = g.items;
        (ty.to_string().replace(' ', ""), quote!(#(#items)*).to_string())
    }

    #[test]
    fn types() {
        let t = |v: Value| types_of_property(v).0;
        assert_eq!(t(json!({"type": "string"})), "String");
        assert_eq!(t(json!({"type": ["integer", "null"]})), "Option<i64>");
        assert_eq!(t(json!({"anyOf": [{"type": "null"}, {"type": "boolean"}]})), "Option<bool>");
        assert_eq!(t(json!({"type": "array", "items": {"type": "number"}})), "Vec<f64>");
        assert_eq!(t(json!({"type": "object"})), "serde_json::Map<String,serde_json::Value>");
        let map = json!({"type": "object", "additionalProperties": {"type": "integer"}});
        assert_eq!(t(map), "std::collections::BTreeMap<String,i64>");
        assert_eq!(t(json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})), "serde_json::Value");
        assert_eq!(t(json!({"type": ["string", "integer"]})), "serde_json::Value");
        assert_eq!(t(json!({"enum": [1, 2], "type": "integer"})), "i64");
        assert_eq!(t(json!({})), "serde_json::Value");
    }

    #[test]
    fn enums_and_nested_objects() {
        let (ty, items) = types_of_property(json!({"type": "string", "enum": ["first-class", "2nd", "self"]}));
        assert_eq!(ty, "TX");
        let variants = r#"pub enum TX { # [serde (rename = "first-class")] FirstClass , # [serde (rename = "2nd")] Value2nd , # [serde (rename = "self")] Self_ , }"#;
        assert!(items.contains(variants), "{items}");
        let (ty, _) = types_of_property(json!({"enum": ["a", null]}));
        assert_eq!(ty, "Option<TX>");
        // Values that give one Rust name twice: a String.
        let (ty, items) = types_of_property(json!({"type": "string", "enum": ["a-b", "a_b"]}));
        assert_eq!((ty.as_str(), items.as_str()), ("String", ""));
        let nested = json!({
            "type": "object",
            "description": "Where it goes.",
            "required": ["address"],
            "properties": {
                "address": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
                "speed": {"enum": ["standard", "express"]},
                "parcels": {"type": "array", "items": {"type": "object", "properties": {"kg": {"type": "number"}}}}
            }
        });
        let (ty, items) = types_of_property(nested);
        assert_eq!(ty, "TX");
        for expected in [
            r#"# [doc = " Where it goes."] # [derive (Debug , Clone , PartialEq , serde :: Deserialize , serde :: Serialize)] pub struct TX { pub address : TXAddress , # [serde (skip_serializing_if = "Option::is_none")] pub parcels : Option < Vec < TXParcelsItem > > , # [serde (skip_serializing_if = "Option::is_none")] pub speed : Option < TXSpeed > , }"#,
            r#"# [doc = " `x.address` in the arguments of `t`."] # [derive (Debug , Clone , PartialEq , serde :: Deserialize , serde :: Serialize)] pub struct TXAddress { pub city : String , }"#,
            r#"pub struct TXParcelsItem { # [serde (skip_serializing_if = "Option::is_none")] pub kg : Option < f64 > , }"#,
            r#"pub enum TXSpeed { # [serde (rename = "standard")] Standard , # [serde (rename = "express")] Express , }"#,
        ] {
            assert!(items.contains(expected), "{expected}\nnot in\n{items}");
        }
    }
}
