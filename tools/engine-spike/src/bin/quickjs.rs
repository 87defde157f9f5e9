//! QuickJS (rquickjs) spike: start-up, per-call overhead, limits, globals.
//!
//! `quickjs all` runs every measurement; `quickjs startup|calls|limits|globals|send` one part.
//! Host model: a tokio multi-thread runtime (like the server); each script runs in
//! `spawn_blocking` with `Handle::block_on` (so a busy script never holds a tokio worker), its
//! host calls are tokio tasks on the server runtime.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rquickjs::context::intrinsic;
use rquickjs::prelude::{Async, Func};
use rquickjs::{AsyncContext, AsyncRuntime, Ctx, JsLifetime, Object, Promise, Value};

#[derive(Clone, Copy)]
struct Limits {
    wall: Duration,
    mem: usize,
    stack: usize,
    max_calls: usize,
    max_output: usize,
}

const LIMITS: Limits =
    Limits { wall: Duration::from_millis(1000), mem: 64 << 20, stack: 512 << 10, max_calls: 50, max_output: 64 << 10 };

/// Per-script host state, reachable from host functions through the runtime's userdata.
struct HostState {
    calls: AtomicUsize,
    max_calls: usize,
    handle: tokio::runtime::Handle,
}
unsafe impl<'js> JsLifetime<'js> for HostState {
    type Changed<'to> = HostState;
}

fn tool_result(i: f64) -> serde_json::Value {
    serde_json::json!({"id": i, "title": "Fix the thing", "state": "open", "labels": ["bug"], "user": {"login": "octo"}})
}

fn count_call(ctx: &Ctx<'_>) -> rquickjs::Result<tokio::runtime::Handle> {
    let st = ctx.userdata::<HostState>().expect("host state");
    let n = st.calls.fetch_add(1, Ordering::Relaxed) + 1;
    if n > st.max_calls {
        return Err(rquickjs::Exception::throw_message(ctx, &format!("API call limit ({}) reached", st.max_calls)));
    }
    Ok(st.handle.clone())
}

/// Async host function, string in / string out (JS side does JSON.stringify / JSON.parse).
async fn host_call_str<'js>(ctx: Ctx<'js>, name: String, args: String) -> rquickjs::Result<String> {
    let handle = count_call(&ctx)?;
    let _ = name;
    let args: serde_json::Value = serde_json::from_str(&args).unwrap_or_default();
    let i = args.get("i").and_then(|v| v.as_f64()).unwrap_or(0.0);
    let out = handle.spawn(async move { tool_result(i).to_string() }).await.unwrap();
    Ok(out)
}

/// Async host function, object in / object out via the engine's JSON conversion API
/// (`Ctx::json_stringify` of the argument, `Ctx::json_parse` of the result).
async fn host_call_obj<'js>(ctx: Ctx<'js>, _name: String, args: Value<'js>) -> rquickjs::Result<Value<'js>> {
    let handle = count_call(&ctx)?;
    let s = ctx.json_stringify(args)?.map(|s| s.to_string()).transpose()?.unwrap_or_default();
    let args: serde_json::Value = serde_json::from_str(&s).unwrap_or_default();
    let i = args.get("i").and_then(|v| v.as_f64()).unwrap_or(0.0);
    let out = handle.spawn(async move { tool_result(i).to_string() }).await.unwrap();
    ctx.json_parse(out)
}

/// A host promise that never resolves.
async fn host_hang<'js>(_ctx: Ctx<'js>) -> rquickjs::Result<String> {
    std::future::pending::<()>().await;
    Ok(String::new())
}

/// Sync host function for comparison.
fn host_call_sync(ctx: Ctx<'_>, _name: String, args: String) -> rquickjs::Result<String> {
    count_call(&ctx)?;
    let args: serde_json::Value = serde_json::from_str(&args).unwrap_or_default();
    let i = args.get("i").and_then(|v| v.as_f64()).unwrap_or(0.0);
    Ok(tool_result(i).to_string())
}

const PRELUDE: &str = r#"
const api = {};
for (const name of ["pulls_list", "issues_get"]) {
  api[name] = async (args) => JSON.parse(await __call(name, JSON.stringify(args ?? {})));
}
const api_obj = { pulls_list: (args) => __call_obj("pulls_list", args ?? {}) };
const api_sync = { pulls_list: (args) => JSON.parse(__call_sync("pulls_list", JSON.stringify(args ?? {}))) };
api.hang = () => __hang();
"#;

