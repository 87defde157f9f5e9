//! Typed documents mcpgen reads besides API descriptions: runtime configs, and (through
//! [`from_value_at`]) bindings files. A value that does not fit says where, as a JSON pointer,
//! and which tool it belongs to.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::diag::child;
use crate::error::{Error, Location, Result};
use mcpgen_config::{CONFIG_FORMAT_VERSION, READ_FORMAT_VERSIONS, RuntimeConfig};

/// A runtime config from its parsed document: every field typed (methods, object schemas, ...),
/// and the format version one this mcpgen reads. Its tools' schemas come back self-contained
/// (the definitions a config of format 2 shares put back in each), as the compiler's stages read
/// them; it is written in the current format again (`RuntimeConfig::into_stored`).
pub(crate) fn read_config(value: &Value, origin: &str) -> Result<RuntimeConfig> {
    let version = value.get("mcpgen_config");
    if !version.and_then(Value::as_u64).is_some_and(|v| READ_FORMAT_VERSIONS.iter().any(|r| u64::from(*r) == v)) {
        let found = version.map_or_else(|| "none".to_string(), Value::to_string);
        return Err(Error::Invalid {
            location: Location::at_pointer(origin, "#/mcpgen_config"),
            message: format!(
                "config format {found} is not supported by this mcpgen (it reads 1 and {CONFIG_FORMAT_VERSION}); \
                 regenerate it with `mcpgen config`"
            ),
        });
    }
    let mut config: RuntimeConfig = from_value_at(value, origin, "mcpgen runtime config")?;
    config.inline_definitions();
    check_unique_names(&config, origin)?;
    check_apis(&config, origin)?;
    Ok(config)
}

/// A tool's `api` names an entry of `apis` (a config of several APIs).
fn check_apis(config: &RuntimeConfig, origin: &str) -> Result<()> {
    for (i, tool) in config.tools.iter().enumerate() {
        if let Some(api) = tool.api.as_deref().filter(|a| !config.apis.iter().any(|x| x.name == *a)) {
            return Err(Error::Invalid {
                location: Location::at_pointer(origin, format!("#/tools/{i}/api")),
                message: format!("tool `{}`: the API `{api}` is not listed in `apis`", tool.name),
            });
        }
    }
    Ok(())
}

/// Tool names are how clients call tools: two tools of one name would make one unreachable.
fn check_unique_names(config: &RuntimeConfig, origin: &str) -> Result<()> {
    let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, tool) in config.tools.iter().enumerate() {
        if let Some(earlier) = first.insert(&tool.name, i) {
            return Err(Error::Invalid {
                location: Location::at_pointer(origin, format!("#/tools/{i}/name")),
                message: format!(
                    "tool `{}`: the name is already used at #/tools/{earlier}; tool names must be unique",
                    tool.name
                ),
            });
        }
    }
    Ok(())
}

/// `value` as a `T`; a mismatch is an [`Error::Invalid`] at the JSON pointer of the bad value,
/// naming the tool when it is inside one (`#/tools/3/...`).
pub(crate) fn from_value_at<T: DeserializeOwned>(value: &Value, origin: &str, what: &str) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let pointer = pointer_of(e.path());
        let tool = tool_name(value, &pointer).map(|n| format!("tool `{n}`: ")).unwrap_or_default();
        Error::Invalid {
            location: Location::at_pointer(origin, &pointer),
            message: format!("{tool}not a valid {what}: {}", e.inner()),
        }
    })
}

/// A serde path (`tools[3].http.method`) as a JSON pointer (`#/tools/3/http/method`).
fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    path.iter().fold("#".to_string(), |at, segment| match segment {
        Segment::Seq { index } => child(&at, index.to_string()),
        Segment::Map { key } | Segment::Enum { variant: key } => child(&at, key),
        Segment::Unknown => at,
    })
}

