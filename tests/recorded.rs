//! Postman collections and HAR files: the credentials they recorded stay out of every output
//! (config, a generated crate's files, exports, inspect, convert, doctor, the server's log), and
//! every command reads them.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The values recorded in `samples/postman-collection.json` and `samples/traffic.har`: a bearer
/// token, a session cookie and an API key each.
const SECRETS: [&str; 6] = [
    "pm-bearer-SECRET-1111",
    "pm-apikey-SECRET-2222",
    "pm-cookie-SECRET-3333",
    "har-bearer-SECRET-4444",
    "har-cookie-SECRET-5555",
    "har-apikey-SECRET-6666",
];

const SAMPLES: [&str; 2] = ["samples/postman-collection.json", "samples/traffic.har"];

fn mcpgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen")).args(args).env("RUST_LOG", "trace").output().expect("run mcpgen")
}

fn assert_clean(what: &str, text: &str) {
    for s in SECRETS {
        assert!(!text.contains(s), "{what} shows the recorded secret {s:?}");
    }
}

fn run_clean(args: &[&str]) -> String {
    let out = mcpgen(args);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{args:?}: {stderr}");
    let what = format!("mcpgen {}", args.join(" "));
    assert_clean(&what, &stdout);
    assert_clean(&what, &stderr);
    stdout.into_owned()
}

fn files_clean(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_clean(&path);
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            assert_clean(&path.display().to_string(), &text);
        }
    }
}

#[test]
fn recorded_secrets_stay_out_of_every_output() {
    for sample in SAMPLES {
        let text = std::fs::read_to_string(sample).unwrap();
        assert!(SECRETS.iter().filter(|s| text.contains(**s)).count() >= 3, "{sample} records the secrets");
        run_clean(&["inspect", sample]);
        run_clean(&["inspect", sample, "--json"]);
        run_clean(&["config", sample]);
        run_clean(&["doctor", sample, "--verbose"]);
        run_clean(&["search", sample, "orders of a user"]);
        run_clean(&["convert", sample, "--to", "openapi"]);
        for format in ["openai", "gemini", "mcp"] {
            run_clean(&["export", sample, "--format", format]);
        }
        run_clean(&["export", sample, "--format", "anthropic", "--input-examples"]);
        run_clean(&["diff", sample, sample]);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("crate");
        run_clean(&["generate", sample, "-o", out.to_str().unwrap()]);
        files_clean(&out);
        serve_log_clean(sample);
    }
}

/// `serve` over stdio, asked for its tools and a call (which fails: no upstream), logging at
/// trace level: neither its answers nor its log show a recorded value.
fn serve_log_clean(sample: &str) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["serve", sample, "--base-url", "http://127.0.0.1:9"])
        .env("RUST_LOG", "trace")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let messages = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ];
    let mut stdin = child.stdin.take().unwrap();
    for m in messages {
        writeln!(stdin, "{m}").unwrap();
    }
    std::thread::sleep(std::time::Duration::from_millis(800));
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("\"tools\""), "serve {sample} lists tools: {stdout} {stderr}");
    assert_clean(&format!("serve {sample} (answers)"), &stdout);
    assert_clean(&format!("serve {sample} (log)"), &stderr);
}

#[test]
fn har_hosts_are_chosen() {
    let out = run_clean(&["inspect", "samples/traffic.har", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["totals"]["tools"], 6, "{report}");
    let out = run_clean(&["inspect", "samples/traffic.har", "--host", "analytics.example.net", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["totals"]["tools"], 1, "{report}");
}

/// What `convert` writes from a collection reads back as the same tools.
#[test]
fn converted_collection_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    for sample in SAMPLES {
        let out = dir.path().join("api.yaml");
        run_clean(&["convert", sample, "--to", "openapi", "-o", out.to_str().unwrap()]);
        let a: serde_json::Value = serde_json::from_str(&run_clean(&["config", sample])).unwrap();
        let b: serde_json::Value = serde_json::from_str(&run_clean(&["config", out.to_str().unwrap()])).unwrap();
        assert_eq!(a["tools"], b["tools"], "{sample}");
        let doctor = run_clean(&["doctor", out.to_str().unwrap(), "--json"]);
        assert!(doctor.contains("inferred-schema"), "the note survives convert: {doctor}");
    }
}
