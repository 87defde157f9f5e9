use super::*;

/// A host answering by function name: `echo` its arguments, `text` a string, `nothing` no
/// content, `fail` a failure, `hang` never; anything else is unknown.
struct Fake;

impl Host for Fake {
    fn call(&self, function: String, args: String) -> Pin<Box<dyn Future<Output = Reply> + Send>> {
        Box::pin(async move {
            match function.as_str() {
                "echo" => Reply::Json(args),
                "text" => Reply::Text("plain words".into()),
                "nothing" => Reply::Empty,
                "fail" => Reply::Failed("Invalid arguments for `fail`: \"id\" is a required property.".into()),
                "refuse" => Reply::Refused("Invalid arguments for `refuse`: \"id\" is a required property.".into()),
                "hang" => std::future::pending().await,
                other => Reply::Unknown(format!("api.{other} is not a function of this API")),
            }
        })
    }
}

fn limits() -> Limits {
    Limits { wall: Duration::from_millis(500), memory: 16 << 20, max_calls: 50, max_output: 10_000 }
}

async fn run_with(source: &str, limits: Limits) -> Outcome {
    run(source, limits, Arc::new(Fake)).await
}

async fn answer(source: &str) -> Result<Answer, Stop> {
    run_with(source, limits()).await.answer
}

