//! The scaffold a Rust developer owns: the README's five customisations applied as written and
//! called through rmcp's client against the recording mock; an operation the API renames stops
//! the regeneration, then the build, until both are fixed; and `mcpgen generate` in a crate's
//! folder, without arguments, makes the same files byte for byte.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::common::*;
use super::{binary, cargo, cargo_ok, walk};

/// The crate of `spec` with `--runtime registry`, the runtime patched to this workspace's in the
/// crate's `.cargo/config.toml` (which regenerating leaves alone), so that these crates share the
/// runtime's build with the others.
fn scaffold(spec: &str, dir: &Path, package: &str, extra: &[&str]) {
    let mut args = vec!["generate", spec, "-o", dir.to_str().unwrap(), "--name", package, "--runtime", "registry"];
    args.extend_from_slice(extra);
    let out = super::mcpgen(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(dir.join(".cargo")).unwrap();
    let patch = format!(
        "[patch.crates-io]\nmcpgen-runtime = {{ path = {:?} }}\nmcpgen-config = {{ path = {:?} }}\n",
        root.join("runtime").display().to_string(),
        root.join("config").display().to_string()
    );
    std::fs::write(dir.join(".cargo/config.toml"), patch).unwrap();
}

/// `mcpgen generate` run in `dir` with `args` (none: from its mcpgen.toml).
fn regenerate(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen")).arg("generate").args(args).current_dir(dir).output().unwrap()
}

/// The code blocks of a Markdown text, in order, with their languages.
fn code_blocks(markdown: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in markdown.lines() {
        match (&mut current, line.strip_prefix("```")) {
            (None, Some(lang)) => current = Some((lang.to_string(), String::new())),
            (Some(_), Some("")) => blocks.extend(current.take()),
            (Some((_, text)), _) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, None) => {}
        }
    }
    blocks
}

/// The files whose bytes differ between two snapshots (or that only one has).
fn changed(a: &BTreeMap<PathBuf, Vec<u8>>, b: &BTreeMap<PathBuf, Vec<u8>>) -> Vec<PathBuf> {
    let paths: std::collections::BTreeSet<&PathBuf> = a.keys().chain(b.keys()).collect();
    paths.into_iter().filter(|p| a.get(*p) != b.get(*p)).cloned().collect()
}

/// Every file of a crate but its build output, with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walk(dir)
        .into_iter()
        .filter(|p| !p.strip_prefix(dir).unwrap().starts_with("target"))
        .map(|p| (p.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&p).unwrap()))
        .collect()
}

fn server(package: &str, mock: &Mock) -> ServerCommand {
    ServerCommand {
        program: binary(package).display().to_string(),
        args: vec!["--base-url".into(), format!("{}/api", mock.url())],
        env: [
            ("TEAM".to_string(), "blue".to_string()),
            ("SWAGGER_PETSTORE_API_KEY".to_string(), "key-1".to_string()),
            ("SWAGGER_PETSTORE_PETSTORE_AUTH_TOKEN".to_string(), "tok-1".to_string()),
        ]
        .into(),
    }
}