fn describe(ctx: &Ctx<'_>, e: rquickjs::Error) -> String {
    if let rquickjs::Error::Exception = e {
        let v = ctx.catch();
        if let Some(ex) = v.as_exception() {
            return format!(
                "{}: {}",
                if v.is_uncatchable_error() { "uncatchable" } else { "exception" },
                ex.message().unwrap_or_default()
            );
        }
        return format!("thrown: {:?}", ctx.json_stringify(v).ok().flatten().map(|s| s.to_string()));
    }
    e.to_string()
}

/// Run one script under the limits. Returns the JSON of its return value or an error text.
async fn run_script(src: String, lim: Limits, handle: tokio::runtime::Handle) -> Result<String, String> {
    let rt = AsyncRuntime::new().map_err(|e| e.to_string())?;
    rt.set_memory_limit(lim.mem).await;
    rt.set_max_stack_size(lim.stack).await;
    let deadline = Instant::now() + lim.wall;
    rt.set_interrupt_handler(Some(Box::new(move || Instant::now() >= deadline))).await;
    let ctx = AsyncContext::custom::<(
        intrinsic::Eval,
        intrinsic::Promise,
        intrinsic::Json,
        intrinsic::MapSet,
        intrinsic::RegExp,
        intrinsic::RegExpCompiler,
    )>(&rt)
    .await
    .map_err(|e| e.to_string())?;
    let fut = ctx.async_with(async move |ctx| -> Result<String, String> {
        ctx.store_userdata(HostState { calls: AtomicUsize::new(0), max_calls: lim.max_calls, handle })
            .map_err(|_| "userdata".to_string())?;
        let g = ctx.globals();
        g.set("__call", Func::from(Async(host_call_str))).map_err(|e| e.to_string())?;
        g.set("__call_obj", Func::from(Async(host_call_obj))).map_err(|e| e.to_string())?;
        g.set("__hang", Func::from(Async(host_hang))).map_err(|e| e.to_string())?;
        g.set("__call_sync", Func::from(host_call_sync)).map_err(|e| e.to_string())?;
        ctx.eval::<(), _>(PRELUDE).map_err(|e| describe(&ctx, e))?;
        let wrapped = format!("(async () => {{\n{src}\n}})().then(v => JSON.stringify(v === undefined ? null : v))");
        let p: Promise = ctx.eval(wrapped).map_err(|e| describe(&ctx, e))?;
        let r = p.into_future::<Option<String>>().await;
        r.map(|s| s.unwrap_or_default()).map_err(|e| describe(&ctx, e))
    });
    let out = match tokio::time::timeout_at(deadline.into(), fut).await {
        Err(_) => Err("wall time limit (host timeout)".to_string()),
        Ok(r) => r,
    }?;
    if out.len() > lim.max_output {
        return Err(format!("output {} bytes > cap {}", out.len(), lim.max_output));
    }
    Ok(out)
}

/// What the server does: the script in spawn_blocking, its runtime driven by block_on there.
async fn serve_one(src: &str, lim: Limits) -> Result<String, String> {
    let handle = tokio::runtime::Handle::current();
    let src = src.to_string();
    tokio::task::spawn_blocking(move || {
        let h2 = handle.clone();
        handle.block_on(run_script(src, lim, h2))
    })
    .await
    .map_err(|e| format!("join: {e}"))?
}

