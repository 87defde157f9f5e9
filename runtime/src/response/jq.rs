//! `_jq`: a jq filter a model passes with a call, applied to the JSON response (by jaq, a
//! maintained Rust implementation of jq).
//!
//! A filter is code from the client, and jq is a full language: `def f: 1 + f; f` overflows the
//! stack (which aborts a process: Rust cannot catch it), `[range(1e10)]` fills memory, `repeat(.)`
//! never ends, and jaq has no way to be interrupted. So filters run in a worker process: the
//! server's own executable started again with [`WORKER_ENV`] set (its `main` calls
//! [`run_worker_if_asked`] first), with an empty environment (no credentials), a memory limit, a
//! time limit after which it is killed, and a cap on what it may write. A filter that loops costs
//! one killed process; the server goes on serving.
//!
//! The worker reads `<filter length>\n<filter><JSON input>` on stdin and writes each output as
//! JSON on its own line; on a bad filter it exits with [`EXIT_FILTER`] and jaq's message on stderr.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::response::json::Json;

/// Set in the environment of a worker process.
pub const WORKER_ENV: &str = "MCPGEN_JQ_WORKER";
/// The worker's exit status for a filter that does not compile or fails on the input.
const EXIT_FILTER: u8 = 2;
/// The worker's exit status when the output passed its cap.
const EXIT_TOO_LONG: u8 = 3;
/// A worker's address space at most (a filter that builds a huge array fails, not the machine).
const WORKER_MEMORY: u64 = 2 << 30;
/// Filters run at once at most; more wait.
const MAX_WORKERS: usize = 4;
/// The longest filter taken, in bytes.
pub const MAX_FILTER_LEN: usize = 4096;

/// Whether this executable's `main` runs [`run_worker_if_asked`] (so it can be a worker).
static CAN_BE_WORKER: AtomicBool = AtomicBool::new(false);

/// Call first in `main`: in a worker process (started by `project`) runs the filter and returns
/// the exit code; otherwise records that this executable can be started as a worker, and returns
/// `None`. Generated crates' `cli::main` and mcpgen's `main` call it.
pub fn run_worker_if_asked() -> Option<ExitCode> {
    if std::env::var_os(WORKER_ENV).is_none() {
        CAN_BE_WORKER.store(true, Ordering::Relaxed);
        return None;
    }
    Some(worker_main())
}

fn worker_main() -> ExitCode {
    limit_memory();
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().lock().read_to_end(&mut input) {
        eprintln!("reading the input: {e}");
        return ExitCode::from(EXIT_FILTER);
    }
    let Some((filter, body)) = split_request(&input) else {
        eprintln!("the worker's input is not `<length>\\n<filter><json>`");
        return ExitCode::from(EXIT_FILTER);
    };
    let cap = std::env::var("MCPGEN_JQ_MAX_OUTPUT").ok().and_then(|v| v.parse().ok()).unwrap_or(1 << 20);
    let mut stdout = std::io::stdout().lock();
    match run(filter, body, cap, &mut |line| {
        let _ = stdout.write_all(line.as_bytes());
        let _ = stdout.write_all(b"\n");
    }) {
        Ok(()) => ExitCode::SUCCESS,
        Err(RunError::TooLong) => ExitCode::from(EXIT_TOO_LONG),
        Err(RunError::Filter(message)) => {
            eprint!("{message}");
            ExitCode::from(EXIT_FILTER)
        }
    }
}

#[cfg(unix)]
fn limit_memory() {
    let limit = libc::rlimit { rlim_cur: WORKER_MEMORY as libc::rlim_t, rlim_max: WORKER_MEMORY as libc::rlim_t };
    // SAFETY: setrlimit reads the struct it is given and changes only this process's limits.
    unsafe {
        libc::setrlimit(libc::RLIMIT_AS, &limit);
    }
}

#[cfg(not(unix))]
fn limit_memory() {}

/// `<length>\n<filter><body>` split.
fn split_request(input: &[u8]) -> Option<(&str, &[u8])> {
    let newline = input.iter().position(|&b| b == b'\n')?;
    let len: usize = std::str::from_utf8(&input[..newline]).ok()?.parse().ok()?;
    let rest = &input[newline + 1..];
    let filter = std::str::from_utf8(rest.get(..len)?).ok()?;
    Some((filter, &rest[len..]))
}

/// Why [`run`] stopped.
#[derive(Debug, PartialEq, Eq)]
enum RunError {
    /// The filter does not compile, or failed on the input: jaq's message.
    Filter(String),
    /// The outputs passed the cap.
    TooLong,
}

