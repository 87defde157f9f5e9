//! The end-to-end checks, run against a subject: `mcpgen serve SPEC` (tests/e2e.rs) or a
//! generated crate's binary (tests/generate.rs), which must behave the same.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::*;

/// Credentials the e2e API's schemes read from the environment.
pub const CREDS: [(&str, &str); 8] = [
    ("E2E_TEST_API_HEADER_KEY", "hk"),
    ("E2E_TEST_API_QUERY_KEY", "qk"),
    ("E2E_TEST_API_COOKIE_KEY", "ck"),
    ("E2E_TEST_API_BEARER_TOKEN", "bt"),
    ("E2E_TEST_API_BASIC_USERNAME", "u"),
    ("E2E_TEST_API_BASIC_PASSWORD", "p"),
    ("E2E_TEST_API_OAUTH_CLIENT_ID", "cid"),
    ("E2E_TEST_API_OAUTH_CLIENT_SECRET", "cs"),
];

/// What is under test.
pub enum Subject {
    /// `mcpgen serve SPEC`.
    Serve(PathBuf),
    /// `mcpgen serve SPEC` sending every upstream request through reqwest, as for `https://`
    /// (`MCPGEN_UPSTREAM_CLIENT=reqwest`; plain `http://` goes through hyper's client directly).
    ServeReqwest(PathBuf),
    /// A generated crate's binary (the API is built in).
    Binary(PathBuf),
}

impl Subject {
    /// The command for a server of this subject toward `base_url`, with the e2e credentials.
    pub fn command(&self, base_url: &str, extra: &[&str]) -> ServerCommand {
        let mut cmd = match self {
            Subject::Serve(spec) | Subject::ServeReqwest(spec) => {
                let mut args = vec!["serve", spec.to_str().unwrap(), "--base-url", base_url];
                args.extend_from_slice(extra);
                let cmd = ServerCommand::mcpgen(&args);
                if matches!(self, Subject::ServeReqwest(_)) {
                    cmd.env("MCPGEN_UPSTREAM_CLIENT", "reqwest")
                } else {
                    cmd
                }
            }
            Subject::Binary(bin) => {
                let mut args = vec!["--base-url".to_string(), base_url.to_string()];
                args.extend(extra.iter().map(|s| s.to_string()));
                ServerCommand { program: bin.display().to_string(), args, env: Default::default() }
            }
        };
        for (k, v) in CREDS {
            cmd = cmd.env(k, v);
        }
        cmd
    }
}

/// Every check, in turn (one mock for all).
pub async fn all(subject: &Subject, mock: &Mock) {
    parameters(subject, mock).await;
    bodies(subject, mock).await;
    auth(subject, mock).await;
    responses(subject, mock).await;
    faults(subject, mock).await;
    lists(subject, mock).await;
    redirects(subject, mock).await;
    discovery(subject, mock).await;
    discovery_threshold(subject, mock).await;
    nulls(subject, mock).await;
    surfaces(subject, mock).await;
    untrusted_text(subject, mock).await;
}

pub fn ok(r: &rmcp::model::CallToolResult) {
    assert_eq!(r.is_error, Some(false), "{}", text(r));
}