/// After a script was stopped, the next one runs.
async fn still_serves() {
    assert_eq!(answer("return (await api.echo({n: 41})).n + 1").await, Ok(Answer::Json("42".into())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_value_is_returned_as_json_and_a_string_as_text() {
    assert_eq!(answer("return {a: [1, 2]}").await, Ok(Answer::Json(r#"{"a":[1,2]}"#.into())));
    assert_eq!(answer("return 'hi'").await, Ok(Answer::Text("hi".into())));
    assert_eq!(answer("const x = 1;").await, Ok(Answer::Json("null".into())));
    assert_eq!(answer("async () => { return 7 }").await, Ok(Answer::Json("7".into())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_functions_resolve_to_their_replies() {
    let out = run_with(
        "const a = await api.echo({owner: 'o'}); const t = await api.text(); const n = await api.nothing(); \
         return [a.owner, t, n]",
        limits(),
    )
    .await;
    assert_eq!(out.answer, Ok(Answer::Json(r#"["o","plain words",null]"#.into())));
    assert_eq!(out.calls, 3);
}

/// Only calls that went to the API are made: not an unknown function, nor a call refused before
/// it was sent; a failure after it was sent is one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_refused_before_sending_are_not_made() {
    let out = run_with(
        "for (const f of ['nope', 'refuse', 'fail', 'echo']) { try { await api[f]({}) } catch (e) {} } return 1",
        limits(),
    )
    .await;
    assert_eq!(out.answer, Ok(Answer::Json("1".into())));
    assert_eq!(out.calls, 2, "fail and echo");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_run_concurrently_with_promise_all() {
    let out =
        run_with("const r = await Promise.all([1,2,3].map(i => api.echo({i}))); return r.map(x => x.i)", limits())
            .await;
    assert_eq!(out.answer, Ok(Answer::Json("[1,2,3]".into())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_call_throws_an_api_error_the_script_can_catch() {
    let caught = answer(
        "try { await api.fail({}); return 'no' } catch (e) { return [e.name, e instanceof ApiError, e.tool, e.message] }",
    )
    .await;
    assert_eq!(
        caught,
        Ok(Answer::Json(
            r#"["ApiError",true,"fail","Invalid arguments for `fail`: \"id\" is a required property."]"#.into()
        ))
    );
    match answer("\n\nawait api.fail({})").await {
        Err(Stop::Threw(m)) => {
            assert!(m.starts_with("ApiError: Invalid arguments for `fail`"), "{m}");
            assert!(m.contains("(at line 3:"), "where in the script: {m}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_function_is_a_type_error() {
    match answer("await api.nope()").await {
        Err(Stop::Threw(m)) => assert!(m.contains("TypeError: api.nope is not a function of this API"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_syntax_error_says_so() {
    match answer("return {").await {
        Err(Stop::Threw(m)) => assert!(m.starts_with("SyntaxError"), "{m}"),
        other => panic!("{other:?}"),
    }
}

/// A syntax error names its line and column in the script, as a runtime error does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_syntax_error_names_its_line_and_column() {
    match answer("const a = 1;\nif (a > ) {}\nreturn a;").await {
        Err(Stop::Threw(m)) => assert!(m.starts_with("SyntaxError") && m.ends_with("(at line 2:9)"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn console_output_is_kept() {
    let out = run_with("console.log('n =', 3, {a: 1}); console.error('x'); return 1", limits()).await;
    assert_eq!(out.printed, "n = 3 {\"a\":1}\nx\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_infinite_loop_is_stopped_at_the_time_limit() {
    for source in
        ["while (true) {}", "for (;;) { try { while (true) {} } catch (e) {} }", "await api.echo({}); for (;;) {}"]
    {
        let started = Instant::now();
        assert_eq!(answer(source).await, Err(Stop::Time(limits().wall)), "{source}");
        assert!(started.elapsed() < Duration::from_secs(2), "{source}: {:?}", started.elapsed());
    }
    still_serves().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loop_of_heavy_builtins_is_stopped_near_the_time_limit() {
    let started = Instant::now();
    let lim = Limits { memory: 64 << 20, ..limits() };
    let out = run_with("for (;;) { new Array(1e6).fill(1) }", lim).await;
    assert_eq!(out.answer, Err(Stop::Time(lim.wall)));
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    still_serves().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_never_answers_is_stopped_at_the_time_limit() {
    assert_eq!(answer("await api.hang()").await, Err(Stop::Time(limits().wall)));
    still_serves().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_memory_bomb_is_stopped_at_the_memory_limit() {
    let bomb = "let a = []; while (true) a.push(new Array(1e5).fill(1))";
    assert_eq!(answer(bomb).await, Err(Stop::Memory(limits().memory)));
    match answer("let s = 'x'; while (true) s = s + s").await {
        Err(Stop::Memory(_)) | Err(Stop::Threw(_)) => {}
        other => panic!("{other:?}"),
    }
    still_serves().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_recursion_is_a_range_error() {
    for source in ["function f() { return f() } f()", "return eval('('.repeat(100000) + '1' + ')'.repeat(100000))"] {
        match answer(source).await {
            Err(Stop::Threw(m)) => assert!(m.contains("stack") || m.contains("RangeError"), "{source}: {m}"),
            other => panic!("{source}: {other:?}"),
        }
    }
    still_serves().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_calls_stop_the_script_even_if_it_catches() {
    let out = run_with(
        "for (let i = 0; i < 10000; i++) { try { await api.echo({i}) } catch (e) {} } return 'done'",
        limits(),
    )
    .await;
    assert_eq!(out.answer, Err(Stop::Calls(50)));
    assert_eq!(out.calls, 50);
    still_serves().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_much_output_stops_the_script() {
    let roomy = Limits { memory: 64 << 20, ..limits() };
    assert_eq!(run_with("return 'x'.repeat(10 * 1024 * 1024)", roomy).await.answer, Err(Stop::Output(10_000)));
    assert_eq!(
        answer("for (;;) { try { console.log('y'.repeat(1000)) } catch (e) {} }").await,
        Err(Stop::Output(10_000))
    );
    still_serves().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_too_long_is_not_run() {
    let long = "1;".repeat(MAX_SOURCE);
    assert_eq!(answer(&long).await, Err(Stop::TooLong(long.len())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_but_the_api_reaches_out() {
    let probe = "return [typeof fetch, typeof require, typeof process, typeof Date, typeof performance, \
                 typeof setTimeout, typeof XMLHttpRequest, typeof std, typeof os, typeof Deno, typeof __call, \
                 typeof __print]";
    let all_undefined = format!("[{}]", ["\"undefined\""; 12].join(","));
    assert_eq!(answer(probe).await, Ok(Answer::Json(all_undefined)));
    match answer("await import('os')").await {
        Err(Stop::Threw(m)) => assert!(!m.is_empty()),
        other => panic!("dynamic import must fail: {other:?}"),
    }
    // `api` cannot be replaced or extended.
    assert_eq!(answer("api.x = 1; return typeof api.x").await, Ok(Answer::Text("function".into())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_script_stops_and_frees_its_slot() {
    let slots = Arc::new(tokio::sync::Semaphore::new(1));
    let slot = slots.clone().acquire_owned().await.unwrap();
    let long = Limits { wall: Duration::from_secs(30), ..limits() };
    let task = tokio::spawn(async move { run_in("while (true) {}", long, Arc::new(Fake), Some(slot)).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    task.abort();
    let freed = tokio::time::timeout(Duration::from_secs(5), slots.acquire()).await;
    assert!(freed.is_ok(), "the script's thread ended and gave its slot back");
    still_serves().await;
}