/// The name of the tool a pointer is inside, when it is inside `#/tools/N`.
fn tool_name<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    let rest = pointer.strip_prefix("#/tools/")?;
    let index = rest.split('/').next()?;
    value.pointer(&format!("/tools/{index}/name"))?.as_str()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn config(tool: Value) -> Value {
        json!({
            "mcpgen_config": CONFIG_FORMAT_VERSION,
            "server": {"name": "t", "version": "1"},
            "upstream": {"base_url": "http://127.0.0.1:1"},
            "tools": [
                {"name": "ok", "input_schema": {"type": "object"}, "annotations": {"readOnlyHint": true,
                  "destructiveHint": false, "idempotentHint": true, "openWorldHint": true}},
                tool
            ]
        })
    }

    fn tool(method: &str, schema: Value) -> Value {
        json!({
            "name": "list_pets", "input_schema": schema,
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true},
            "http": {"method": method, "path": "/pets"}
        })
    }

    #[test]
    fn a_good_config_loads() {
        let c = read_config(&config(tool("GET", json!({"type": "object"}))), "c.json").unwrap();
        assert_eq!(c.tools[1].http.as_ref().unwrap().method, crate::ir::Method::Get);
    }

    #[test]
    fn a_bad_method_names_the_tool_and_pointer() {
        let e = read_config(&config(tool("FETCH", json!({"type": "object"}))), "c.json").unwrap_err().to_string();
        assert!(e.starts_with("c.json at #/tools/1/http/method: tool `list_pets`: not a valid mcpgen runtime config: unknown variant `FETCH`"), "{e}");
    }

    #[test]
    fn a_lower_case_method_is_refused() {
        let e = read_config(&config(tool("get", json!({"type": "object"}))), "c.json").unwrap_err().to_string();
        assert!(e.contains("#/tools/1/http/method: tool `list_pets`"), "{e}");
    }

    #[test]
    fn a_non_object_input_schema_names_the_tool_and_pointer() {
        let e = read_config(&config(tool("GET", json!(true))), "c.json").unwrap_err().to_string();
        assert!(e.starts_with("c.json at #/tools/1/input_schema: tool `list_pets`: not a valid mcpgen runtime config: invalid type: boolean `true`, expected a map"), "{e}");
    }

    #[test]
    fn a_non_object_output_schema_is_refused() {
        let mut t = tool("GET", json!({"type": "object"}));
        t["output_schema"] = json!("string");
        let e = read_config(&config(t), "c.json").unwrap_err().to_string();
        assert!(e.contains("#/tools/1/output_schema: tool `list_pets`"), "{e}");
    }

    #[test]
    fn a_duplicate_tool_name_is_refused() {
        let mut c = config(tool("GET", json!({"type": "object"})));
        c["tools"][1]["name"] = json!("ok");
        let e = read_config(&c, "c.json").unwrap_err().to_string();
        assert!(e.contains("#/tools/1/name: tool `ok`: the name is already used at #/tools/0"), "{e}");
    }

    #[test]
    fn a_tool_of_an_unlisted_api_is_refused() {
        let mut t = tool("GET", json!({"type": "object"}));
        t["api"] = json!("stripe");
        let mut c = config(t);
        c["apis"] = json!([{"name": "github", "upstream": {"base_url": "https://api.github.com"}}]);
        let e = read_config(&c, "c.json").unwrap_err().to_string();
        assert!(e.contains("#/tools/1/api: tool `list_pets`: the API `stripe` is not listed in `apis`"), "{e}");
        c["tools"][1]["api"] = json!("github");
        assert_eq!(read_config(&c, "c.json").unwrap().apis[0].name, "github");
    }

    #[test]
    fn limits_may_give_one_key() {
        let mut c = config(tool("GET", json!({"type": "object"})));
        c["limits"] = json!({"timeout_secs": 5.0});
        let c = read_config(&c, "c.json").unwrap();
        assert_eq!((c.limits.timeout_secs, c.limits.max_response_bytes), (5.0, 1024 * 1024));
    }

    #[test]
    fn another_format_version_says_to_regenerate() {
        let mut c = config(tool("GET", json!({"type": "object"})));
        c["mcpgen_config"] = json!(99);
        let e = read_config(&c, "c.json").unwrap_err().to_string();
        assert!(e.contains("#/mcpgen_config: config format 99 is not supported"), "{e}");
    }

    #[test]
    fn formats_1_and_2_load_with_self_contained_schemas() {
        let node = json!({"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}});
        let whole = json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/Node"}}, "$defs": {"Node": node}});
        let mut v1 = config(tool("GET", whole.clone()));
        v1["mcpgen_config"] = json!(1);
        let mut v2 = config(tool("GET", json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/Node"}}})));
        v2["definitions"] = json!({"Node": node});
        for c in [v1, v2] {
            let loaded = read_config(&c, "c.json").unwrap();
            assert!(loaded.definitions.is_empty());
            assert_eq!(Value::Object(loaded.tools[1].input_schema.clone()), whole);
        }
    }

    #[test]
    fn errors_outside_tools_have_a_pointer_and_no_tool() {
        let mut c = config(tool("GET", json!({"type": "object"})));
        c["upstream"]["base_url"] = json!(5);
        let e = read_config(&c, "c.json").unwrap_err().to_string();
        assert!(e.starts_with("c.json at #/upstream/base_url: not a valid"), "{e}");
    }
}