pub async fn parameters(subject: &Subject, mock: &Mock) {
    let cmd = subject.command(&format!("{}/api", mock.url()), &[]);
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;

        ok(&c.call("pathSimple", json!({"id": "a b/../c", "list": [1, 2], "obj": {"a": "x", "b": 2}})).await);
        let r = mock.last();
        assert_eq!(
            (r.method.as_str(), r.path.as_str()),
            ("GET", "/api/path/simple/a%20b%2F..%2Fc/1,2/a=x,b=2"),
            "{transport:?}"
        );
        assert_eq!(r.header("x-api-key"), Some("hk"), "default security applies");

        ok(&c.call("pathLabelMatrix", json!({"l": ["x", "y"], "m": ["p", "q"]})).await);
        assert_eq!(mock.last().path, "/api/path/label/.x.y/matrix/;m=p,q");

        let args = json!({"formExploded": ["a", "b"], "formFlat": ["c", "d"], "spaced": [1, 2], "piped": [3, 4],
                          "filter": {"name": "Al", "age": 30}, "q": "x&y=z #", "limit": 5});
        ok(&c.call("queryStyles", args).await);
        let r = mock.last();
        assert_eq!(r.path, "/api/query");
        assert_eq!(
            r.query.as_deref(),
            Some(
                "formExploded=a&formExploded=b&formFlat=c,d&spaced=1%202&piped=3|4&filter[age]=30&filter[name]=Al&q=x%26y%3Dz%20%23&limit=5"
            )
        );

        ok(&c
            .call(
                "headersAndCookies",
                json!({"X-Request-ID": "r1", "X-Tags": ["a", "b"], "session": "s1", "theme": "dark"}),
            )
            .await);
        let r = mock.last();
        assert_eq!(r.header("x-request-id"), Some("r1"));
        assert_eq!(r.header("x-tags"), Some("a,b"));
        assert_eq!(r.header("cookie"), Some("session=s1; theme=dark"));
        assert_eq!(r.header("accept"), Some("application/json, */*;q=0.8"));

        // Invalid values never reach the upstream.
        mock.clear();
        for (tool, args) in [
            ("queryStyles", json!({"limit": 500})),
            ("headersAndCookies", json!({"X-Request-ID": "a\r\nX-Evil: 1"})),
            ("pathSimple", json!({"id": "..", "list": [1], "obj": {}})),
            ("pathSimple", json!({"id": "x"})),
        ] {
            let r = c.call(tool, args).await;
            assert_eq!(r.is_error, Some(true), "{tool}: {}", text(&r));
            assert!(text(&r).contains("Invalid arguments"), "{}", text(&r));
        }
        assert!(mock.requests().is_empty(), "{:?}", mock.requests());
        c.client.cancel().await.unwrap();
    }
}

pub async fn bodies(subject: &Subject, mock: &Mock) {
    let cmd = subject.command(&format!("{}/api", mock.url()), &[]);
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;

        ok(&c
            .call(
                "updatePet",
                json!({"id": 5, "name": "q", "body_name": "Rex", "tags": ["t"], "owner": {"email": "e@x"}}),
            )
            .await);
        let r = mock.last();
        assert_eq!(
            (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
            ("PUT", "/api/pets/5", Some("name=q")),
            "{transport:?}"
        );
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(
            serde_json::from_slice::<Value>(&r.body).unwrap(),
            json!({"name": "Rex", "tags": ["t"], "owner": {"email": "e@x"}})
        );

        ok(&c.call("postBatch", json!({"body": [{"n": 1}, {"n": 2}]})).await);
        assert_eq!(serde_json::from_slice::<Value>(&mock.last().body).unwrap(), json!([{"n": 1}, {"n": 2}]));

        ok(&c.call("postForm", json!({"name": "A B&C", "count": 3, "colors": ["r", "g"]})).await);
        let r = mock.last();
        assert_eq!(r.header("content-type"), Some("application/x-www-form-urlencoded"));
        assert_eq!(&r.body[..], b"colors=r&colors=g&count=3&name=A+B%26C");

        ok(&c.call("uploadFile", json!({"file": "iVBORw0KGgo=", "description": "a png"})).await);
        let r = mock.last();
        let ct = r.header("content-type").unwrap().to_string();
        assert!(ct.starts_with("multipart/form-data; boundary="), "{ct}");
        let body = r.body.to_vec();
        let find = |needle: &[u8]| body.windows(needle.len()).any(|w| w == needle);
        assert!(find(b"Content-Disposition: form-data; name=\"file\"; filename=\"file\"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n"), "{}", String::from_utf8_lossy(&body));
        assert!(find(b"Content-Disposition: form-data; name=\"description\"\r\n\r\na png\r\n"));

        ok(&c.call("uploadRaw", json!({"body": "AAEC/w=="})).await);
        let r = mock.last();
        assert_eq!((r.header("content-type"), &r.body[..]), (Some("application/octet-stream"), &[0u8, 1, 2, 255][..]));

        ok(&c.call("postNote", json!({"body": "hello world"})).await);
        let r = mock.last();
        assert_eq!((r.header("content-type"), &r.body[..]), (Some("text/plain"), &b"hello world"[..]));
        c.client.cancel().await.unwrap();
    }
}

