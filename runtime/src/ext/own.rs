//! Tools of a crate's own, written in Rust beside the API's ([`OwnTools`]): each is a name, an
//! argument type deriving `JsonSchema` (its schema is the tool's input schema, its doc comment the
//! tool's description, as with rmcp's `#[tool]`) and an async function.

use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{Context, Error, HandlerFuture};
use crate::config::{Annotations, Tool};

/// One tool's function, its arguments still JSON.
type OwnCall = Arc<dyn Fn(Context, Map<String, Value>) -> HandlerFuture<'static> + Send + Sync>;

/// The tools a crate adds in Rust. `A` is what each function is given: the crate's typed `Api`
/// (anything made from a [`Context`]).
pub struct OwnTools<A> {
    tools: Vec<(Tool, OwnCall)>,
    _api: std::marker::PhantomData<fn() -> A>,
}

impl<A> Default for OwnTools<A> {
    fn default() -> Self {
        OwnTools { tools: Vec::new(), _api: std::marker::PhantomData }
    }
}

impl<A: From<Context> + Send + 'static> OwnTools<A> {
    /// No tools.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the tool `name`, answered by `f`: its input schema is `T`'s JSON Schema and its
    /// description `T`'s doc comment. The engine refuses to start when `name` is taken.
    pub fn tool<T, F, Fut>(mut self, name: &str, f: F) -> Self
    where
        T: DeserializeOwned + JsonSchema,
        F: Fn(A, T) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, Error>> + Send + 'static,
    {
        let f = Arc::new(f);
        let call: OwnCall = Arc::new(move |cx, args| {
            let f = f.clone();
            Box::pin(async move {
                let args: T = serde_json::from_value(Value::Object(args))
                    .map_err(|e| Error::new(format!("invalid arguments: {e}")))?;
                f(A::from(cx), args).await
            })
        });
        self.tools.push((declare::<T>(name), call));
        self
    }

    /// The names of the tools.
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        self.tools.iter().map(|(t, _)| t.name.clone())
    }

    /// The tools' definitions, for the catalogue.
    pub fn declared(&self) -> Vec<Tool> {
        self.tools.iter().map(|(t, _)| t.clone()).collect()
    }

    /// The call of the tool `name`, if it is one of these.
    pub fn answer(&self, name: &str, args: Map<String, Value>, cx: Context) -> Option<HandlerFuture<'static>> {
        self.tools.iter().find(|(t, _)| t.name == name).map(|(_, call)| call(cx, args))
    }
}

/// A tool's definition from its argument type: the schema without `$schema` and `title` (the
/// type's Rust name), its description the tool's. MCP's defaults for the annotations: a Rust tool
/// may write and reach anything.
fn declare<T: JsonSchema>(name: &str) -> Tool {
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
    let mut input_schema = match schema.to_value() {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    input_schema.remove("$schema");
    input_schema.remove("title");
    let description = match input_schema.remove("description") {
        Some(Value::String(d)) => d,
        _ => String::new(),
    };
    input_schema.entry("type").or_insert_with(|| Value::String("object".into()));
    Tool {
        name: name.to_string(),
        title: None,
        operation_id: None,
        tags: Vec::new(),
        description,
        input_schema,
        output_schema: None,
        annotations: Annotations {
            title: None,
            read_only_hint: false,
            destructive_hint: true,
            idempotent_hint: false,
            open_world_hint: true,
        },
        http: None,
        scopes: Vec::new(),
        api: None,
        response: None,
        fixed_arguments: Map::new(),
        default_arguments: Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Says hello to someone.
    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct HelloArgs {
        /// Whom to greet.
        name: String,
    }

    struct Api;

    impl From<Context> for Api {
        fn from(_: Context) -> Api {
            Api
        }
    }

    #[test]
    fn a_tool_is_declared_from_its_argument_type() {
        let own = OwnTools::<Api>::new().tool("hello", |_api, args: HelloArgs| async move { Ok(json!(args.name)) });
        let tools = own.declared();
        assert_eq!(tools[0].name, "hello");
        assert_eq!(tools[0].description, "Says hello to someone.");
        assert_eq!(
            Value::Object(tools[0].input_schema.clone()),
            json!({"type": "object", "properties": {"name": {"type": "string", "description": "Whom to greet."}},
                   "required": ["name"]})
        );
        assert_eq!(own.names().collect::<Vec<_>>(), ["hello"]);
    }
}