/// Runs `filter` on the JSON `body`, giving each output's JSON text to `emit`, until `cap` bytes.
fn run(filter: &str, body: &[u8], cap: usize, emit: &mut dyn FnMut(&str)) -> Result<(), RunError> {
    use jaq_core::load::{Arena, File, Loader};
    use jaq_core::{Compiler, Ctx, Vars, data, unwrap_valr};

    let input =
        jaq_json::read::parse_single(body).map_err(|e| RunError::Filter(format!("the response is not JSON: {e}")))?;
    let defs = jaq_core::defs().chain(jaq_std::defs()).chain(jaq_json::defs());
    let funs = jaq_core::funs().chain(jaq_std::funs()).chain(jaq_json::funs());
    let arena = Arena::default();
    let modules = Loader::new(defs)
        .load(&arena, File { code: filter, path: () })
        .map_err(|errors| RunError::Filter(load_message(filter, errors)))?;
    let compiled = Compiler::default().with_funs(funs).compile(modules).map_err(|errors| {
        let names: Vec<String> = errors
            .into_iter()
            .flat_map(|(_, errs)| errs)
            .map(|(name, kind)| format!("undefined {} `{name}`", kind.as_str()))
            .collect();
        RunError::Filter(names.join("; "))
    })?;
    let ctx = Ctx::<data::JustLut<jaq_json::Val>>::new(&compiled.lut, Vars::new([]));
    let mut written = 0;
    for output in compiled.id.run((ctx, input)).map(unwrap_valr) {
        let value = output.map_err(|e| RunError::Filter(e.to_string()))?;
        let text = value.to_string();
        written += text.len() + 1;
        if written > cap {
            return Err(RunError::TooLong);
        }
        emit(&text);
    }
    Ok(())
}

/// jaq's lexing and parsing errors as one line: what was expected, and where.
fn load_message(filter: &str, errors: jaq_core::load::Errors<&str, ()>) -> String {
    use jaq_core::load::Error;
    let at = |rest: &str| {
        // Lexer errors carry the input from the fault on.
        let offset = filter.len().saturating_sub(rest.len());
        format!("at character {}", filter[..offset.min(filter.len())].chars().count() + 1)
    };
    let mut messages = Vec::new();
    for (_, error) in errors {
        match error {
            Error::Io(errs) => messages.extend(errs.into_iter().map(|(_, e)| e)),
            Error::Lex(errs) => messages
                .extend(errs.into_iter().map(|(expect, rest)| format!("expected {} {}", expect.as_str(), at(rest)))),
            Error::Parse(errs) => messages.extend(errs.into_iter().map(|(expect, found)| {
                if found.is_empty() {
                    format!("expected {} at the end of the filter", expect.as_str())
                } else {
                    format!(
                        "expected {} {}, found `{}`",
                        expect.as_str(),
                        at(found),
                        found.chars().take(20).collect::<String>()
                    )
                }
            })),
        }
    }
    if messages.is_empty() { "the filter does not parse".into() } else { messages.join("; ") }
}

/// How long a filter may run, and how much it may write.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall time, from the worker's start.
    pub timeout: Duration,
    /// Bytes of output.
    pub max_output: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { timeout: Duration::from_secs(2), max_output: 4 << 20 }
    }
}

/// Why a projection gave no value.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ProjectionError {
    /// The filter does not compile, or fails on this response.
    #[error("{0}")]
    Filter(String),
    /// The filter ran past the time limit and was stopped.
    #[error("the filter ran longer than {0:?} and was stopped (does it loop?)")]
    Timeout(Duration),
    /// The outputs passed the cap.
    #[error("the filter's output passed {0} bytes; select less")]
    TooLong(usize),
    /// The worker died (the filter recursed too deep or used too much memory), or could not start.
    #[error("the filter could not run: {0}")]
    Failed(String),
    /// This executable cannot start workers (its `main` does not call `run_worker_if_asked`).
    #[error("this server cannot run jq filters")]
    Unavailable,
}

/// The executable started as a worker: this one, when its `main` can be one.
fn worker_exe() -> Option<&'static PathBuf> {
    static EXE: OnceLock<Option<PathBuf>> = OnceLock::new();
    EXE.get_or_init(|| CAN_BE_WORKER.load(Ordering::Relaxed).then(|| std::env::current_exe().ok()).flatten()).as_ref()
}

