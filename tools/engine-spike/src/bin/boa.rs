//! Boa spike: start-up, per-call overhead, limits, globals.
//!
//! `boa all` runs every measurement except the dangerous ones; `boa case NAME` runs one limit case
//! (run the memory bomb under `prlimit --as=...`: Boa has no memory limit).
//! Host model: tokio multi-thread runtime; Boa's `Context` is `!Send`, so each script runs on a
//! `spawn_blocking` thread with `Handle::block_on`; host calls are tokio tasks on the server runtime.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

use boa_engine::builtins::promise::PromiseState;
use boa_engine::job::{JobExecutor, SimpleJobExecutor};
use boa_engine::object::builtins::JsPromise;
use boa_engine::property::Attribute;
use boa_engine::vm::RuntimeLimits;
use boa_engine::{Context, JsError, JsNativeError, JsResult, JsValue, NativeFunction, Script, Source, js_string};

#[derive(Clone, Copy)]
struct Limits {
    wall: Duration,
    loop_iterations: u64,
    recursion: usize,
    stack: usize,
    max_calls: usize,
    max_output: usize,
}

const LIMITS: Limits = Limits {
    wall: Duration::from_millis(1000),
    loop_iterations: 10_000_000,
    recursion: 512,
    stack: 1024 * 10,
    max_calls: 50,
    max_output: 64 << 10,
};

thread_local! {
    static CALLS: Cell<usize> = const { Cell::new(0) };
    static MAX_CALLS: Cell<usize> = const { Cell::new(0) };
    static HANDLE: RefCell<Option<tokio::runtime::Handle>> = const { RefCell::new(None) };
}

fn tool_result(i: f64) -> serde_json::Value {
    serde_json::json!({"id": i, "title": "Fix the thing", "state": "open", "labels": ["bug"], "user": {"login": "octo"}})
}

fn count_call() -> JsResult<tokio::runtime::Handle> {
    let n = CALLS.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    let max = MAX_CALLS.with(|c| c.get());
    if n > max {
        return Err(JsNativeError::error().with_message(format!("API call limit ({max}) reached")).into());
    }
    Ok(HANDLE.with(|h| h.borrow().clone().unwrap()))
}

fn arg_i(v: &serde_json::Value) -> f64 {
    v.get("i").and_then(|v| v.as_f64()).unwrap_or(0.0)
}

/// async host fn: (name, argsJson) -> resultJson string; JS side JSON.parse.
async fn host_call_str(_this: &JsValue, args: &[JsValue], ctx: &RefCell<&mut Context>) -> JsResult<JsValue> {
    let handle = count_call()?;
    let a = args.get(1).cloned().unwrap_or_default();
    let s = a.to_string(&mut ctx.borrow_mut())?.to_std_string_escaped();
    let v: serde_json::Value = serde_json::from_str(&s).unwrap_or_default();
    let i = arg_i(&v);
    let out = handle.spawn(async move { tool_result(i).to_string() }).await.unwrap();
    Ok(JsValue::from(js_string!(out)))
}

/// async host fn: (name, object) -> object, via JsValue::to_json / JsValue::from_json.
async fn host_call_obj(_this: &JsValue, args: &[JsValue], ctx: &RefCell<&mut Context>) -> JsResult<JsValue> {
    let handle = count_call()?;
    let a = args.get(1).cloned().unwrap_or_default();
    let v = a.to_json(&mut ctx.borrow_mut())?.unwrap_or_default();
    let i = arg_i(&v);
    let out = handle.spawn(async move { tool_result(i) }).await.unwrap();
    JsValue::from_json(&out, &mut ctx.borrow_mut())
}

async fn host_hang(_this: &JsValue, _args: &[JsValue], _ctx: &RefCell<&mut Context>) -> JsResult<JsValue> {
    std::future::pending::<()>().await;
    Ok(JsValue::undefined())
}