/// The README's snippets, pasted as the README says, each state built; then the tools are
/// called over stdio and the mock sees exactly the expected requests.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readmes_five_customisations_build_and_work() {
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join("petstore-scaffold-mcp");
    scaffold("samples/petstore-oas30.json", &krate, "petstore-scaffold-mcp", &[]);
    let readme = std::fs::read_to_string(krate.join("README.md")).unwrap();
    let blocks = code_blocks(&readme);
    let rust: Vec<&str> = blocks.iter().filter(|(l, _)| l == "rust").map(|(_, t)| t.as_str()).collect();
    let toml: Vec<&str> = blocks.iter().filter(|(l, _)| l == "toml").map(|(_, t)| t.as_str()).collect();
    let [header, refuse, replace, multi_step] = rust[..] else { panic!("four Rust snippets: {rust:?}") };
    let [tables] = toml[..] else { panic!("one TOML snippet: {toml:?}") };

    // 1 and 2: the hooks, each state built.
    for hooks in [header, refuse] {
        std::fs::write(krate.join("src/hooks.rs"), hooks).unwrap();
        cargo_ok(&krate, &["build"]);
    }
    // 5 and 3: the tables, a regeneration from mcpgen.toml, the Rust that answers the tool.
    let manifest = std::fs::read_to_string(krate.join("mcpgen.toml")).unwrap();
    std::fs::write(krate.join("mcpgen.toml"), format!("{manifest}\n{tables}")).unwrap();
    let again = regenerate(&krate, &[]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(said.contains("src/handlers.rs needs a method"), "{said}");
    assert!(cargo(&krate, &["build"]).status.code() != Some(0), "the method is missing: a build error");
    // 4: the multi-step tool beside it.
    for handlers in [replace, multi_step] {
        std::fs::write(krate.join("src/handlers.rs"), handlers).unwrap();
        cargo_ok(&krate, &["build"]);
    }
    cargo_ok(&krate, &["clippy", "--", "-D", "warnings"]);

    let mock = start_mock().await;
    let c = connect(&server("petstore-scaffold-mcp", &mock), Transport::Stdio).await;
    let names = tool_names(&c.client.list_all_tools().await.unwrap());
    assert!(names.contains(&"update_pet_renamed".to_string()) && names.contains(&"both".to_string()), "{names:?}");
    assert!(!names.contains(&"updatePet".to_string()) && !names.contains(&"addPet".to_string()), "{names:?}");

    // The header, on a plain call.
    let r = c.call("getInventory", serde_json::json!({})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let sent = mock.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!((sent[0].path.as_str(), sent[0].header("x-team")), ("/api/store/inventory", Some("blue")));
    assert_eq!(sent[0].header("api_key"), Some("key-1"), "the server's credentials");
    mock.clear();

    // The refused tool sends nothing.
    let r = c.call("deletePet", serde_json::json!({"petId": 1})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("`deletePet` is switched off on this server"), "{}", text(&r));
    assert!(mock.requests().is_empty(), "a refused call sends nothing");

    // The replaced tool answers in Rust, calling the API's own through `Api`: credentials, hooks.
    let r = c.call("findPetsByStatus", serde_json::json!({"status": ["sold"]})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let answer = r.structured_content.clone().unwrap();
    assert_eq!(answer["checked_by"], "rust");
    assert_eq!(answer["answer"]["path"], "/api/pet/findByStatus");
    let sent = mock.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].query.as_deref(), Some("status=sold"));
    assert_eq!(sent[0].header("authorization"), Some("Bearer tok-1"));
    assert_eq!(sent[0].header("x-team"), Some("blue"));
    mock.clear();

    // The multi-step tool sends its two requests, with credentials and hooks.
    let r = c.call("both", serde_json::json!({"second": {"tags": ["a"]}})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let sent = mock.requests();
    let paths: Vec<&str> = sent.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(paths, ["/api/store/inventory", "/api/pet/findByTags"]);
    assert!(sent.iter().all(|s| s.header("x-team") == Some("blue")));
    assert_eq!(sent[1].header("authorization"), Some("Bearer tok-1"));
    mock.clear();

    // The hidden tool is not there; the renamed one answers under its new name.
    let hidden = c.client.call_tool(rmcp::model::CallToolRequestParams::new("addPet".to_string())).await;
    assert!(hidden.is_err(), "a hidden tool is unknown");
    let r = c.call("update_pet_renamed", serde_json::json!({"name": "x", "photoUrls": []})).await;
    assert_eq!(mock.requests().len(), 1, "{}", text(&r));
}

/// An API of three operations; `delete` names the one that deletes a user.
fn users_api(path: &Path, delete: &str) {
    let spec = serde_json::json!({
        "openapi": "3.0.3",
        "info": {"title": "Users", "version": "1"},
        "paths": {
            "/users": {"get": {"operationId": "usersAll", "responses": {"200": {"description": "ok"}}}},
            "/users/{id}": {"delete": {"operationId": delete, "parameters": [
                {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "responses": {"204": {"description": "gone"}}}},
            "/users/purge": {"post": {"operationId": "usersPurge", "responses": {"204": {"description": "gone"}}}}
        }
    });
    std::fs::write(path, serde_json::to_string_pretty(&spec).unwrap()).unwrap();
}

const RENAME_HOOKS: &str = "use mcpgen_runtime::ext::{Error, Map, Request, Value};\n\nuse crate::generated::Tool;\n\n\
pub struct Hooks;\n\nimpl crate::generated::Hooks for Hooks {\n    \
async fn before_request(&self, tool: Tool, _args: &Map<String, Value>, _request: &mut Request) -> Result<(), Error> {\n        \
if tool == Tool::UsersDelete {\n            return Err(Error::new(\"deleting users is switched off\"));\n        }\n        Ok(())\n    }\n}\n";

/// The API renames an operation that a hook and an override name: the regeneration refuses and
/// writes nothing; with mcpgen.toml fixed, the build fails on the hook's old `Tool`; with both
/// fixed, the crate builds, refuses the renamed tool and keeps the hidden one hidden.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renamed_operation_is_caught_before_it_exposes_a_delete() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("users.json");
    users_api(&spec, "usersDelete");
    let krate = dir.path().join("users-mcp");
    scaffold(spec.to_str().unwrap(), &krate, "users-mcp", &[]);
    let manifest = std::fs::read_to_string(krate.join("mcpgen.toml")).unwrap();
    let tables = "\n[tools.usersPurge]\nhidden = true\n\n[tools.usersDelete]\ndescription = \"Deletes one user.\"\n";
    std::fs::write(krate.join("mcpgen.toml"), format!("{manifest}{tables}")).unwrap();
    std::fs::write(krate.join("src/hooks.rs"), RENAME_HOOKS).unwrap();
    let first = regenerate(&krate, &[]);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    cargo_ok(&krate, &["build"]);

    users_api(&spec, "usersRemove");
    let before = snapshot(&krate);
    let refused = regenerate(&krate, &[]);
    assert_eq!(refused.status.code(), Some(1));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("[tools.usersDelete]: the API renamed `usersDelete` to `usersRemove`"), "{said}");
    assert!(said.contains("nothing was written"), "{said}");
    assert!(
        said.contains("src/hooks.rs:9 uses Tool::UsersDelete: `usersDelete` is now `usersRemove`: Tool::UsersRemove"),
        "{said}"
    );
    assert_eq!(changed(&snapshot(&krate), &before), Vec::<PathBuf>::new(), "nothing written");

    let fixed = std::fs::read_to_string(krate.join("mcpgen.toml"))
        .unwrap()
        .replace("[tools.usersDelete]", "[tools.usersRemove]");
    std::fs::write(krate.join("mcpgen.toml"), fixed).unwrap();
    let again = regenerate(&krate, &[]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(said.contains("~ usersDelete -> usersRemove"), "the tool diff: {said}");
    let build = cargo(&krate, &["build"]);
    assert!(!build.status.success());
    let errors = String::from_utf8_lossy(&build.stderr);
    assert!(errors.contains("no variant or associated item named `UsersDelete`"), "{errors}");

    std::fs::write(krate.join("src/hooks.rs"), RENAME_HOOKS.replace("UsersDelete", "UsersRemove")).unwrap();
    cargo_ok(&krate, &["build"]);
    let mock = start_mock().await;
    let server = ServerCommand {
        program: binary("users-mcp").display().to_string(),
        args: vec!["--base-url".into(), format!("{}/api", mock.url())],
        env: Default::default(),
    };
    let c = connect(&server, Transport::Stdio).await;
    let tools = c.client.list_all_tools().await.unwrap();
    assert_eq!(tool_names(&tools), ["usersAll", "usersRemove"], "the hidden tool stays hidden");
    let remove = tools.iter().find(|t| t.name == "usersRemove").unwrap();
    assert_eq!(remove.description.as_deref(), Some("Deletes one user."));
    let r = c.call("usersRemove", serde_json::json!({"id": "7"})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(mock.requests().is_empty(), "the DELETE is refused by the hook");
}

/// `mcpgen generate` in a crate's folder, without arguments, writes the same bytes; flags given
/// then are recorded.
#[test]
fn regenerating_without_arguments_reproduces_the_crate() {
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join("petstore-mcp");
    let spec = "samples/petstore-oas30.json";
    let out = super::mcpgen(&[
        "generate",
        spec,
        "-o",
        krate.to_str().unwrap(),
        "--exclude-op",
        "deletePet",
        "--max-description-len",
        "200",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let manifest = std::fs::read_to_string(krate.join("mcpgen.toml")).unwrap();
    assert!(
        manifest.contains(r#"options = ["--exclude-op", "deletePet", "--max-description-len", "200", "--name", "swagger-petstore-mcp"]"#),
        "{manifest}"
    );
    let before = snapshot(&krate);
    let again = regenerate(&krate, &[]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(changed(&snapshot(&krate), &before), Vec::<PathBuf>::new(), "byte-identical");
    // A flag given in the folder is applied and recorded; the next run keeps it.
    let narrowed = regenerate(&krate, &["--include-tag", "store"]);
    assert!(narrowed.status.success(), "{}", String::from_utf8_lossy(&narrowed.stderr));
    let manifest = std::fs::read_to_string(krate.join("mcpgen.toml")).unwrap();
    assert!(manifest.contains(r#""--include-tag", "store""#), "{manifest}");
    let catalogue = std::fs::read_to_string(krate.join("src/catalogue.json")).unwrap();
    let after = snapshot(&krate);
    assert!(regenerate(&krate, &[]).status.success());
    assert_eq!(changed(&snapshot(&krate), &after), Vec::<PathBuf>::new());
    assert!(!catalogue.contains("\"deletePet\"") && !catalogue.contains("\"addPet\""), "both filters apply");
}