fn rss() -> String {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let get = |k: &str| {
        s.lines()
            .find(|l| l.starts_with(k))
            .map(|l| l.split_whitespace().nth(1).unwrap_or("?").to_string())
            .unwrap_or_default()
    };
    format!("RSS {} kB, peak {} kB", get("VmRSS:"), get("VmHWM:"))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

async fn startup() {
    // 1. the full async set-up the server would do per script (runtime, limits, context, eval).
    let mut t = Vec::new();
    for _ in 0..1000 {
        let t0 = Instant::now();
        let rt = AsyncRuntime::new().unwrap();
        rt.set_memory_limit(LIMITS.mem).await;
        let ctx = AsyncContext::custom::<(
            intrinsic::Eval,
            intrinsic::Promise,
            intrinsic::Json,
            intrinsic::MapSet,
            intrinsic::RegExp,
            intrinsic::RegExpCompiler,
        )>(&rt)
        .await
        .unwrap();
        let v: i32 = ctx.with(|ctx| ctx.eval("1+1").unwrap()).await;
        assert_eq!(v, 2);
        drop(ctx);
        drop(rt);
        t.push(t0.elapsed().as_secs_f64() * 1e6);
    }
    println!("startup async runtime+context(sandbox set)+eval 1+1: median {:.1} us", median(t));
    let mut t = Vec::new();
    for _ in 0..1000 {
        let t0 = Instant::now();
        let rt = rquickjs::Runtime::new().unwrap();
        let ctx = rquickjs::Context::full(&rt).unwrap();
        let v: i32 = ctx.with(|ctx| ctx.eval("1+1").unwrap());
        assert_eq!(v, 2);
        drop(ctx);
        drop(rt);
        t.push(t0.elapsed().as_secs_f64() * 1e6);
    }
    println!("startup sync runtime+full context+eval 1+1: median {:.1} us", median(t));
    // 2. the whole serve path with prelude and host fns (spawn_blocking + block_on).
    let mut t = Vec::new();
    for _ in 0..300 {
        let t0 = Instant::now();
        let r = serve_one("return 1+1", LIMITS).await.unwrap();
        assert_eq!(r, "2");
        t.push(t0.elapsed().as_secs_f64() * 1e6);
    }
    println!(
        "serve path (spawn_blocking, runtime, limits, 4 host fns, prelude, `return 1+1`): median {:.1} us",
        median(t)
    );
}

async fn calls() {
    let lim = Limits { max_calls: 1_000_000, wall: Duration::from_secs(60), ..LIMITS };
    let n = 10_000;
    let cases = [
        (
            "async host fn, JSON string in + JSON.parse out",
            format!(
                "let s=0; for (let i=0;i<{n};i++) {{ const r = await api.pulls_list({{owner:'o',repo:'r',i}}); s += r.id; }} return s"
            ),
        ),
        (
            "async host fn, object in/out via Ctx::json_stringify/json_parse",
            format!(
                "let s=0; for (let i=0;i<{n};i++) {{ const r = await api_obj.pulls_list({{owner:'o',repo:'r',i}}); s += r.id; }} return s"
            ),
        ),
        (
            "sync host fn, JSON string in + JSON.parse out",
            format!(
                "let s=0; for (let i=0;i<{n};i++) {{ const r = api_sync.pulls_list({{owner:'o',repo:'r',i}}); s += r.id; }} return s"
            ),
        ),
        (
            "baseline: await of a resolved JS promise (no host)",
            format!(
                "let s=0; for (let i=0;i<{n};i++) {{ const r = await Promise.resolve({{id:i}}); s += r.id; }} return s"
            ),
        ),
    ];
    for (name, src) in cases {
        let mut best = Vec::new();
        for _ in 0..5 {
            let t0 = Instant::now();
            let r = serve_one(&src, lim).await;
            let el = t0.elapsed();
            assert_eq!(r.as_deref(), Ok("49995000"), "{name}");
            best.push(el.as_secs_f64() * 1e6 / n as f64);
        }
        println!("per call, {name}: median {:.2} us (5 runs of {n})", median(best));
    }
    // Also directly as a tokio task (no spawn_blocking): needs the `parallel` feature (Send).
    let src = cases_direct(n);
    let t0 = Instant::now();
    let h = tokio::runtime::Handle::current();
    let r = tokio::spawn(run_script(src, lim, h)).await.unwrap();
    assert_eq!(r.as_deref(), Ok("49995000"));
    println!(
        "per call, async host fn run directly in tokio::spawn (no spawn_blocking): {:.2} us",
        t0.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}

fn cases_direct(n: usize) -> String {
    format!(
        "let s=0; for (let i=0;i<{n};i++) {{ const r = await api.pulls_list({{owner:'o',repo:'r',i}}); s += r.id; }} return s"
    )
}

async fn limits() {
    println!("before limits: {}", rss());
    let cases: &[(&str, &str)] = &[
        ("infinite loop", "while(true){}"),
        ("infinite loop in try/catch (try to swallow the interrupt)", "for(;;){ try { while(true){} } catch(e) {} }"),
        ("memory bomb: arrays", "let a=[]; while(true) a.push(new Array(1e6).fill(1))"),
        ("memory bomb: string doubling", "let s='x'; while(true) s = s + s"),
        (
            "memory bomb caught and retried",
            "let a=[]; for(;;){ try { while(true) a.push(new Array(1e6).fill(1)) } catch(e) { a.length = a.length; } }",
        ),
        ("deep recursion", "function f(){return f()} f()"),
        ("deep recursion through a native fn ([].map)", "function f(){ return [0].map(f) } f()"),
        ("deeply nested JSON.parse", "return JSON.parse('['.repeat(1e6))"),
        ("deeply nested source (parser recursion)", "return eval('('.repeat(1e6) + '1' + ')'.repeat(1e6))"),
        ("loop of heavy builtins (16 MB each), no OOM", "for(;;){ new Array(1e6).fill(1) }"),
        ("deep recursion, async", "async function f(){return await f()} await f()"),
        ("never-resolving host promise", "await api.hang(); return 1"),
        ("never-resolving JS promise", "await new Promise(() => {}); return 1"),
        ("API call limit (50)", "let n=0; for(;;){ await api.pulls_list({}); n++ }"),
        (
            "API call limit, caught by the script",
            "let n=0; for(let i=0;i<100;i++){ try { await api.pulls_list({}); n++ } catch(e) {} } return n",
        ),
        ("output cap (64 KiB)", "return 'x'.repeat(1e6)"),
        ("syntax error", "return )"),
    ];
    for (name, src) in cases {
        let t0 = Instant::now();
        let r = serve_one(src, LIMITS).await;
        let el = t0.elapsed();
        let r = match r {
            Ok(s) => format!("Ok({})", &s[..s.len().min(80)]),
            Err(e) => format!("Err({})", &e[..e.len().min(160)]),
        };
        println!("[{name}] after {:.1} ms: {r}; {}", el.as_secs_f64() * 1e3, rss());
        let ok = serve_one("const r = await api.pulls_list({i: 7}); return r.id", LIMITS).await;
        assert_eq!(ok.as_deref(), Ok("7"), "server keeps serving after {name}");
    }
    // Several limit hits at once, the server still serving others on the multi-thread runtime.
    let t0 = Instant::now();
    let mut hs = Vec::new();
    for _ in 0..4 {
        hs.push(tokio::spawn(async { serve_one("while(true){}", LIMITS).await }));
    }
    let ok_t = Instant::now();
    let ok = serve_one("return 40+2", LIMITS).await;
    let ok_el = ok_t.elapsed();
    for h in hs {
        assert!(h.await.unwrap().is_err());
    }
    println!(
        "4 concurrent infinite loops + 1 good script: good one {:?} in {:.1} ms, all done in {:.1} ms",
        ok,
        ok_el.as_secs_f64() * 1e3,
        t0.elapsed().as_secs_f64() * 1e3
    );
    println!("after limits: {}", rss());
}

async fn globals() {
    let lim = LIMITS;
    let r = serve_one("return Object.getOwnPropertyNames(globalThis).filter(n => !n.startsWith('__') && n !== 'api' && n !== 'api_obj' && n !== 'api_sync').sort()", lim).await;
    println!("globals of the sandbox context (base + Eval, Promise, Json, MapSet, RegExp): {}", r.unwrap());
    let rt = rquickjs::Runtime::new().unwrap();
    let ctx = rquickjs::Context::full(&rt).unwrap();
    let s: String = ctx.with(|ctx| ctx.eval("JSON.stringify(Object.getOwnPropertyNames(globalThis).sort())").unwrap());
    println!("globals of Context::full: {s}");
    let r = serve_one("return [typeof fetch, typeof require, typeof process, typeof Deno, typeof std, typeof os, typeof Date, typeof performance, typeof eval, typeof setTimeout, typeof console]", lim).await;
    println!("typeof fetch,require,process,Deno,std,os,Date,performance,eval,setTimeout,console: {}", r.unwrap());
    let r = serve_one("return eval('1+2')", lim).await;
    println!("eval: {r:?}");
    let r =
        serve_one(r#"return [Math.random() !== Math.random(), new Map([[1,2]]).size, "a-b".replace(/-/g, "+")]"#, lim)
            .await;
    println!("Math.random / import.meta: {r:?}");
    let r = serve_one("const m = await import('os'); return 1", lim).await;
    println!("dynamic import('os'): {r:?}");
}

fn send_check() {
    fn is_send<T: Send>() {}
    fn is_sync<T: Sync>() {}
    is_send::<AsyncRuntime>();
    is_sync::<AsyncRuntime>();
    is_send::<AsyncContext>();
    println!(
        "AsyncRuntime: Send + Sync, AsyncContext: Send (with feature `parallel`); the run_script future is Send (it is tokio::spawn'ed in `calls`)"
    );
    let _ = std::any::type_name::<Object>();
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "all".into());
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let t0 = Instant::now();
        match what.as_str() {
            "startup" => startup().await,
            "calls" => calls().await,
            "limits" => limits().await,
            "globals" => globals().await,
            "send" => send_check(),
            "src" => {
                let arg = std::env::args().nth(2).unwrap_or_default();
                let t0 = Instant::now();
                let r = serve_one(&arg, LIMITS).await;
                println!(
                    "after {:.1} ms: {:?}",
                    t0.elapsed().as_secs_f64() * 1e3,
                    r.map_err(|e| e[..e.len().min(120)].to_string())
                );
            }
            "hello" => println!("{:?}", serve_one("return 1+1", LIMITS).await),
            _ => {
                send_check();
                globals().await;
                startup().await;
                calls().await;
                limits().await;
            }
        }
        eprintln!("total {:.1} s", t0.elapsed().as_secs_f64());
    });
}
