//! The score, the order, the rules' table, and the helpers the checks' tests share.

use super::*;
use crate::pipeline::{self, PipelineOptions};

/// A small API that every check passes.
pub(crate) const PETSTORE: &str = r##"
openapi: 3.0.3
info: {title: Pets, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
  /pets:
    get:
      operationId: listPets
      summary: List the pets for adoption
      parameters:
        - {name: limit, in: query, description: How many pets to return (at most 100)., schema: {type: integer}}
      responses:
        "200":
          description: The pets.
          content:
            application/json:
              schema: {type: array, items: {$ref: "#/components/schemas/Pet"}}
  /pets/{petId}:
    get:
      operationId: showPet
      summary: Show one pet by its id
      parameters:
        - {name: petId, in: path, required: true, description: The pet's id, from listPets., schema: {type: string}}
      responses:
        "200":
          description: The pet.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Pet"}
components:
  schemas:
    Pet:
      type: object
      properties:
        id: {type: string}
        name: {type: string}
"##;

/// An OpenAPI 3.0 document with these `paths` (YAML, indented by two spaces) and, after them,
/// `rest` (top-level keys).
pub(crate) fn api(paths: &str, rest: &str) -> String {
    format!(
        "openapi: 3.0.3\ninfo: {{title: T, version: \"1\"}}\nservers: [{{url: \"https://api.example.com\"}}]\npaths:\n{paths}\n{rest}"
    )
}

/// The report of an API description given as text.
pub(crate) fn report_of(text: &str) -> ApiReport {
    let p = pipeline::run_str(text, "test.yaml", &PipelineOptions::default()).expect("the test's API reads");
    of_pipeline(&p)
}

/// The findings of an API description given as text, in the report's order.
pub(crate) fn findings_of(text: &str) -> Vec<Finding> {
    report_of(text).findings
}

/// The findings of `rule` alone.
pub(crate) fn of_rule<'f>(found: &'f [Finding], rule: &str) -> Vec<&'f Finding> {
    found.iter().filter(|f| f.rule == rule).collect()
}

/// The rules of the findings, in order.
pub(crate) fn rules_of(found: &[Finding]) -> Vec<&'static str> {
    found.iter().map(|f| f.rule).collect()
}

/// `GET /pets` with `n` described query parameters (each some 30 tokens in the tool).
pub(crate) fn with_parameters(n: usize) -> String {
    let params: String = (0..n)
        .map(|i| {
            format!(
                "        - {{name: filter_{i}, in: query, description: Keeps the pets whose attribute number {i} \
                 equals this value exactly., schema: {{type: string}}}}\n"
            )
        })
        .collect();
    api(
        &format!(
            "  /pets:\n    get:\n      summary: List the pets for adoption\n      parameters:\n{params}      \
             responses: {{\"204\": {{description: none}}}}"
        ),
        "",
    )
}

fn finding(rule: &'static Rule, pointer: &str, subjects: &[&str]) -> Finding {
    Finding::new(rule, pointer, "m", "f").about_all(subjects.iter().copied())
}

#[test]
fn a_well_described_api_has_no_findings_and_scores_100() {
    let report = report_of(PETSTORE);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert_eq!(report.score, 100);
    assert_eq!(report.tools, 2);
}

#[test]
fn each_operation_loses_its_findings_weights_up_to_ten() {
    let tools = ["#/a", "#/b", "#/c", "#/d"];
    // One warning on a: 3 of 40.
    let one = [finding(&rules::GENERIC_SUMMARY, "#/a", &["#/a"])];
    assert_eq!(score(&tools, &one), 93);
    // Two errors on a: capped at 10 of 40.
    let capped = [
        finding(&rules::UNDESCRIBED_OPERATION, "#/a", &["#/a"]),
        finding(&rules::HUGE_TOOL_DEFINITION, "#/a", &["#/a"]),
    ];
    assert_eq!(score(&tools, &capped), 75);
    // An info on every tool: 4 of 40.
    let spread = [finding(&rules::UNPAGINATED_LIST, "#/x", &tools)];
    assert_eq!(score(&tools, &spread), 90);
}