/// Runs `filter` on the JSON `body` in a worker process: one output is that value, several are an
/// array of them, none is `null`.
pub async fn project(filter: &str, body: &[u8], limits: Limits) -> Result<Json, ProjectionError> {
    static WORKERS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(MAX_WORKERS);
    if filter.len() > MAX_FILTER_LEN {
        return Err(ProjectionError::Filter(format!("the filter is longer than {MAX_FILTER_LEN} bytes")));
    }
    let exe = worker_exe().ok_or(ProjectionError::Unavailable)?;
    let _permit = WORKERS.acquire().await.map_err(|_| ProjectionError::Unavailable)?;
    let mut child = tokio::process::Command::new(exe)
        .env_clear()
        .env(WORKER_ENV, "1")
        .env("MCPGEN_JQ_MAX_OUTPUT", limits.max_output.to_string())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| ProjectionError::Failed(format!("starting the worker: {e}")))?;
    let (Some(mut stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(ProjectionError::Failed("the worker's pipes".into()));
    };
    let mut request = format!("{}\n{filter}", filter.len()).into_bytes();
    request.extend_from_slice(body);
    let write = async move {
        // A worker that stops reading (a filter that fails early) closes the pipe: not a fault.
        let _ = stdin.write_all(&request).await;
    };
    let cap = limits.max_output as u64 + 1;
    let read_out = async move {
        let mut out = Vec::new();
        let _ = stdout.take(cap).read_to_end(&mut out).await;
        out
    };
    let read_err = async move {
        let mut err = Vec::new();
        let _ = stderr.take(8192).read_to_end(&mut err).await;
        err
    };
    let all = async { tokio::join!(write, read_out, read_err, child.wait()) };
    let (_, out, err, status) = match tokio::time::timeout(limits.timeout, all).await {
        Ok(done) => done,
        Err(_) => {
            let _ = child.kill().await;
            return Err(ProjectionError::Timeout(limits.timeout));
        }
    };
    let status = status.map_err(|e| ProjectionError::Failed(e.to_string()))?;
    match status.code() {
        Some(0) => outputs(&out),
        Some(c) if c == i32::from(EXIT_FILTER) => {
            Err(ProjectionError::Filter(String::from_utf8_lossy(&err).trim().to_string()))
        }
        Some(c) if c == i32::from(EXIT_TOO_LONG) => Err(ProjectionError::TooLong(limits.max_output)),
        _ => Err(ProjectionError::Failed(
            "the worker stopped (the filter recursed too deep or needed too much memory)".into(),
        )),
    }
}

/// The worker's output lines as one value.
fn outputs(out: &[u8]) -> Result<Json, ProjectionError> {
    let mut values = Vec::new();
    for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let value = Json::parse(line)
            .map_err(|_| ProjectionError::Filter("the filter's output is not JSON (bytes or NaN?)".into()))?;
        values.push(value);
    }
    Ok(match values.len() {
        0 => Json::Null,
        1 => values.pop().unwrap_or(Json::Null),
        _ => Json::Arr(values),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outs(filter: &str, body: &str) -> Result<Vec<String>, RunError> {
        let mut lines = Vec::new();
        run(filter, body.as_bytes(), 1 << 20, &mut |l| lines.push(l.to_string()))?;
        Ok(lines)
    }

    const BODY: &str =
        r#"[{"id":1,"user":{"login":"a"},"labels":[{"name":"bug"}]},{"id":2,"user":{"login":"b"},"labels":[]}]"#;

    #[test]
    fn selects_nested_members_in_order() {
        assert_eq!(
            outs("[.[] | {id, who: .user.login}]", BODY).unwrap(),
            [r#"[{"id":1,"who":"a"},{"id":2,"who":"b"}]"#]
        );
    }

    #[test]
    fn a_missing_member_is_null() {
        assert_eq!(outs(".[0].nope", BODY).unwrap(), ["null"]);
    }

    #[test]
    fn several_outputs_are_several_lines() {
        assert_eq!(outs(".[].labels[].name, .[1].id", BODY).unwrap(), [r#""bug""#, "2"]);
    }

    #[test]
    fn a_syntax_error_says_where() {
        let Err(RunError::Filter(m)) = outs(".[0", BODY) else { panic!() };
        assert!(m.contains("expected closing bracket"), "{m}");
    }

    #[test]
    fn an_unknown_function_is_named() {
        let Err(RunError::Filter(m)) = outs("frobnicate(1)", BODY) else { panic!() };
        assert_eq!(m, "undefined filter `frobnicate`");
    }

    #[test]
    fn a_runtime_error_is_jaqs_message() {
        let Err(RunError::Filter(m)) = outs(".[0].id.x", BODY) else { panic!() };
        assert!(m.contains("cannot index"), "{m}");
    }

    #[test]
    fn output_past_the_cap_stops() {
        let mut n = 0;
        let r = run("range(100000)", b"null", 1000, &mut |_| n += 1);
        assert_eq!(r, Err(RunError::TooLong));
        assert!(n < 400);
    }

    #[test]
    fn the_request_is_split_by_its_length() {
        assert_eq!(split_request(b"3\n.a\n{\"a\":1}"), Some((".a\n", &b"{\"a\":1}"[..])));
        assert_eq!(split_request(b"9\n.a"), None);
        assert_eq!(split_request(b"x\n.a"), None);
    }

    #[test]
    fn outputs_join_into_one_value() {
        assert_eq!(outputs(b"1\n").unwrap(), Json::Num(1.into()));
        assert_eq!(outputs(b"1\n2\n").unwrap().to_text(), "[1,2]");
        assert_eq!(outputs(b"").unwrap(), Json::Null);
    }

    #[tokio::test]
    async fn without_a_worker_executable_projection_is_unavailable() {
        // Test binaries do not call `run_worker_if_asked`.
        assert_eq!(project(".", b"{}", Limits::default()).await, Err(ProjectionError::Unavailable));
    }
}