pub async fn auth(subject: &Subject, mock: &Mock) {
    let cmd = subject.command(&format!("{}/api", mock.url()), &[]);
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;
        let tokens_before = mock.tokens_issued();
        type Check<'a> = &'a dyn Fn(&Recorded);
        let cases: [(&str, Check); 7] = [
            ("authHeaderKey", &|r| assert_eq!(r.header("x-api-key"), Some("hk"))),
            ("authQueryKey", &|r| assert_eq!(r.query.as_deref(), Some("api_key=qk"))),
            ("authCookieKey", &|r| assert_eq!(r.header("cookie"), Some("auth=ck"))),
            ("authBearer", &|r| assert_eq!(r.header("authorization"), Some("Bearer bt"))),
            ("authBasic", &|r| assert_eq!(r.header("authorization"), Some("Basic dTpw"))),
            ("authEither", &|r| {
                assert_eq!((r.query.as_deref(), r.header("authorization")), (Some("api_key=qk"), None))
            }),
            ("authNone", &|r| {
                assert!(r.header("authorization").is_none() && r.header("x-api-key").is_none() && r.query.is_none())
            }),
        ];
        for (tool, check) in cases {
            ok(&c.call(tool, json!({})).await);
            check(&mock.last());
        }
        // OAuth2 client credentials: one token fetch, then the cached token.
        for _ in 0..2 {
            ok(&c.call("authOAuth", json!({})).await);
        }
        assert_eq!(mock.tokens_issued(), tokens_before + 1, "{transport:?}: token cached");
        let token_req = mock.requests().into_iter().rev().find(|r| r.path == "/oauth/token").unwrap();
        assert_eq!(token_req.header("authorization"), Some("Basic Y2lkOmNz"));
        assert_eq!(&token_req.body[..], b"grant_type=client_credentials&scope=read");
        assert!(mock.last().header("authorization").unwrap().starts_with("Bearer tok-"));
        c.client.cancel().await.unwrap();
    }
}

pub async fn responses(subject: &Subject, mock: &Mock) {
    let cmd = subject.command(&format!("{}/api", mock.url()), &[]);
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;
        mock.reply_next(Reply::Json(200, json!([1, 2, 3])));
        let r = c.call("fault", json!({})).await;
        ok(&r);
        // Lean: the JSON as text, and no structuredContent without an output schema.
        assert_eq!((text(&r).as_str(), r.structured_content.is_none()), ("[1,2,3]", true));

        mock.reply_next(Reply::Raw(200, "text/plain", b"plain words".to_vec()));
        let r = c.call("fault", json!({})).await;
        assert_eq!((text(&r).as_str(), r.structured_content.is_none()), ("plain words", true));

        mock.reply_next(Reply::Raw(200, "image/png", vec![0x89, b'P', b'N', b'G']));
        let r = c.call("fault", json!({})).await;
        let image = r.content[0].as_image().expect("image content");
        assert_eq!((image.data.as_str(), image.mime_type.as_str()), ("iVBORw==", "image/png"));

        mock.reply_next(Reply::Raw(200, "application/pdf", vec![0x25, 0xff, 0x00]));
        let r = c.call("fault", json!({})).await;
        assert!(r.content[0].as_resource().is_some(), "{:?}", r.content);

        mock.reply_next(Reply::Json(404, json!({"message": "no such pet"})));
        let r = c.call("fault", json!({})).await;
        assert_eq!((r.is_error, r.structured_content.is_none()), (Some(true), true));
        assert!(
            text(&r).starts_with("HTTP 404 Not Found from GET /fault") && text(&r).contains("no such pet"),
            "{}",
            text(&r)
        );

        mock.reply_next(Reply::Json(401, json!({"message": "bad key"})));
        let r = c.call("fault", json!({})).await;
        assert!(text(&r).contains("set the environment variable E2E_TEST_API_HEADER_KEY"), "{}", text(&r));
        c.client.cancel().await.unwrap();
    }
}