#[test]
fn a_skipped_operation_counts_as_an_operation_with_an_error() {
    let found = [finding(&rules::OPERATION_SKIPPED, "#/paths/~1x/get", &["#/paths/~1x/get"])];
    // 10 of (3 + 1) × 10.
    assert_eq!(score(&["#/a", "#/b", "#/c"], &found), 75);
}

#[test]
fn findings_about_no_operation_cost_their_weight_up_to_ten_a_rule() {
    let found: Vec<Finding> =
        (0..6).map(|i| finding(&rules::UNRESOLVED_SCHEMA_REF, &format!("#/c/{i}"), &[])).collect();
    assert_eq!(score(&["#/a"], &found), 90);
    let one = [finding(&rules::SPEC_VIOLATION, "#/c", &[])];
    assert_eq!(score(&["#/a"], &one), 99);
}

#[test]
fn the_score_is_floored_at_zero() {
    let mut found = vec![finding(&rules::UNDESCRIBED_OPERATION, "#/a", &["#/a"])];
    found.extend(RULES.iter().map(|r| finding(r, "#/c", &[])));
    assert_eq!(score(&["#/a"], &found), 0);
    assert_eq!(score(&[], &[]), 100);
}

#[test]
fn errors_come_first_then_the_most_operations_then_tokens_then_pointers() {
    let mut found = [
        finding(&rules::UNPAGINATED_LIST, "#/b", &["#/b"]),
        finding(&rules::DUPLICATE_SUMMARY, "#/z", &["#/z"]),
        finding(&rules::GENERIC_SUMMARY, "#/a", &["#/a"]),
        finding(&rules::EXTERNAL_TOKEN_REQUIRED, "#/s", &["#/a", "#/b"]),
        finding(&rules::LARGE_TOOL_DEFINITION, "#/y", &["#/y"]).with_tokens(2_000),
        finding(&rules::OPERATION_SKIPPED, "#/x", &["#/x"]),
    ];
    found.sort_by(Finding::order);
    let order: Vec<&str> = found.iter().map(|f| f.pointer.as_str()).collect();
    assert_eq!(order, ["#/x", "#/s", "#/y", "#/a", "#/z", "#/b"]);
}

#[test]
fn rule_ids_are_unique_and_kebab_case() {
    let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
    for id in &ids {
        assert!(id.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{id}");
        assert!(!id.starts_with('-') && !id.ends_with('-') && !id.contains("--"), "{id}");
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), RULES.len());
}

#[test]
fn the_docs_list_every_rule_with_its_severity() {
    let docs = include_str!("../../docs/doctor.md");
    for rule in RULES {
        let row = format!("| `{}` | {} |", rule.id, rule.severity.as_str());
        assert!(docs.contains(&row), "docs/doctor.md has no row starting {row}");
    }
}

#[test]
fn a_runtime_config_is_examined_by_its_tools() {
    let p = pipeline::run_str(&with_parameters(40), "t.yaml", &PipelineOptions::default()).expect("reads");
    let report = of_config(&p.tools.config, "t.mcp.json");
    assert_eq!(report.dialect, "mcpgen runtime config");
    let large = of_rule(&report.findings, "large-tool-definition");
    assert_eq!(large.len(), 1, "{:#?}", report.findings);
    assert_eq!(large[0].pointer, "#/tools/0");
}

#[test]
fn the_text_shows_the_first_findings_of_each_rule() {
    let report = Report::new(vec![report_of(&with_undocumented_parameters(8))]);
    let text = report.text(false);
    assert_eq!(text.matches("undocumented-optional-parameter #/paths").count(), render::SHOWN_PER_RULE, "{text}");
    assert!(text.contains("... and 3 more undocumented-optional-parameter"), "{text}");
    let all = report.text(true);
    assert_eq!(all.matches("undocumented-optional-parameter #/paths").count(), 8, "{all}");
    assert!(report.json().matches("\"undocumented-optional-parameter\"").count() >= 8);
}

/// `GET /pets` with `n` optional query parameters without descriptions.
fn with_undocumented_parameters(n: usize) -> String {
    let params: String =
        (0..n).map(|i| format!("        - {{name: color_{i}, in: query, schema: {{type: string}}}}\n")).collect();
    api(
        &format!(
            "  /pets:\n    get:\n      summary: List the pets for adoption\n      parameters:\n{params}      \
             responses: {{\"204\": {{description: none}}}}"
        ),
        "",
    )
}