fn host_call_sync(_this: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    count_call()?;
    let a = args.get(1).cloned().unwrap_or_default();
    let s = a.to_string(ctx)?.to_std_string_escaped();
    let v: serde_json::Value = serde_json::from_str(&s).unwrap_or_default();
    Ok(JsValue::from(js_string!(tool_result(arg_i(&v)).to_string())))
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

fn err_text(e: JsError, ctx: &mut Context) -> String {
    match e.try_native(ctx) {
        Ok(n) => format!("{}: {}", n.kind(), n.message()),
        Err(_) => match e.into_opaque(ctx) {
            Ok(v) => format!("thrown: {}", v.display()),
            Err(e2) => format!("thrown: {e2}"),
        },
    }
}

fn new_context(lim: &Limits) -> (Context, Rc<SimpleJobExecutor>) {
    let exec = Rc::new(SimpleJobExecutor::new());
    let mut ctx = Context::builder().job_executor(exec.clone()).build().unwrap();
    let mut rl = RuntimeLimits::default();
    rl.set_loop_iteration_limit(lim.loop_iterations);
    rl.set_recursion_limit(lim.recursion);
    rl.set_stack_size_limit(lim.stack);
    ctx.set_runtime_limits(rl);
    (ctx, exec)
}

async fn run_script(src: String, lim: Limits) -> Result<String, String> {
    CALLS.with(|c| c.set(0));
    MAX_CALLS.with(|c| c.set(lim.max_calls));
    let deadline = Instant::now() + lim.wall;
    let (mut ctx, exec) = new_context(&lim);
    let attr = Attribute::all();
    ctx.register_global_builtin_callable(js_string!("__call"), 2, NativeFunction::from_async_fn(host_call_str))
        .unwrap();
    ctx.register_global_builtin_callable(js_string!("__call_obj"), 2, NativeFunction::from_async_fn(host_call_obj))
        .unwrap();
    ctx.register_global_builtin_callable(js_string!("__hang"), 0, NativeFunction::from_async_fn(host_hang)).unwrap();
    ctx.register_global_builtin_callable(js_string!("__call_sync"), 2, NativeFunction::from_fn_ptr(host_call_sync))
        .unwrap();
    let _ = attr;
    ctx.eval(Source::from_bytes(PRELUDE)).map_err(|e| err_text(e, &mut ctx))?;
    let wrapped = format!("(async () => {{\n{src}\n}})().then(v => JSON.stringify(v === undefined ? null : v))");
    let fut = async {
        let script = Script::parse(Source::from_bytes(&wrapped), None, &mut ctx).map_err(|e| err_text(e, &mut ctx))?;
        // The synchronous part runs with a budget (yields to tokio, so the timeout can fire).
        let p = script.evaluate_async_with_budget(&mut ctx, 10_000).await.map_err(|e| err_text(e, &mut ctx))?;
        let p = JsPromise::from_object(p.as_object().unwrap().clone()).unwrap();
        // Promise jobs and async host calls.
        let r = exec.clone().run_jobs_async(&RefCell::new(&mut ctx)).await;
        r.map_err(|e| err_text(e, &mut ctx))?;
        match p.state() {
            PromiseState::Fulfilled(v) => Ok(v.as_string().map(|s| s.to_std_string_escaped()).unwrap_or_default()),
            PromiseState::Rejected(e) => Err(err_text(JsError::from_opaque(e), &mut ctx)),
            PromiseState::Pending => Err("promise still pending after the job queue emptied".into()),
        }
    };
    let out = match tokio::time::timeout_at(deadline.into(), fut).await {
        Err(_) => Err("wall time limit (host timeout)".to_string()),
        Ok(r) => r,
    }?;
    if out.len() > lim.max_output {
        return Err(format!("output {} bytes > cap {}", out.len(), lim.max_output));
    }
    Ok(out)
}

async fn serve_one(src: &str, lim: Limits) -> Result<String, String> {
    let handle = tokio::runtime::Handle::current();
    let src = src.to_string();
    tokio::task::spawn_blocking(move || {
        HANDLE.with(|h| *h.borrow_mut() = Some(handle.clone()));
        handle.block_on(run_script(src, lim))
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
    let mut t = Vec::new();
    for _ in 0..300 {
        let t0 = Instant::now();
        let (mut ctx, _e) = new_context(&LIMITS);
        let v = ctx.eval(Source::from_bytes("1+1")).unwrap();
        assert_eq!(v.as_number(), Some(2.0));
        drop(ctx);
        t.push(t0.elapsed().as_secs_f64() * 1e6);
    }
    println!("startup context (default intrinsics) + eval 1+1: median {:.1} us", median(t));
    let mut t = Vec::new();
    for _ in 0..300 {
        let t0 = Instant::now();
        let r = serve_one("return 1+1", LIMITS).await.unwrap();
        assert_eq!(r, "2");
        t.push(t0.elapsed().as_secs_f64() * 1e6);
    }
    println!(
        "serve path (spawn_blocking, context, limits, 4 host fns, prelude, `return 1+1`): median {:.1} us",
        median(t)
    );
}

async fn calls() {
    let lim = Limits { max_calls: 1_000_000, wall: Duration::from_secs(120), ..LIMITS };
    let n = 10_000;
    let cases = [
        (
            "async host fn, JSON string in + JSON.parse out",
            format!(
                "let s=0; for (let i=0;i<{n};i++) {{ const r = await api.pulls_list({{owner:'o',repo:'r',i}}); s += r.id; }} return s"
            ),
        ),
        (
            "async host fn, object in/out via JsValue::to_json/from_json",
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
        for _ in 0..3 {
            let t0 = Instant::now();
            let r = serve_one(&src, lim).await;
            let el = t0.elapsed();
            assert_eq!(r.as_deref(), Ok("49995000"), "{name}");
            best.push(el.as_secs_f64() * 1e6 / n as f64);
        }
        println!("per call, {name}: median {:.2} us (3 runs of {n})", median(best));
    }
}

const CASES: &[(&str, &str)] = &[
    ("infinite loop", "while(true){}"),
    ("infinite loop after an await", "await api.pulls_list({}); while(true){}"),
    ("infinite loop in try/catch (try to swallow the limit)", "for(;;){ try { while(true){} } catch(e) {} }"),
    ("deep recursion", "function f(){return f()} f()"),
    ("deep recursion through a native fn ([].map)", "function f(){ return [0].map(f) } f()"),
    ("deeply nested JSON.parse", "return JSON.parse('['.repeat(1e6))"),
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
    ("loop of heavy builtins (8-16 MB each), no OOM", "for(;;){ new Array(1e6).fill(1) }"),
];
const DANGEROUS: &[(&str, &str)] = &[
    ("deeply nested source (parser recursion)", "return eval('('.repeat(1e6) + '1' + ')'.repeat(1e6))"),
    ("memory bomb: arrays", "let a=[]; while(true) a.push(new Array(1e6).fill(1))"),
    ("memory bomb: string doubling", "let s='x'; while(true) s = s + s"),
];

async fn one(name: &str, src: &str) {
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

async fn limits() {
    println!("before limits: {}", rss());
    for (name, src) in CASES {
        one(name, src).await;
    }
    println!("after limits: {}", rss());
}

async fn globals() {
    let r = serve_one(
        "return Object.getOwnPropertyNames(globalThis).filter(n => !n.startsWith('__') && !n.startsWith('api')).sort()",
        LIMITS,
    )
    .await;
    println!("globals of a default Context: {}", r.unwrap());
    let r = serve_one("return [typeof fetch, typeof require, typeof process, typeof Deno, typeof console, typeof setTimeout, typeof Date, typeof performance, typeof eval, Date.now() > 0, typeof Temporal]", LIMITS).await;
    println!(
        "typeof fetch,require,process,Deno,console,setTimeout,Date,performance,eval; Date.now()>0; Temporal: {}",
        r.unwrap()
    );
    let r = serve_one("const m = await import('fs'); return 1", LIMITS).await;
    println!("dynamic import('fs'): {r:?}");
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "all".into());
    let arg = std::env::args().nth(2).unwrap_or_default();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let t0 = Instant::now();
        match what.as_str() {
            "startup" => startup().await,
            "calls" => calls().await,
            "limits" => limits().await,
            "globals" => globals().await,
            "case" => {
                let (name, src) =
                    CASES.iter().chain(DANGEROUS).find(|(n, _)| n.starts_with(arg.as_str())).expect("case");
                one(name, src).await;
            }
            "src" => {
                // boa src 'SCRIPT' [LOOP_LIMIT]
                let mut lim = LIMITS;
                if let Some(l) = std::env::args().nth(3) {
                    lim.loop_iterations = l.parse().unwrap();
                }
                let t0 = Instant::now();
                let r = serve_one(&arg, lim).await;
                println!(
                    "after {:.1} ms: {:?}",
                    t0.elapsed().as_secs_f64() * 1e3,
                    r.map_err(|e| e[..e.len().min(120)].to_string())
                );
            }
            "hello" => println!("{:?}", serve_one("return 1+1", LIMITS).await),
            _ => {
                globals().await;
                startup().await;
                calls().await;
                limits().await;
            }
        }
        eprintln!("total {:.1} s", t0.elapsed().as_secs_f64());
    });
}