pub async fn faults(subject: &Subject, mock: &Mock) {
    let cmd = subject.command(&format!("{}/api", mock.url()), &["--timeout", "1", "--max-response-bytes", "100000"]);
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;
        let still_serving = || async { ok(&c.call("authNone", json!({})).await) };

        mock.reply_next(Reply::Slow(std::time::Duration::from_secs(3)));
        let r = c.call("authNone", json!({})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(text(&r).contains("timed out after 1 s"), "{}", text(&r));
        still_serving().await;

        mock.reply_next(Reply::Json(500, json!({"error": "boom"})));
        let r = c.call("authNone", json!({})).await;
        assert!(
            r.is_error == Some(true)
                && text(&r).contains("HTTP 500 Internal Server Error")
                && text(&r).contains("boom")
        );
        still_serving().await;

        // 503 on an idempotent GET is retried once, then succeeds.
        mock.clear();
        mock.reply_next(Reply::Json(503, json!({})));
        ok(&c.call("authNone", json!({})).await);
        assert_eq!(mock.requests().len(), 2, "retried once");

        mock.reply_next(Reply::ResetMidBody);
        let r = c.call("authNone", json!({})).await;
        assert_eq!(r.is_error, Some(true), "{}", text(&r));
        still_serving().await;

        mock.reply_next(Reply::Trickle(5, std::time::Duration::from_millis(50)));
        let r = c.call("authNone", json!({})).await;
        assert_eq!(text(&r), "[1,2,3,4,0]");

        mock.reply_next(Reply::Huge(50 * 1024 * 1024));
        let r = c.call("authNone", json!({})).await;
        let t = text(&r);
        // The end of the text, where the note is (all of it when it is short).
        let end = t.get(t.len().saturating_sub(200)..).unwrap_or(&t);
        assert!(t.contains("[... truncated: the response exceeded 100000 bytes"), "{end}");
        assert!(t.len() < 100_300);
        still_serving().await;

        mock.reply_next(Reply::Raw(200, "application/json", b"{not json".to_vec()));
        let r = c.call("authNone", json!({})).await;
        assert!(text(&r).contains("invalid JSON") && r.structured_content.is_none(), "{}", text(&r));
        still_serving().await;
        c.client.cancel().await.unwrap();
    }

    // Connection refused: nothing listens at the base URL.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let cmd = subject.command(&format!("http://{closed}"), &["--retries", "0"]);
    let c = connect(&cmd, Transport::Stdio).await;
    let r = c.call("authNone", json!({})).await;
    assert!(r.is_error == Some(true) && text(&r).contains("could not connect"), "{}", text(&r));
    c.client.cancel().await.unwrap();
}

pub async fn lists(subject: &Subject, mock: &Mock) {
    let cmd = subject.command(&format!("{}/api", mock.url()), &[]);
    let mut lists = Vec::new();
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;
        let err = c.try_call("noSuchTool", json!({})).await.unwrap_err().to_string();
        assert!(err.contains("-32602") || err.contains("unknown tool"), "{err}");
        let tools = c.client.list_all_tools().await.unwrap();
        lists.push(serde_json::to_value(&tools).unwrap());
        c.client.cancel().await.unwrap();
    }
    assert_eq!(lists[0], lists[1], "the same list over both transports");
    let names: Vec<&str> = lists[0].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 24);
    assert_eq!(names[..3], ["authBasic", "authBearer", "authCookieKey"]);
}

