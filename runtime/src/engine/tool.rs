//! One tool as the engine holds it ([`ToolEntry`]): its definition, what calls are checked
//! against, and how it is shown (compact schemas are discovery's, `compact.rs`).

use std::borrow::Cow;
use std::sync::{Arc, LazyLock, OnceLock};

use rmcp::model::{Tool as McpTool, ToolAnnotations};
use serde_json::{Map, Value};

use super::compact;
use super::stored::{SchemaTexts, StoredSchema};
use crate::config::{Definitions, HttpBinding, Tool, assemble};
use crate::engine::results::ToolResults;

/// One tool as the engine holds it: what clients are shown, and what calls are checked against.
/// Its schemas are held once, in their stored form (compact JSON text, [`StoredSchema`]): the
/// definitions they share with other tools are the catalogue's ([`Definitions`], one `Arc` for
/// every tool), put back when a schema is shown ([`ToolEntry::advertised`]) or first checked
/// against ([`ToolEntry::full_input_schema`]).
pub struct ToolEntry {
    /// The name, title, description and annotations; its schemas are empty (what is listed is
    /// [`ToolEntry::advertised`]).
    pub mcp: McpTool,
    /// The stored input schema (see [`ToolEntry::full_input_schema`]).
    pub input_schema: StoredSchema,
    /// The stored output schema; `None`: none.
    pub output_schema: Option<StoredSchema>,
    /// The definitions the catalogue's schemas share.
    pub definitions: Arc<Definitions>,
    /// How a call is sent; `None`: the tool is answered by a handler ([`crate::ext::Extensions`]).
    pub http: Option<HttpBinding>,
    /// The tool's operationId when it differs from its name (search finds the tool by it too).
    pub operation_id: Option<String>,
    /// The operation's tags (search, and the areas of discovery's map).
    pub tags: Vec<String>,
    /// The OAuth scopes a caller needs for this tool (see [`crate::config::Tool::scopes`]).
    pub scopes: Vec<Vec<String>>,
    /// The API it belongs to, by index in [`crate::config::RuntimeConfig::apis`]; `None`: the only one.
    pub api: Option<usize>,
    /// Its projection argument, pagination, budget and response shape.
    pub results: ToolResults,
    /// What its response looks like, as the config says (code mode's declarations read it).
    pub response: Option<crate::config::ResponseInfo>,
    /// Arguments the owner fixed and values for those the model leaves out (see
    /// [`crate::config::Tool::fixed_arguments`]), put in after the model's are checked.
    pub(crate) owners: OwnersArguments,
    /// A model's call is answered by Rust code (the crate's `RustTools`), not by `http`.
    pub(crate) rust: bool,
    /// The full input schema, assembled when the tool is first called.
    pub(super) full_input: OnceLock<Map<String, Value>>,
    pub(super) input_validator: OnceLock<Option<jsonschema::Validator>>,
    pub(super) output_validator: OnceLock<Option<jsonschema::Validator>>,
}

/// The values a tool's owner gives its arguments: `fixed` ones the model never sees, `defaults`
/// for those it leaves out.
#[derive(Debug, Clone, Default)]
pub(crate) struct OwnersArguments {
    pub(crate) fixed: Map<String, Value>,
    pub(crate) defaults: Map<String, Value>,
}

impl OwnersArguments {
    /// `args` with the defaults where absent.
    pub(crate) fn apply_defaults(&self, args: &mut Map<String, Value>) {
        for (name, value) in &self.defaults {
            args.entry(name.clone()).or_insert_with(|| value.clone());
        }
    }

    /// `args` (the model's, already checked) with the defaults where absent and the fixed values.
    pub(crate) fn apply(&self, args: &mut Map<String, Value>) {
        self.apply_defaults(args);
        for (name, value) in &self.fixed {
            args.insert(name.clone(), value.clone());
        }
    }
}

impl ToolEntry {
    /// Whether a call's arguments go on as they are, undeclared ones too: a tool answered by its
    /// handler, or forwarded whole (`--forward-url`). Every other binding places the declared
    /// arguments and would drop the rest.
    pub(crate) fn passes_unknown_arguments(&self) -> bool {
        use crate::config::BodyContent;
        match &self.http {
            None => true,
            Some(http) => http
                .body
                .as_ref()
                .is_some_and(|b| matches!(b.content, BodyContent::Arguments | BodyContent::Call { .. })),
        }
    }

    /// A catalogue tool of self-contained schemas.
    pub fn new(t: Tool) -> ToolEntry {
        ToolEntry::in_catalogue(t, &Arc::default())
    }

    /// A catalogue tool whose schemas share `definitions` (the config's, see
    /// [`crate::config::RuntimeConfig::definitions`]).
    pub fn in_catalogue(t: Tool, definitions: &Arc<Definitions>) -> ToolEntry {
        let mut t = t;
        let written = WrittenSchemas::take(&mut t);
        ToolEntry::stored(t, written, definitions, &mut SchemaTexts::default())
    }

