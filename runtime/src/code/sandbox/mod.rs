//! The sandbox that runs a model's script: QuickJS (through `rquickjs`), one fresh runtime per
//! script, with nothing in it but the language, `api` (the tools, through [`Host`]), `console`
//! (captured) and `ApiError`.
//!
//! - No network, files, environment, processes or clock: the context has only QuickJS's base
//!   objects plus `eval`, `Promise`, `JSON`, `Map`/`Set`, `RegExp` and `Proxy` (no `Date`, no
//!   `performance`, no module loader, none of the quickjs CLI's `std`/`os`).
//! - Limits ([`Limits`]): wall time (the interrupt handler, the allocator refusing past the
//!   deadline, and a timeout around the script's future for a call that never answers); memory
//!   (the allocator, [`alloc`]); native stack; API calls and output (counted here, host-side).
//!   Each ends the script with its own [`Stop`], which a `try` in the script cannot hide.
//! - Each script runs on a blocking thread (`spawn_blocking`, its runtime driven there by
//!   `Handle::block_on`), so a busy script never holds a tokio worker; its API calls are tasks
//!   on the server's runtime, aborted if the script is stopped.

pub mod alloc;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rquickjs::context::{EvalOptions, intrinsic};
use rquickjs::prelude::{Async, Func, Rest};
use rquickjs::{AsyncContext, AsyncRuntime, Ctx, JsLifetime, Promise};

use self::alloc::{Budgeted, Meter};
use crate::config::ScriptLimits;

/// The largest script accepted, in bytes.
pub const MAX_SOURCE: usize = 64 * 1024;
/// The native stack a script may use (recursion, the parser, `JSON.parse` of deep text).
const STACK: usize = 512 * 1024;
/// How long past its deadline a script's answer is waited for before it is reported stopped
/// (its thread then ends at the next interrupt check, holding its slot until then).
const GRACE: Duration = Duration::from_millis(250);

/// A script's limits (the config's [`ScriptLimits`], `--script-*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall time from start to answer.
    pub wall: Duration,
    /// Bytes of memory the script's runtime may hold.
    pub memory: usize,
    /// API calls.
    pub max_calls: usize,
    /// Characters of output: the return value as JSON (or text) plus what it prints.
    pub max_output: usize,
}

impl From<&ScriptLimits> for Limits {
    fn from(l: &ScriptLimits) -> Limits {
        Limits {
            wall: Duration::try_from_secs_f64(l.timeout_secs).unwrap_or(Duration::from_secs(10)),
            memory: l.memory_mib.saturating_mul(1 << 20),
            max_calls: l.max_calls,
            max_output: l.max_output_chars,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::from(&ScriptLimits::default())
    }
}

/// What an API function answers the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// JSON text: the function resolves to its value.
    Json(String),
    /// Text that is not JSON: the function resolves to the string.
    Text(String),
    /// No content: the function resolves to `null`.
    Empty,
    /// The call failed once sent (an upstream error, a transport failure): the function throws
    /// an `ApiError` with this message.
    Failed(String),
    /// The call was refused before anything was sent (invalid arguments, a refusal): it throws an
    /// `ApiError` with this message, and is not counted as made.
    Refused(String),
    /// No such function: it throws a `TypeError` with this message.
    Unknown(String),
}

/// The server side of the `api` object.
pub trait Host: Send + Sync + 'static {
    /// Calls `api[function](args)`; `args` is the JSON text of the script's argument.
    fn call(&self, function: String, args: String) -> Pin<Box<dyn Future<Output = Reply> + Send>>;
}

