//! Code mode's declarations (`mcpgen::runtime::code`) of a few samples' configs, as goldens under
//! `tests/golden/code/`: the petstore as `mcpgen config` writes it (return types from the
//! responses' shapes), and samples with output schemas (`--output-schema full`: `$defs` as named
//! types, recursion, hostile texts). Refresh with `EXPECTORATE=overwrite cargo test --test integration code::`.

use mcpgen::pipeline::{self, OutputSchemaPolicy, PipelineOptions};
use mcpgen::runtime::tooling::code::declare_all;

fn declarations(sample: &str, output_schema: OutputSchemaPolicy) -> String {
    let spec = format!("samples/{sample}");
    let mut opts = PipelineOptions::default();
    opts.tools.output_schema = output_schema;
    let p = pipeline::run(&spec, &opts).unwrap_or_else(|e| panic!("{spec}: {e}"));
    declare_all(&p.tools.config)
}

#[test]
fn petstore_as_mcpgen_config_writes_it() {
    let got = declarations("petstore-oas31.yaml", OutputSchemaPolicy::default());
    expectorate::assert_contents("tests/golden/code/petstore-oas31.d.ts", &got);
}

#[test]
fn petstore_with_output_schemas() {
    let got = declarations("petstore-oas31.yaml", OutputSchemaPolicy::Full);
    expectorate::assert_contents("tests/golden/code/petstore-oas31.output-schemas.d.ts", &got);
}

#[test]
fn recursive_schemas() {
    let got = declarations("recursive-schemas.yaml", OutputSchemaPolicy::Full);
    expectorate::assert_contents("tests/golden/code/recursive-schemas.d.ts", &got);
}

#[test]
fn hostile_texts_stay_in_their_comments_and_literals() {
    for sample in ["hostile.yaml", "hostile-functions.json"] {
        let got = declarations(sample, OutputSchemaPolicy::Full);
        assert!(!got.contains("</script"), "{sample}");
        assert!(!got.contains(['\u{2028}', '\u{2029}', '\0']), "{sample}");
        let name = sample.rsplit_once('.').map_or(sample, |(stem, _)| stem);
        expectorate::assert_contents(format!("tests/golden/code/{name}.d.ts"), &got);
    }
}

/// The size of a config's declarations: `MCPGEN_CODE_CONFIG=config.json cargo test --test integration code:: --
/// --ignored --nocapture` (with `MCPGEN_CODE_TOOL=pulls/list` for one tool's too).
#[test]
#[ignore = "measures a config named by MCPGEN_CODE_CONFIG"]
fn measure() {
    use mcpgen::runtime::tooling::code::{Options, ScriptNames, declare_tools};
    let path = std::env::var("MCPGEN_CODE_CONFIG").expect("MCPGEN_CODE_CONFIG");
    let text = std::fs::read_to_string(&path).expect("the config");
    let config = mcpgen_config::RuntimeConfig::from_json(&text).expect("a config");
    let started = std::time::Instant::now();
    let all = declare_all(&config);
    println!(
        "{} tools: {} characters, {} lines, in {:?}",
        config.tools.len(),
        all.chars().count(),
        all.lines().count(),
        started.elapsed()
    );
    if let Ok(out) = std::env::var("MCPGEN_CODE_OUT") {
        std::fs::write(out, &all).expect("written");
    }
    if let Ok(name) = std::env::var("MCPGEN_CODE_TOOL") {
        let names = ScriptNames::for_config(&config);
        let tool = config.tools.iter().find(|t| t.name == name).expect("the tool");
        for (label, options) in [
            ("", Options::default()),
            (" with property descriptions", Options { param_descriptions: true, ..Options::default() }),
        ] {
            let one = declare_tools([tool], &names, &options);
            println!("{name}{label}: {} characters\n{one}", one.chars().count());
        }
    }
}