pub async fn redirects(subject: &Subject, mock: &Mock) {
    let other = start_mock().await;
    let cmd = subject.command(&format!("{}/api", mock.url()), &[]);
    let c = connect(&cmd, Transport::Stdio).await;
    mock.reply_next(Reply::Redirect(format!("{}/api/auth/none", mock.url())));
    ok(&c.call("authHeaderKey", json!({})).await);
    assert_eq!(mock.last().path, "/api/auth/none", "same-origin redirect followed");

    mock.reply_next(Reply::Redirect(format!("{}/steal", other.url())));
    let r = c.call("authHeaderKey", json!({})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).starts_with("HTTP 302 Found"), "{}", text(&r));
    assert!(other.requests().is_empty(), "credentials never go to another origin");
    c.client.cancel().await.unwrap();
}

fn names(tools: &[rmcp::model::Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.to_string()).collect()
}

/// What the upstream saw of a request, for comparing two calls.
fn seen(r: &Recorded) -> (String, String, Option<String>, Option<String>, Vec<u8>) {
    (r.method.clone(), r.path.clone(), r.query.clone(), r.header("content-type").map(str::to_string), r.body.to_vec())
}

/// Discovery mode: three tools (and the pinned ones); search -> describe -> call_tool reaches the
/// upstream with exactly the request of a direct call, and gives the same result and errors.
pub async fn discovery(subject: &Subject, mock: &Mock) {
    let cmd = subject.command(&format!("{}/api", mock.url()), &["--tool-mode", "discovery", "--pin-tool", "authB*"]);
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;
        let listed = c.client.list_all_tools().await.unwrap();
        assert_eq!(
            names(&listed),
            ["search_tools", "describe_tools", "call_tool", "authBasic", "authBearer"],
            "{transport:?}"
        );
        let search = &listed[0];
        let ann = search.annotations.as_ref().unwrap();
        assert_eq!((ann.read_only_hint, ann.open_world_hint), (Some(true), Some(false)));
        let call = listed[2].annotations.as_ref().unwrap();
        assert_eq!(
            (call.read_only_hint, call.destructive_hint, call.open_world_hint),
            (Some(false), Some(true), Some(true))
        );
        let info = c.client.peer_info().unwrap();
        let instructions = info.instructions.as_deref().unwrap_or("");
        assert!(instructions.contains("search_tools finds tools"), "{instructions}");

        let r = c.call("search_tools", json!({"query": "upload a file", "limit": 3})).await;
        ok(&r);
        let hits = &r.structured_content.as_ref().unwrap()["tools"];
        assert_eq!(hits[0]["name"], "uploadFile", "{hits}");
        assert_eq!((hits[0]["method"].as_str(), hits[0]["path"].as_str()), (Some("POST"), Some("/upload")));
        assert!(hits.as_array().unwrap().len() <= 3);
        assert!(text(&r).starts_with("uploadFile  POST /upload"), "{}", text(&r));

        let r = c.call("describe_tools", json!({"names": ["postForm", "nope"]})).await;
        ok(&r);
        let described = &r.structured_content.as_ref().unwrap();
        assert_eq!(described["tools"][0]["name"], "postForm");
        let props = described["tools"][0]["inputSchema"]["properties"].as_object().unwrap();
        assert!(props.contains_key("colors") && props.contains_key("count"), "{described}");
        assert_eq!(described["unknown"][0]["name"], "nope");

        let args = json!({"name": "A B&C", "count": 3, "colors": ["r", "g"]});
        let via = c.call("call_tool", json!({"name": "postForm", "arguments": args})).await;
        ok(&via);
        let through = seen(&mock.last());
        let direct = c.call("postForm", args).await;
        assert_eq!(seen(&mock.last()), through, "call_tool sends exactly the direct call's request");
        assert_eq!((via.content.clone(), via.structured_content.clone()), (direct.content, direct.structured_content));

        let before = mock.requests().len();
        let bad = json!({"count": "three"});
        let via = c.call("call_tool", json!({"name": "postForm", "arguments": bad})).await;
        let direct = c.call("postForm", bad).await;
        assert_eq!(via.is_error, Some(true));
        assert_eq!(text(&via), text(&direct), "the same validation error");
        assert_eq!(mock.requests().len(), before, "invalid arguments never reach the upstream");

        let r = c.call("call_tool", json!({"name": "postFrom", "arguments": {}})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(text(&r).contains("Unknown tool `postFrom`") && text(&r).contains("postForm"), "{}", text(&r));
        let r = c.call("search_tools", json!({"query": "zzyzx quux"})).await;
        ok(&r);
        assert!(text(&r).starts_with("No tool has the words of"), "{}", text(&r));
        assert!(text(&r).contains("an area of the API:"), "with the map: {}", text(&r));
        assert_eq!(r.structured_content.as_ref().unwrap()["closest"], true);
        // A misspelt request finds its tool by the words it meant.
        let r = c.call("search_tools", json!({"query": "uplaod a fiel"})).await;
        ok(&r);
        let first = &r.structured_content.as_ref().unwrap()["tools"][0]["name"];
        assert_eq!(first, "uploadFile", "{}", text(&r));
        c.client.cancel().await.unwrap();
    }
}