/// Why a script did not give an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// It threw (or did not parse); the message with where it happened.
    Threw(String),
    /// It ran past its wall time.
    Time(Duration),
    /// It needed more memory than its limit (bytes).
    Memory(usize),
    /// It made more API calls than its limit.
    Calls(usize),
    /// Its output passed the limit (characters).
    Output(usize),
    /// The script is longer than [`MAX_SOURCE`] (its length).
    TooLong(usize),
    /// The script was given up: its request was cancelled.
    Cancelled,
    /// The sandbox could not be set up.
    Internal(String),
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Threw(m) => write!(f, "the script threw: {m}"),
            Stop::Time(d) => write!(f, "the script was stopped at its time limit ({} s)", d.as_secs_f64()),
            Stop::Memory(b) => write!(f, "the script was stopped at its memory limit ({} MiB)", b >> 20),
            Stop::Calls(n) => write!(f, "the script was stopped at its limit of {n} API calls"),
            Stop::Output(n) => write!(f, "the script was stopped at its output limit ({n} characters)"),
            Stop::TooLong(n) => write!(f, "the script is {n} bytes long; at most {MAX_SOURCE} are run"),
            Stop::Cancelled => write!(f, "the script was cancelled"),
            Stop::Internal(m) => write!(f, "the sandbox failed: {m}"),
        }
    }
}

/// What a script gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// It returned a string.
    Text(String),
    /// It returned another value: its JSON (`null` for `undefined`).
    Json(String),
}

/// A script's run: its answer or why it stopped, what it printed, the API calls it made.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The answer, or why there is none.
    pub answer: Result<Answer, Stop>,
    /// What it printed with `console.*`, one line per call.
    pub printed: String,
    /// API calls made: sent to the API (not an unknown function, nor a call refused before it
    /// was sent).
    pub calls: usize,
    /// Wall time.
    pub elapsed: Duration,
}

/// The host's side of one run, reached from host functions through the context's userdata.
struct Run {
    host: Arc<dyn Host>,
    handle: tokio::runtime::Handle,
    limits: Limits,
    /// Calls asked for (what the limit counts).
    calls: AtomicUsize,
    /// Calls that went to the API.
    sent: AtomicUsize,
    /// The text printed so far, and its length in characters (kept, not counted again on every
    /// print: a script may print thousands of lines).
    printed: Mutex<(String, usize)>,
    /// A host-side limit that was hit: it wins over whatever the script did after.
    stop: Mutex<Option<Stop>>,
    /// Set when the script is given up (its request cancelled, or its answer no longer awaited
    /// past the deadline): it stops at the next interrupt check, and no call leaves after.
    cancelled: AtomicBool,
    cancel_notify: tokio::sync::Notify,
}

impl Run {
    fn stop(&self, why: Stop) {
        let mut stop = self.stop.lock().unwrap_or_else(|e| e.into_inner());
        stop.get_or_insert(why);
    }

    fn stopped(&self) -> Option<Stop> {
        self.stop.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
        self.cancel_notify.notify_waiters();
    }

    fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Resolves once the script is given up.
    async fn given_up(&self) {
        loop {
            let notified = self.cancel_notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }

    fn printed_chars(&self) -> usize {
        self.printed.lock().unwrap_or_else(|e| e.into_inner()).1
    }
}

/// The userdata holding the run.
struct RunRef(Arc<Run>);

// SAFETY: RunRef holds no JavaScript value, so no lifetime to change.
unsafe impl<'js> JsLifetime<'js> for RunRef {
    type Changed<'to> = RunRef;
}

fn run_of(ctx: &Ctx<'_>) -> rquickjs::Result<Arc<Run>> {
    match ctx.userdata::<RunRef>() {
        Some(r) => Ok(r.0.clone()),
        None => Err(rquickjs::Exception::throw_internal(ctx, "the sandbox has no host")),
    }
}

/// Gives the script up when dropped: when `run` returns, or when its caller stops waiting (a
/// cancelled request drops the future).
struct GiveUpOnDrop(Arc<Run>);

impl Drop for GiveUpOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// A spawned task aborted when the script's future is dropped (the script was stopped).
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// `__call(function, argsJson)`: one API call, answered as a tagged string the prelude reads
/// (`j` JSON, `t` text, `n` nothing, `e` failure, `u` unknown function).
async fn host_call<'js>(ctx: Ctx<'js>, function: String, args: String) -> rquickjs::Result<String> {
    let run = run_of(&ctx)?;
    if run.is_cancelled() {
        return Err(rquickjs::Exception::throw_internal(&ctx, "the script was cancelled"));
    }
    let n = run.calls.fetch_add(1, Ordering::Relaxed) + 1;
    if n > run.limits.max_calls {
        run.stop(Stop::Calls(run.limits.max_calls));
        return Err(rquickjs::Exception::throw_internal(
            &ctx,
            &format!("API call limit reached ({} calls)", run.limits.max_calls),
        ));
    }
    let task = AbortOnDrop(run.handle.spawn(run.host.call(function, args)));
    let reply = match (&mut { task }.0).await {
        Ok(reply) => reply,
        Err(e) => Reply::Failed(format!("the call did not complete ({e})")),
    };
    if !matches!(reply, Reply::Unknown(_) | Reply::Refused(_)) {
        run.sent.fetch_add(1, Ordering::Relaxed);
    }
    Ok(match reply {
        Reply::Json(j) => format!("j{j}"),
        Reply::Text(t) => format!("t{t}"),
        Reply::Empty => "n".to_string(),
        Reply::Failed(m) | Reply::Refused(m) => format!("e{m}"),
        Reply::Unknown(m) => format!("u{m}"),
    })
}

/// `__print(line)`: `console.*`, kept within the output limit.
fn host_print(ctx: Ctx<'_>, line: Rest<String>) -> rquickjs::Result<()> {
    let run = run_of(&ctx)?;
    let line = line.0.join(" ");
    let mut printed = run.printed.lock().unwrap_or_else(|e| e.into_inner());
    let chars = printed.1 + line.chars().count() + 1;
    if chars > run.limits.max_output {
        drop(printed);
        run.stop(Stop::Output(run.limits.max_output));
        return Err(rquickjs::Exception::throw_internal(
            &ctx,
            &format!("output limit reached ({} characters)", run.limits.max_output),
        ));
    }
    printed.0.push_str(&line);
    printed.0.push('\n');
    printed.1 = chars;
    Ok(())
}

/// Runs before the script: takes the host functions out of the global scope into closures and
/// defines `api`, `console` and `ApiError`.
const PRELUDE: &str = r#"
"use strict";
((call, print) => {
  class ApiError extends Error {
    constructor(message, tool) { super(message); this.name = "ApiError"; this.tool = tool; }
  }
  const answer = (tool, reply) => {
    const rest = reply.slice(1);
    switch (reply[0]) {
      case "j": return JSON.parse(rest);
      case "t": return rest;
      case "n": return null;
      case "u": throw new TypeError(rest);
      default: throw new ApiError(rest, tool);
    }
  };
  const api = new Proxy(Object.create(null), {
    get(_, name) {
      if (typeof name !== "string" || name === "then") return undefined;
      return async (args) => {
        // Where the script called from: after an await the stack no longer shows it.
        const site = new Error();
        const reply = await call(name, JSON.stringify(args === undefined ? {} : args));
        try { return answer(name, reply); } catch (e) { e.stack = site.stack; throw e; }
      };
    },
    set() { return false; },
  });
  const show = (v) => typeof v === "string" ? v : (JSON.stringify(v) ?? String(v));
  const line = (...parts) => print(...parts.map(show));
  const console = Object.freeze({ log: line, info: line, warn: line, error: line, debug: line });
  Object.defineProperty(globalThis, "api", { value: api });
  Object.defineProperty(globalThis, "console", { value: console });
  Object.defineProperty(globalThis, "ApiError", { value: ApiError });
})(globalThis.__call, globalThis.__print);
delete globalThis.__call;
delete globalThis.__print;
"#;