    /// A tool of a catalogue whose schemas share `definitions`, and their texts with the other
    /// tools' in `texts`; `t`'s own schemas were taken out and written in `written`.
    pub(crate) fn stored(
        t: Tool,
        written: WrittenSchemas,
        definitions: &Arc<Definitions>,
        texts: &mut SchemaTexts,
    ) -> ToolEntry {
        /// The schema a tool's `mcp` carries: none (it is not what is shown).
        static NO_SCHEMA: LazyLock<Arc<Map<String, Value>>> = LazyLock::new(Arc::default);
        // Cloned: made afresh here, out of the pages the schemas' trees were in.
        let results = written.results.clone();
        let input_schema = texts.store(&written.input);
        let output_schema = written.output.as_deref().map(|o| texts.store(o));
        drop(written);
        let mut mcp =
            McpTool::new_with_raw(t.name, (!t.description.is_empty()).then(|| t.description.into()), NO_SCHEMA.clone());
        mcp.title = t.title;
        let a = t.annotations;
        let mut ann = ToolAnnotations::new()
            .read_only(a.read_only_hint)
            .destructive(a.destructive_hint)
            .idempotent(a.idempotent_hint)
            .open_world(a.open_world_hint);
        ann.title = a.title;
        mcp.annotations = Some(ann);
        ToolEntry {
            mcp,
            input_schema,
            output_schema,
            definitions: definitions.clone(),
            http: t.http,
            operation_id: t.operation_id,
            tags: t.tags,
            scopes: t.scopes,
            api: None,
            results,
            response: t.response,
            owners: OwnersArguments { fixed: t.fixed_arguments, defaults: t.default_arguments },
            rust: false,
            full_input: OnceLock::new(),
            input_validator: OnceLock::new(),
            output_validator: OnceLock::new(),
        }
    }

    /// The input schema as clients see it (self-contained), without the `_jq` argument.
    pub fn assembled_input_schema(&self) -> Map<String, Value> {
        self.assembled(&self.input_schema)
    }

    /// The output schema as clients see it (self-contained); `None`: none.
    pub fn assembled_output_schema(&self) -> Option<Map<String, Value>> {
        self.output_schema.as_ref().map(|o| self.assembled(o))
    }

    fn assembled(&self, stored: &StoredSchema) -> Map<String, Value> {
        let schema = stored.parse();
        match assemble(&schema, &self.definitions) {
            Cow::Borrowed(_) => schema,
            Cow::Owned(full) => full,
        }
    }

    /// The full input schema, which arguments are checked against in every mode: assembled on
    /// the tool's first call, and kept (a catalogue's tools are not all called).
    pub fn full_input_schema(&self) -> &Map<String, Value> {
        self.full_input.get_or_init(|| self.assembled_input_schema())
    }

    /// The definition clients are shown: the full one, or with compact schemas and description
    /// (see `crate::discovery::compact`), computed when asked for (a page of `tools/list`, a
    /// `describe_tools` answer) so that no tool's advertised schema is held.
    pub fn advertised(&self, compact: bool) -> McpTool {
        let mut mcp = self.mcp.clone();
        // A list's shape after its description (not in `mcp`: search reads that).
        if !compact && let Some(d) = self.results.listed_description(mcp.description.as_deref().unwrap_or("")) {
            mcp.description = Some(d.into());
        }
        let input = self.assembled_input_schema();
        let output = self.assembled_output_schema();
        if compact {
            return compact::advertised(mcp, &input, output.as_ref(), &self.results);
        }
        mcp.input_schema = Arc::new(self.results.with_projection(input));
        mcp.output_schema = output.map(Arc::new);
        mcp
    }

    /// The definition `describe_tools` gives: [`Self::advertised`], with a compact description
    /// that also keeps the sentence after the summary (see `crate::discovery::compact::described_description`).
    pub fn described(&self, compact: bool) -> McpTool {
        let mut mcp = self.advertised(compact);
        // `describe_tools` gives the shape as the tool's `response`.
        mcp.description = self.mcp.description.clone();
        if compact { compact::described(mcp, self.mcp.description.as_deref(), self.mcp.title.as_deref()) } else { mcp }
    }
}

/// A tool's schemas taken out of its tree and written as compact JSON, with what its results
/// need to know of them (the projection argument's name, how it pages).
pub(crate) struct WrittenSchemas {
    input: String,
    output: Option<String>,
    results: ToolResults,
}

impl WrittenSchemas {
    /// Takes `t`'s schemas out (leaving empty ones) and writes them.
    pub(crate) fn take(t: &mut Tool) -> WrittenSchemas {
        let results = ToolResults::new(t);
        let input = super::stored::text_of(&std::mem::take(&mut t.input_schema));
        let output = t.output_schema.take().map(|o| super::stored::text_of(&o));
        WrittenSchemas { input, output, results }
    }
}