/// `auto` lists every tool up to the limits and switches to discovery past either of them.
pub async fn discovery_threshold(subject: &Subject, mock: &Mock) {
    let base = format!("{}/api", mock.url());
    let listed = |extra: &'static [&'static str]| {
        let cmd = subject.command(&base, extra);
        async move {
            let c = connect(&cmd, Transport::Stdio).await;
            let tools = c.client.list_all_tools().await.unwrap();
            c.client.cancel().await.unwrap();
            names(&tools)
        }
    };
    assert_eq!(listed(&["--auto-max-tools", "24"]).await.len(), 24, "24 tools: every tool");
    assert_eq!(listed(&["--auto-max-tools", "23"]).await, ["search_tools", "describe_tools", "call_tool"]);
    assert_eq!(listed(&["--auto-max-tokens", "100000"]).await.len(), 24);
    assert_eq!(listed(&["--auto-max-tokens", "100"]).await.len(), 3, "past the token limit");
}

/// `null` for an optional argument means "left out": the request is the one without it. Through
/// `call_tool` too; a required argument's `null` is still refused.
pub async fn nulls(subject: &Subject, mock: &Mock) {
    let cmd = subject.command(&format!("{}/api", mock.url()), &[]);
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;
        ok(&c.call("postForm", json!({"name": "A"})).await);
        let without = seen(&mock.last());
        ok(&c.call("postForm", json!({"name": "A", "count": null, "colors": null})).await);
        assert_eq!(seen(&mock.last()), without, "{transport:?}");
        ok(&c.call("pathSimple", json!({"id": "x", "list": [1], "obj": {"a": "y", "b": null}})).await);
        assert_eq!(mock.last().path, "/api/path/simple/x/1/a=y", "a nested optional null is absent too");
        let before = mock.requests().len();
        let r = c.call("pathSimple", json!({"id": null, "list": [1], "obj": {"a": "y"}})).await;
        assert_eq!(r.is_error, Some(true), "a required null is an error: {}", text(&r));
        assert_eq!(mock.requests().len(), before);
        c.client.cancel().await.unwrap();
    }
}