/// The script as the body of an async function (or, written as one, `async () => { ... }`, called).
fn wrap(source: &str) -> String {
    let t = source.trim();
    let is_function =
        (t.starts_with("async (") || t.starts_with("async()") || t.starts_with("async function")) && t.ends_with('}');
    let call = if is_function { format!("({t})()") } else { format!("(async () => {{{source}\n}})()") };
    // The answer: a string as text, anything else as JSON.
    format!(
        "{call}.then((v) => typeof v === \"string\" ? \"s\" + v : \"j\" + (JSON.stringify(v === undefined ? null : v) ?? \"null\"))"
    )
}

/// Runs `source` under `limits`, its API calls through `host`. Never panics on any script; the
/// caller's task waits at most the wall time plus a short grace.
#[cfg_attr(not(test), allow(dead_code))]
pub async fn run(source: &str, limits: Limits, host: Arc<dyn Host>) -> Outcome {
    run_in(source, limits, host, None).await
}

/// [`run`], holding `slot` (a permit of the server's cap on scripts at once) until the script's
/// thread really ends, which may be after its answer was given up for its deadline.
pub async fn run_in(
    source: &str,
    limits: Limits,
    host: Arc<dyn Host>,
    slot: Option<tokio::sync::OwnedSemaphorePermit>,
) -> Outcome {
    let started = Instant::now();
    if source.len() > MAX_SOURCE {
        return Outcome {
            answer: Err(Stop::TooLong(source.len())),
            printed: String::new(),
            calls: 0,
            elapsed: started.elapsed(),
        };
    }
    let handle = tokio::runtime::Handle::current();
    let deadline = started + limits.wall;
    let run = Arc::new(Run {
        host,
        handle: handle.clone(),
        limits,
        calls: AtomicUsize::new(0),
        sent: AtomicUsize::new(0),
        printed: Mutex::new((String::new(), 0)),
        stop: Mutex::new(None),
        cancelled: AtomicBool::new(false),
        cancel_notify: tokio::sync::Notify::new(),
    });
    let _give_up = GiveUpOnDrop(run.clone());
    let source = source.to_string();
    let blocking_run = run.clone();
    let thread = tokio::task::spawn_blocking(move || {
        let answer = handle.block_on(evaluate(source, deadline, blocking_run));
        drop(slot);
        answer
    });
    let answer = match tokio::time::timeout_at((deadline + GRACE).into(), thread).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(e)) => Err(Stop::Internal(format!("the script's thread ended abnormally ({e})"))),
        Err(_) => Err(Stop::Time(limits.wall)),
    };
    // A limit the host saw wins: the script may have caught its exception and gone on.
    let answer = match (run.stopped(), answer) {
        (Some(stop), _) => Err(stop),
        (None, Ok(a)) if a.chars() + run.printed_chars() > limits.max_output => Err(Stop::Output(limits.max_output)),
        (None, a) => a,
    };
    let printed = std::mem::take(&mut run.printed.lock().unwrap_or_else(|e| e.into_inner()).0);
    Outcome {
        answer,
        printed,
        calls: run.sent.load(Ordering::Relaxed).min(limits.max_calls),
        elapsed: started.elapsed(),
    }
}

impl Answer {
    fn chars(&self) -> usize {
        match self {
            Answer::Text(t) | Answer::Json(t) => t.chars().count(),
        }
    }
}

