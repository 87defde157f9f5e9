//! The command line as a user meets it: exit codes, error messages naming the place, `--help`.

use crate::common;

use std::process::{Command, Output};

fn mcpgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen")).args(args).output().expect("run mcpgen")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Each bad input fails with exit code 1 and one error naming the file and the place.
#[test]
fn bad_inputs_fail_clearly() {
    let cases: &[(&str, &[&str])] = &[
        ("malformed.json", &["malformed.json:8:", "invalid JSON"]),
        ("malformed.yaml", &["malformed.yaml:", "invalid YAML"]),
        ("unknown-version.yaml", &["at #/openapi", "unsupported OpenAPI version \"4.0.0\""]),
        ("missing-version.yaml", &["missing version"]),
        ("remote-ref.yaml", &["--allow-remote-refs"]),
        ("empty-paths.yaml", &["no operations under #/paths"]),
        ("empty.yaml", &["the document is empty"]),
        ("not-utf8.json", &["not-utf8.json:", "not valid UTF-8"]),
        ("functions-bad-parameters.json", &["at #/1/parameters", "must be a JSON Schema object, found a string"]),
        ("not-an-api.json", &["not an API description", "Postman collection", "HAR file"]),
        ("postman-no-items.json", &["at #/item", "needs an `item` list"]),
        ("postman-v1.json", &["Postman collection v1", "v2.1"]),
        ("postman-bad-url.json", &["at #/item/0/request/url", "the request's URL cannot be read"]),
        ("har-no-entries.har", &["at #/log/entries", "no entries"]),
        ("har-bad-url.har", &["at #/log/entries/0/request/url", "the request's URL cannot be read"]),
    ];
    for (file, needles) in cases {
        let path = format!("tests/fixtures/bad/{file}");
        let out = mcpgen(&["inspect", &path]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{file}: {err}");
        assert!(err.starts_with(&format!("error: {path}")), "{file}: {err}");
        assert_eq!(err.lines().filter(|l| l.starts_with("error:")).count(), 1, "{file}: one error: {err}");
        for n in *needles {
            assert!(err.contains(n), "{file}: expected {n:?} in {err}");
        }
        assert!(!err.contains("panicked"), "{file}: {err}");
    }
}

/// Faults inside one operation skip it with a warning; `--strict` makes them errors.
#[test]
fn operation_faults_are_isolated() {
    for (file, needle) in [
        ("broken-ref.yaml", "#/paths/~1things~1{id}/get/parameters/0: broken $ref"),
        (
            "cyclic-ref.yaml",
            "circular $ref: #/components/schemas/A -> #/components/schemas/B -> #/components/schemas/A",
        ),
        ("duplicate-operation-ids.yaml", "operationId `listThings` is already used at #/paths/~1things/get"),
    ] {
        let path = format!("tests/fixtures/bad/{file}");
        let out = mcpgen(&["inspect", &path]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{file}: {}", stderr(&out));
        assert!(text.contains("Warnings (1):") && text.contains(needle), "{file}: {text}");
        let strict = mcpgen(&["inspect", "--strict", &path]);
        assert_eq!(strict.status.code(), Some(1), "{file}");
        assert!(
            stderr(&strict).contains("--strict") && stderr(&strict).contains(needle),
            "{file}: {}",
            stderr(&strict)
        );
    }
}

#[test]
fn filters_select_tools() {
    let out =
        mcpgen(&["inspect", "samples/petstore-oas30.json", "--json", "--include-tag", "store", "--method", "GET"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json report");
    let names: Vec<&str> = report["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["getInventory", "getOrderById"]);
    assert_eq!(report["totals"]["operations"], 20);

    let out = mcpgen(&[
        "inspect",
        "samples/petstore-oas30.json",
        "--json",
        "--include-path",
        "/user*",
        "--exclude-op",
        "*User",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = report["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["createUsersWithArrayInput", "createUsersWithListInput", "getUserByName"]);

    let out = mcpgen(&["inspect", "samples/petstore-oas30.json", "--include-op", "nothing*"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("the filters exclude all 20 operations"), "{}", stderr(&out));

    let out = mcpgen(&["inspect", "samples/petstore-oas30.json", "--method", "FETCH"]);
    assert_eq!(out.status.code(), Some(2), "usage errors exit 2");
}

/// The `--json` report of `tests/fixtures/responses.yaml` with these flags, its tools by name.
fn response_estimates(flags: &[&str]) -> (serde_json::Value, std::collections::BTreeMap<String, serde_json::Value>) {
    let out = mcpgen(&[&["inspect", "tests/fixtures/responses.yaml", "--json"], flags].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json report");
    let tools = report["tools"].as_array().expect("tools").iter();
    let by_name = tools.map(|t| (t["name"].as_str().unwrap_or_default().to_string(), t["response"].clone())).collect();
    (report, by_name)
}

#[test]
fn inspect_estimates_a_list_at_its_default_page_size() {
    let (_, tools) = response_estimates(&[]);
    assert_eq!(
        tools["listThings"],
        serde_json::json!({"estimated_chars": 6751, "estimated_lean_chars": 4551, "page_size": 50,
            "source": "example", "over_budget": false})
    );
}

#[test]
fn inspect_estimates_a_response_made_from_its_schema_against_its_own_budget() {
    let (report, tools) = response_estimates(&[]);
    assert_eq!(
        tools["getThing"],
        serde_json::json!({"estimated_chars": 136, "estimated_lean_chars": 53, "page_size": null,
            "source": "synthesised", "over_budget": true})
    );
    assert_eq!(report["totals"]["max_result_chars"], 40_000);
    assert_eq!(report["totals"]["over_budget"], 1);
}

#[test]
fn inspect_does_not_estimate_a_response_that_is_not_json() {
    let (_, tools) = response_estimates(&[]);
    assert_eq!(tools["getReport"], serde_json::Value::Null);
}

#[test]
fn inspect_measures_the_full_rendering_when_asked() {
    let (_, tools) = response_estimates(&["--max-result-chars", "5000"]);
    assert_eq!(tools["listThings"]["over_budget"], false);
    let (_, tools) = response_estimates(&["--max-result-chars", "5000", "--response-detail", "full"]);
    assert_eq!(tools["listThings"]["over_budget"], true);
}

#[test]
fn inspect_lists_responses_over_the_budget_largest_first() {
    let out = mcpgen(&["inspect", "tests/fixtures/responses.yaml", "--max-result-chars", "4000"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let section = "\nResponses likely over the result budget (4,000 chars):\n  \
        listThings — ~4,551 chars (page size 50)\n  getThing   — ~53 chars (its budget 50)\n";
    assert!(text.contains(section), "{text}");
}

#[test]
fn inspect_of_a_runtime_config_estimates_no_response() {
    let (_dir, path) = edited_config(|_| {});
    let out = mcpgen(&["inspect", &path, "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json report");
    let tools = report["tools"].as_array().expect("tools");
    assert!(tools.iter().all(|t| t["response"].is_null()), "{tools:?}");
}

/// `mcpgen inspect` with `COLUMNS` set: the table between its header and the next blank line.
fn inspect_table(spec: &str, columns: Option<&str>) -> (String, Vec<String>) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpgen"));
    cmd.args(["inspect", spec]).env_remove("COLUMNS");
    if let Some(c) = columns {
        cmd.env("COLUMNS", c);
    }
    let out = cmd.output().expect("run mcpgen");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let table = text.lines().skip_while(|l| !l.starts_with("TOOL ")).take_while(|l| !l.is_empty()).map(String::from);
    let table: Vec<String> = table.collect();
    (text, table)
}

/// The summary comes first, then the table, which fits `COLUMNS` (100 when it is unset and stdout
/// is no terminal): long paths, then long names, shortened in the middle.
#[test]
fn inspect_fits_its_table_to_the_width_after_the_summary() {
    let (text, table) = inspect_table("samples/petstore-oas30.json", Some("80"));
    assert!(text.find("20 operations -> 20 tools") < text.find("TOOL "), "{text}");
    assert_eq!(table.len(), 21, "{text}");
    assert!(table.iter().all(|l| l.chars().count() <= 80), "{text}");
    assert!(table.iter().any(|l| l.contains('…')), "paths shortened: {text}");
    let (_, wide) = inspect_table("samples/petstore-oas30.json", Some("200"));
    assert!(wide.iter().all(|l| !l.contains('…')), "nothing shortened when it fits");
    let (_, default) = inspect_table("samples/petstore-oas30.json", None);
    assert!(default.iter().all(|l| l.chars().count() <= 100));
}

/// GitHub's 1,223 tools: rows within 100 characters (243 before), and the renames summed up by
/// why, the 25 shortened names first.
#[test]
fn inspect_of_github_fits_and_sums_up_its_renames() {
    let Some(path) = common::corpus_file(common::GITHUB) else { return };
    let (text, table) = inspect_table(&path.display().to_string(), None);
    assert_eq!(table.len(), 1224);
    assert!(table.iter().all(|l| l.chars().count() <= 100), "{:?}", table.iter().map(|l| l.chars().count()).max());
    let shortened =
        text.find("  25 names were longer than --max-name-len and lost whole words; --verbose lists them all:");
    let characters = text.find("  1,198 operationIds had characters tool names do not take");
    assert!(shortened.is_some() && shortened < characters, "{text}");
}

#[test]
fn reads_stdin_and_yaml() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["inspect", "-", "--json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let spec = std::fs::read("samples/petstore-swagger2.yaml").unwrap();
    child.stdin.take().unwrap().write_all(&spec).unwrap();
    let out = child.wait_with_output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["api"]["dialect"], "Swagger 2.0");
    assert_eq!(report["totals"]["tools"], 20);
}

#[test]
fn help_matches_golden() {
    for (args, golden) in [
        (&["--help"][..], "help.txt"),
        (&["inspect", "--help"][..], "help-inspect.txt"),
        (&["serve", "--help"][..], "help-serve.txt"),
        (&["config", "--help"][..], "help-config.txt"),
        (&["generate", "--help"][..], "help-generate.txt"),
        (&["export", "--help"][..], "help-export.txt"),
        (&["convert", "--help"][..], "help-convert.txt"),
        (&["doctor", "--help"][..], "help-doctor.txt"),
        (&["tokens", "revoke", "--help"][..], "help-tokens-revoke.txt"),
    ] {
        let out = mcpgen(args);
        assert!(out.status.success());
        expectorate::assert_contents(format!("tests/golden/{golden}"), &String::from_utf8_lossy(&out.stdout));
    }
}

/// A bad entry of a function list fails it, pointing at the entry; `--lenient` skips it instead.
#[test]
fn lenient_skips_bad_functions() {
    let path = "tests/fixtures/bad/functions-mixed.json";
    let out = mcpgen(&["inspect", path]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("at #/2: function without a `name`"), "{}", stderr(&out));
    assert!(stderr(&out).contains("or pass --lenient to skip it"), "the way out is named: {}", stderr(&out));
    let out = mcpgen(&["inspect", "--lenient", "--json", path]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = report["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["get_weather", "get_date"]);
    let warnings = report["diagnostics"].to_string();
    for needle in ["#/1", "duplicate function name", "#/2", "#/3/parameters", "type: object"] {
        assert!(warnings.contains(needle), "{needle} in {warnings}");
    }
}

/// Mistakes in a bindings file name the file and the place in it.
#[test]
fn bad_bindings_fail_clearly() {
    let cases: &[(&str, &str, &str)] = &[
        ("unknown-function.yaml", "#/functions/get_wether", "no function `get_wether` in the list"),
        ("unknown-argument.yaml", "#/functions/get_current_time/args/tz", "has no argument `tz`"),
        ("unfilled-path.yaml", "#/functions/get_current_time/path", "fills `{zone}`"),
        ("unknown-scheme.yaml", "#/security", "unknown security scheme `api_key`"),
        ("bad-method.yaml", "#/functions/get_current_time/method", "unknown HTTP method \"FETCH\""),
        ("unknown-key.yaml", "#/functions/get_current_time/url", "unknown field `url`"),
        ("missing-binding.yaml", "#/functions", "no binding for the function `get_current_weather`"),
    ];
    for (file, at, message) in cases {
        let path = format!("tests/fixtures/bindings/{file}");
        let mut args = vec!["config", "samples/openai-functions.json", "--bindings", &path];
        if *file != "missing-binding.yaml" {
            args.extend(["--include-op", "get_current_time"]);
        }
        let out = mcpgen(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{file}: {err}");
        assert!(err.starts_with(&format!("error: {path} at {at}: ")), "{file}: {err}");
        assert!(err.contains(message), "{file}: {err}");
    }
    // An optional argument that a binding puts into the path becomes required, with a note.
    let out = mcpgen(&[
        "config",
        "samples/openai-functions.json",
        "--bindings",
        "tests/fixtures/bindings/optional-path-arg.yaml",
        "--include-op",
        "get_current_weather",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let config: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(config["tools"][0]["input_schema"]["required"], serde_json::json!(["location", "unit"]));
    // Function-list flags on an OpenAPI document are refused.
    let out = mcpgen(&["config", "samples/petstore-oas30.json", "--forward-url", "http://localhost:9"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("apply to function lists"), "{}", stderr(&out));
    let out = mcpgen(&["config", "samples/openai-functions.json", "--forward-url", "ftp://x"]);
    assert!(stderr(&out).contains("absolute http(s) URL"), "{}", stderr(&out));
}

/// A mistyped command is not read as an input for the `mcpgen SPEC` shorthand.
#[test]
fn mistyped_commands_get_a_suggestion() {
    let out = mcpgen(&["insepct", "samples/petstore-oas30.json"]);
    assert_eq!(out.status.code(), Some(2));
    expectorate::assert_contents("tests/golden/cli-mistyped-command.txt", &stderr(&out));
    let out = mcpgen(&["petstore", "--help"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("error: unknown command `petstore` (and no file `petstore` exists)"),
        "{}",
        stderr(&out)
    );
}

/// Function lists in the Python-first convention (`dict`, `float`, `list`, ...) load, with one note.
#[test]
fn python_style_types_load() {
    let out = mcpgen(&["inspect", "samples/python-functions.json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("Python-style type names"), "{report}");
}

/// `--auth` names env vars; anything else is refused before it is used, with the forms it takes.
#[test]
fn auth_specs_name_env_vars() {
    let out = mcpgen(&["inspect", "samples/petstore-oas30.json", "--auth", "bearer:ghp-not-a-var-name"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not an environment variable name"), "{}", stderr(&out));
    let out = mcpgen(&["inspect", "samples/petstore-oas30.json", "--auth", "token:X"]);
    assert!(
        stderr(&out).contains("bearer:ENV, header:NAME:ENV, query:NAME:ENV, basic:USER_ENV:PASS_ENV or oauth2:"),
        "{}",
        stderr(&out)
    );
    let out = mcpgen(&["inspect", "samples/petstore-oas30.json", "--auth", "header:X-Api-Key:PETS_KEY", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let creds = report["credentials"].as_array().unwrap();
    assert!(creds.iter().any(|c| c["scheme"] == "auth" && c["env"][0] == "PETS_KEY"), "{creds:?}");
}

/// A `$ref` to a file that is not there fails only what needs it: the operation whose body it is
/// is skipped (a response schema is dropped), with a warning naming the file and the pointer.
#[test]
fn a_missing_ref_file_skips_what_needs_it() {
    let out = mcpgen(&["inspect", "tests/fixtures/missing-file-ref.yaml"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("3 operations -> 2 tools, 1 skipped"), "{report}");
    assert!(
        report.contains("#/paths/~1pets/post/requestBody/content/application~1json/schema/$ref")
            && report.contains("nope.yaml: cannot read: No such file"),
        "{report}"
    );
    assert!(report.contains("listPets") && report.contains("listOwners") && !report.contains("addPet  "), "{report}");
    // A parameter's reference to the missing file costs the parameter, not its operation.
    assert!(
        report.contains("#/paths/~1owners/get/parameters/0")
            && report.contains("the parameter is left out, the operation kept"),
        "{report}"
    );
}

/// Errors name their cause and what to do.
#[test]
fn errors_name_the_cause() {
    let out = mcpgen(&["inspect", "http://127.0.0.1:1/spec.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("download failed: connection refused (http://127.0.0.1:1/spec.yaml)"),
        "{}",
        stderr(&out)
    );
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["serve", "samples/petstore-oas30.json", "--transport", "http", "--bind", &addr])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!(
            "cannot listen on {addr}: the port is in use (another server?); choose another with --bind 127.0.0.1:PORT"
        )),
        "{}",
        stderr(&out)
    );
}

/// Long work shows progress on a terminal, and nothing when stderr is not one. GitHub's
/// description takes a few seconds to count in a debug build; `script` gives the terminal.
#[test]
fn progress_only_on_a_terminal() {
    let Some(github) = common::corpus_file(common::GITHUB) else { return };
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: needs util-linux's script");
        return;
    }
    let plain = mcpgen(&["inspect", github.to_str().unwrap(), "--json"]);
    assert!(plain.status.success());
    assert!(stderr(&plain).is_empty(), "no progress without a terminal: {}", stderr(&plain));
    let log = tempfile::NamedTempFile::new().unwrap();
    let command = format!("{} inspect {} --json > /dev/null", env!("CARGO_BIN_EXE_mcpgen"), github.display());
    let out = Command::new("script").args(["-qfec", &command, log.path().to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let screen = String::from_utf8_lossy(&std::fs::read(log.path()).unwrap()).into_owned();
    assert!(screen.contains("counting tokens"), "{screen}");
}

/// Petstore's runtime config with one tool edited by hand, in a fresh directory.
fn edited_config(edit: impl FnOnce(&mut serde_json::Value)) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("petstore.mcp.json");
    let path = path.to_str().unwrap().to_string();
    let out = mcpgen(&["config", "samples/petstore-oas30.json", "-o", &path]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut config: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut config);
    std::fs::write(&path, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
    (dir, path)
}

#[test]
fn a_hand_edited_config_with_a_bad_method_fails_to_load_naming_the_tool() {
    let (_dir, path) = edited_config(|c| c["tools"][2]["http"]["method"] = "FETCH".into());
    let out = mcpgen(&["serve", &path, "--transport", "http", "--bind", "127.0.0.1:0"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("error: {path} at #/tools/2/http/method: tool `findPetsByStatus`: not a valid mcpgen runtime config: unknown variant `FETCH`")),
        "{err}"
    );
}

#[test]
fn a_hand_edited_config_with_a_non_object_schema_fails_to_load_naming_the_tool() {
    let (_dir, path) = edited_config(|c| c["tools"][0]["input_schema"] = serde_json::json!([]));
    let out = mcpgen(&["export", &path, "--format", "openai"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("error: {path} at #/tools/0/input_schema: tool `updatePet`:")), "{err}");
    assert!(err.contains("expected a map"), "{err}");
}

#[test]
fn a_runtime_config_is_recognised_on_stdin() {
    use std::io::Write;
    let (_dir, path) = edited_config(|_| {});
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["export", "-", "--format", "anthropic"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&std::fs::read(&path).unwrap()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let tools: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(tools.as_array().map(Vec::len), Some(20));
}

/// `convert` writes the IR as OpenAPI, which a runtime config does not keep: it says so.
#[test]
fn convert_needs_the_api_description_and_says_so_for_a_config() {
    let (_dir, path) = edited_config(|_| {});
    let out = mcpgen(&["convert", &path]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("this is an mcpgen runtime config"), "{err}");
    assert!(err.contains("`mcpgen convert` needs the API description it was made from"), "{err}");
}

/// The description `edited_config_reads_as_serve_runs_it` writes into `getPetById`.
const EDITED: &str = "Fetches one zebra-striped pet, by the number on its collar.";

/// Petstore's config with `getPetById`'s description edited.
fn config_with_an_edit() -> (tempfile::TempDir, String) {
    edited_config(|c| {
        let tools = c["tools"].as_array_mut().unwrap();
        let tool = tools.iter_mut().find(|t| t["name"] == "getPetById").unwrap();
        tool["description"] = EDITED.into();
    })
}

/// `inspect`, `search`, `export` and `config` read an edited runtime config as `serve` runs it,
/// the edit included; filters, `--auth` and `--base-url` apply to its tools.
#[test]
fn an_edited_config_is_read_by_every_command() {
    let (dir, path) = config_with_an_edit();
    let out = mcpgen(&["inspect", &path]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with(&format!("Swagger Petstore 1.0.0 (mcpgen runtime config, {path})")), "{text}");
    assert!(text.contains("\n20 tools\n"), "{text}");
    let out = mcpgen(&["inspect", &path, "--include-tag", "store", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = report["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["getInventory", "placeOrder", "getOrderById", "deleteOrder"]);
    assert_eq!(report["tools"][0]["source"], "getInventory", "the operationId the config records");

    let out = mcpgen(&["search", &path, "zebra striped pet collar", "--limit", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let found = String::from_utf8_lossy(&out.stdout);
    assert!(found.starts_with("getPetById ") && found.contains("zebra-striped"), "{found}");

    let out = mcpgen(&["export", &path, "--format", "openai", "--base-url", "https://pets.example.com"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tools: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tool = tools.as_array().unwrap().iter().find(|t| t["function"]["name"] == "getPetById").unwrap();
    assert_eq!(tool["function"]["description"], EDITED);

    // `config` writes it again (as YAML here) with its own limits, filtered, with credentials.
    let yaml = dir.path().join("pets.mcp.yaml");
    let yaml = yaml.to_str().unwrap();
    let out = mcpgen(&["config", &path, "--method", "GET", "--auth", "bearer:PETS_TOKEN", "-o", yaml]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = mcpgen(&["export", yaml, "--format", "mcp"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list["tools"].as_array().unwrap().len(), 8, "the GET tools: {list}");
    let written = std::fs::read_to_string(yaml).unwrap();
    assert!(written.contains("PETS_TOKEN") && written.contains(EDITED), "{written}");
}

/// A flag that cannot apply to a runtime config's tools is an error naming it, for every
/// command; `convert` aside, no command refuses the config itself.
#[test]
fn flags_a_config_cannot_take_are_named() {
    let (_dir, path) = config_with_an_edit();
    let cases: &[(&[&str], &str)] = &[
        (&["inspect", "--output-schema", "full"], "--output-schema cannot apply to"),
        (&["generate", "--env-prefix", "PETS"], "--env-prefix cannot apply to"),
        (&["export", "--forward-url", "http://127.0.0.1:9/tools"], "--forward-url cannot apply to"),
        (&["search", "pets", "--max-description-len", "100"], "--max-description-len cannot apply to"),
        (&["config", "--max-name-len", "20"], "--max-name-len cannot apply to"),
        (&["serve", "--output-schema", "full"], "--output-schema cannot apply to"),
    ];
    for (args, needle) in cases {
        let mut all = vec![args[0], &path];
        all.extend_from_slice(&args[1..]);
        let out = mcpgen(&all);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.starts_with(&format!("error: {needle} {path}, a runtime config")), "{args:?}: {err}");
        assert!(err.contains("or give the API description it was made from"), "{args:?}: {err}");
    }
    let out = mcpgen(&["inspect", &path, "--include-op", "nothing*"]);
    assert!(stderr(&out).contains("the filters exclude all 20 tools"), "{}", stderr(&out));
}

/// `doctor` exits with 0 whatever it finds unless `--fail-on`'s level is reached (then 1, and a
/// line on stderr); an input it cannot read fails as in every command.
#[test]
fn doctor_fails_only_when_asked() {
    let errors = "tests/fixtures/doctor/agent-unfriendly.yaml";
    let warnings = "samples/petstore-oas30.json";
    let nothing = "samples/anthropic-tools.json";
    for (args, code) in [
        (&[errors][..], 0),
        (&["--fail-on", "error", errors][..], 1),
        (&["--fail-on", "warning", errors][..], 1),
        (&["--fail-on", "error", warnings][..], 0),
        (&["--fail-on", "warning", warnings][..], 1),
        (&["--fail-on", "warning", "--json", nothing][..], 0),
    ] {
        let out = mcpgen(&[&["doctor"][..], args].concat());
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
        assert!(!out.stdout.is_empty(), "{args:?}: a report either way");
        if code == 1 {
            let err = stderr(&out);
            assert!(err.starts_with("mcpgen doctor: ") && err.contains("or above (--fail-on"), "{args:?}: {err}");
        }
    }
    // Input that cannot be read is 2, never taken for findings (1).
    let out = mcpgen(&["doctor", "--fail-on", "error", "tests/fixtures/bad/malformed.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("error: tests/fixtures/bad/malformed.json"), "{}", stderr(&out));
    let out = mcpgen(&["doctor", "--fail-on", "info", warnings]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// `mcpgen tokens revoke SUBJECT` deletes that subject's stored upstream tokens and no one
/// else's, without the encryption key; the store is named by --token-store or MCPGEN_TOKEN_STORE.
#[test]
fn tokens_revoke_deletes_one_subjects_tokens() {
    use mcpgen_runtime::tooling::store::{self, Sealed, state_key, token_key};
    const KEY: &str = "q83vEjRWeJASNFZ4kKvN7xI0VniQq83vEjRWeJASNFY=";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tokens.json");
    let spec = path.to_str().unwrap().to_string();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let sealed = rt.block_on(async {
        let sealed = Sealed::new(store::open(&spec, &|_: &str| None).await.unwrap(), KEY).unwrap();
        for (subject, api) in [("alice", "github"), ("alice", "slack"), ("bob", "github")] {
            sealed.put(&token_key(subject, api), format!("{subject}-{api}").as_bytes(), None).await.unwrap();
        }
        sealed.put(&state_key("xyz"), b"pending", None).await.unwrap();
        sealed
    });

    let revoke = |subject: &str, env_store: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpgen"));
        cmd.args(["tokens", "revoke", subject]).env_remove("MCPGEN_TOKEN_STORE_KEY");
        if env_store {
            cmd.env("MCPGEN_TOKEN_STORE", &spec);
        } else {
            cmd.args(["--token-store", &spec]).env_remove("MCPGEN_TOKEN_STORE");
        }
        cmd.output().unwrap()
    };
    let out = revoke("alice", false);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "revoked 2 stored tokens of alice\n");
    let out = revoke("alice", true);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "no stored token of alice\n");

    rt.block_on(async {
        assert_eq!(sealed.get(&token_key("alice", "github")).await.unwrap(), None);
        assert_eq!(sealed.get(&token_key("alice", "slack")).await.unwrap(), None);
        assert_eq!(sealed.get(&token_key("bob", "github")).await.unwrap().as_deref(), Some(&b"bob-github"[..]));
        assert_eq!(sealed.get(&state_key("xyz")).await.unwrap().as_deref(), Some(&b"pending"[..]));
    });

    // Without --token-store: serve's default store, under XDG_STATE_HOME.
    let state = tempfile::tempdir().unwrap();
    std::fs::create_dir(state.path().join("mcpgen")).unwrap();
    std::fs::copy(&path, state.path().join("mcpgen/upstream-tokens.json")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["tokens", "revoke", "bob"])
        .env("XDG_STATE_HOME", state.path())
        .env_remove("MCPGEN_TOKEN_STORE")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "revoked 1 stored token of bob\n");

    // A store that cannot be opened is an error, said clearly.
    let out = mcpgen(&["tokens", "revoke", "bob", "--token-store", "/nonexistent-dir/tokens.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("/nonexistent-dir does not exist"), "{}", stderr(&out));
    let out = mcpgen(&["tokens", "revoke", "bob", "--token-store", "redis://:pw@127.0.0.1:1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("MCPGEN_TOKEN_STORE_PASSWORD") && !stderr(&out).contains("pw@"), "{}", stderr(&out));
}

/// A document that is only a `$ref` to another (an entry file) is that document, its own
/// references read from where it is; a reference to a missing file names that file, never "not
/// an API description".
#[test]
fn a_root_ref_is_followed_and_a_missing_one_named() {
    let out = mcpgen(&["inspect", "--json", "tests/fixtures/root-ref.yaml"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let direct = mcpgen(&["inspect", "--json", "samples/multi-file/openapi.yaml"]);
    let tools =
        |o: &std::process::Output| serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()["tools"].clone();
    assert_eq!(tools(&out), tools(&direct), "the same tools as the document itself");
    let out = mcpgen(&["inspect", "tests/fixtures/bad/root-ref-missing.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.starts_with("error: tests/fixtures/bad/no-such-file.yaml: cannot read"), "{err}");
    assert!(
        err.contains("root-ref-missing.yaml is only a `$ref` to it") && !err.contains("not an API description"),
        "{err}"
    );
}