/// Streamable HTTP serves both surfaces from one server: beside `/mcp` (the mode's), every tool
/// at `/mcp/tools` and discovery's three at `/mcp/discovery`. A call through `call_tool` there is
/// the direct call on `/mcp/tools` (same result, same upstream request); each path's `tools/call`
/// takes only what the path shows.
/// Tool poisoning: the `<IMPORTANT>` block planted in postForm's description reaches no client,
/// in any tool mode; the sentences around it do.
pub async fn untrusted_text(subject: &Subject, mock: &Mock) {
    for mode in [
        &["--tool-mode", "all"][..],
        &["--tool-mode", "all", "--schema-detail", "compact"],
        &["--tool-mode", "discovery"],
    ] {
        let cmd = subject.command(&format!("{}/api", mock.url()), mode);
        let c = connect(&cmd, Transport::Stdio).await;
        let mut seen = serde_json::to_string(&c.client.list_all_tools().await.unwrap()).unwrap();
        if mode.contains(&"discovery") {
            let found = c.call("search_tools", json!({"query": "post a form", "limit": 3})).await;
            let described = c.call("describe_tools", json!({"names": ["postForm"]})).await;
            seen = format!(
                "{seen}{}{}",
                serde_json::to_string(&found).unwrap(),
                serde_json::to_string(&described).unwrap()
            );
        }
        assert!(!seen.contains("CANARY") && !seen.contains("id_rsa"), "{mode:?}: {seen}");
        // Compact schemas keep a description's first sentence only.
        let compact = mode.contains(&"compact");
        assert!(
            seen.contains("Posts a form.") && (compact || seen.contains("Fields are URL-encoded.")),
            "{mode:?}: {seen}"
        );
        c.client.cancel().await.unwrap();
    }
}

pub async fn surfaces(subject: &Subject, mock: &Mock) {
    let cmd = subject.command(&format!("{}/api", mock.url()), &["--tool-mode", "discovery"]);
    let (_child, url) = spawn_http(&cmd, &[]).await;
    let (configured, all, discovery) = (
        connect_url(&url).await,
        connect_url(&format!("{url}/tools")).await,
        connect_url(&format!("{url}/discovery")).await,
    );
    let meta = ["search_tools", "describe_tools", "call_tool"];
    assert_eq!(tool_names(&configured.list_all_tools().await.unwrap()), meta, "/mcp: the mode's");
    assert_eq!(tool_names(&discovery.list_all_tools().await.unwrap()), meta);
    let every = tool_names(&all.list_all_tools().await.unwrap());
    assert_eq!(every.len(), 24, "{every:?}");
    assert!(every.iter().all(|n| !meta.contains(&n.as_str())), "{every:?}");
    let said = |c: &rmcp::service::RunningService<rmcp::RoleClient, ()>| {
        c.peer_info().and_then(|i| i.instructions.clone()).unwrap_or_default()
    };
    assert!(said(&discovery).contains("search_tools finds tools"), "{}", said(&discovery));
    assert!(!said(&all).contains("search_tools"), "{}", said(&all));

    let args = json!({"name": "A B&C", "count": 3, "colors": ["r", "g"]});
    let call = |name: &str, args: Value| {
        rmcp::model::CallToolRequestParams::new(name.to_string()).with_arguments(args.as_object().cloned().unwrap())
    };
    let via = discovery.call_tool(call("call_tool", json!({"name": "postForm", "arguments": args}))).await.unwrap();
    ok(&via);
    let through = seen(&mock.last());
    let direct = all.call_tool(call("postForm", args.clone())).await.unwrap();
    assert_eq!(seen(&mock.last()), through, "call_tool sends exactly the direct call's request");
    assert_eq!((via.content, via.structured_content), (direct.content, direct.structured_content));

    let before = mock.requests().len();
    let refused = discovery.call_tool(call("postForm", args.clone())).await.unwrap_err().to_string();
    assert!(refused.contains("through call_tool"), "{refused}");
    let refused = all.call_tool(call("call_tool", json!({"name": "postForm"}))).await.unwrap_err().to_string();
    assert!(refused.contains("unknown tool `call_tool`"), "{refused}");
    assert_eq!(mock.requests().len(), before, "refused calls never reach the upstream");
    // `/mcp` in discovery mode still takes a direct call of any tool, as it always has.
    ok(&configured.call_tool(call("postForm", args)).await.unwrap());
    for c in [configured, all, discovery] {
        c.cancel().await.unwrap();
    }
}