/// The script in a fresh runtime on this (blocking) thread.
async fn evaluate(source: String, deadline: Instant, run: Arc<Run>) -> Result<Answer, Stop> {
    let meter = Meter::new(run.limits.memory, deadline);
    let watched = run.clone();
    let runtime =
        AsyncRuntime::new_with_alloc(Budgeted::new(meter.clone())).map_err(|e| Stop::Internal(e.to_string()))?;
    runtime.set_max_stack_size(STACK).await;
    let interrupted = run.clone();
    runtime
        .set_interrupt_handler(Some(Box::new(move || Instant::now() >= deadline || interrupted.is_cancelled())))
        .await;
    let context = AsyncContext::custom::<(
        intrinsic::Eval,
        intrinsic::Promise,
        intrinsic::Json,
        intrinsic::MapSet,
        intrinsic::RegExp,
        intrinsic::RegExpCompiler,
        intrinsic::Proxy,
    )>(&runtime)
    .await
    .map_err(|e| Stop::Internal(e.to_string()))?;
    let limits = run.limits;
    let script = context.async_with(async move |ctx| -> Result<Option<String>, Stop> {
        let internal = |e: rquickjs::Error| Stop::Internal(e.to_string());
        ctx.store_userdata(RunRef(run)).map_err(|_| Stop::Internal("the host could not be attached".into()))?;
        let globals = ctx.globals();
        globals.set("__call", Func::from(Async(host_call))).map_err(internal)?;
        globals.set("__print", Func::from(host_print)).map_err(internal)?;
        ctx.eval_with_options::<(), _>(PRELUDE, named("prelude")).map_err(|e| thrown(&ctx, e))?;
        let promise: Promise = ctx.eval_with_options(wrap(&source), named("script")).map_err(|e| thrown(&ctx, e))?;
        promise.into_future::<Option<String>>().await.map_err(|e| thrown(&ctx, e))
    });
    let result = tokio::select! {
        r = tokio::time::timeout_at(deadline.into(), script) => match r {
            Err(_) => Err(Stop::Time(limits.wall)),
            Ok(r) => r,
        },
        () = watched.given_up() => Err(Stop::Cancelled),
    };
    // Why the script really ended, when the engine's own error hides it.
    let past_deadline = Instant::now() >= deadline || meter.past_deadline.load(Ordering::Relaxed);
    match result {
        Ok(text) => {
            let text = text.unwrap_or_else(|| "jnull".into());
            Ok(match text.strip_prefix('s') {
                Some(s) => Answer::Text(s.to_string()),
                None => Answer::Json(text.strip_prefix('j').unwrap_or(&text).to_string()),
            })
        }
        Err(_) if past_deadline => Err(Stop::Time(limits.wall)),
        Err(_) if meter.over_memory.load(Ordering::Relaxed) => Err(Stop::Memory(limits.memory)),
        Err(stop) => Err(stop),
    }
}

/// The script's exception as a [`Stop`]: its name, message and where (line:column of the script).
fn thrown(ctx: &Ctx<'_>, e: rquickjs::Error) -> Stop {
    if !matches!(e, rquickjs::Error::Exception) {
        return Stop::Threw(e.to_string());
    }
    let value = ctx.catch();
    if value.is_uncatchable_error() {
        return Stop::Threw("interrupted".into());
    }
    if let Some(ex) = value.as_exception() {
        let name: Option<String> = ex.get("name").ok();
        let message = ex.message().unwrap_or_default();
        let mut text = match name {
            Some(n) if !n.is_empty() => format!("{n}: {message}"),
            _ => message,
        };
        if let Some(at) = ex.stack().as_deref().and_then(script_position) {
            text.push_str(&format!(" (at line {at})"));
        }
        return Stop::Threw(text);
    }
    let shown = ctx.json_stringify(value).ok().flatten().and_then(|s| s.to_string().ok());
    Stop::Threw(shown.unwrap_or_else(|| "a value that is not an Error".into()))
}

/// `line:column` of the first stack frame in the script: `at <anonymous> (script:3:11)` for an
/// error thrown as it runs, `at script:2:9` for one the parser found.
fn script_position(stack: &str) -> Option<String> {
    stack.lines().find_map(|l| {
        let l = l.trim();
        let rest = match l.find("(script:") {
            Some(at) => &l[at + "(script:".len()..],
            None => l.strip_prefix("at script:")?,
        };
        Some(rest.trim_end_matches(')').to_string())
    })
}

/// How a source is evaluated: global code, named in stack traces.
fn named(filename: &str) -> EvalOptions {
    let mut options = EvalOptions::default();
    options.global = true;
    options.strict = false;
    options.filename = Some(filename.to_string());
    options
}

#[cfg(test)]
mod tests;
