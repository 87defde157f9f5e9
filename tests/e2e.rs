//! End to end: the rmcp client drives `mcpgen serve` over stdio and Streamable HTTP against a
//! recording mock upstream; every parameter style, body type and auth scheme is checked at the
//! byte level of what the upstream received. The same checks run against a generated crate in
//! tests/generate.rs.

use crate::common;

use common::checks::{self, Subject};
use common::*;

/// One test per check, against `mcpgen serve` as `$subject` runs it (a variant of [`Subject`]).
macro_rules! e2e {
    ($subject:ident: $($name:ident => $check:ident),* $(,)?) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let mock = start_mock().await;
            let spec = e2e_spec(&mock);
            checks::$check(&Subject::$subject(spec.to_path_buf()), &mock).await;
        }
    )*};
}

// The same checks with every upstream request sent through reqwest, as `https://` ones are.
e2e! { ServeReqwest:
    reqwest_parameters_reach_the_upstream_exactly => parameters,
    reqwest_bodies_reach_the_upstream_exactly => bodies,
    reqwest_auth_schemes_use_env_credentials => auth,
    reqwest_responses_become_results => responses,
    reqwest_upstream_faults_leave_the_server_serving => faults,
    reqwest_redirects_stay_on_the_same_origin => redirects,
}

e2e! { Serve:
    parameters_reach_the_upstream_exactly => parameters,
    bodies_reach_the_upstream_exactly => bodies,
    auth_schemes_use_env_credentials => auth,
    responses_become_results => responses,
    upstream_faults_leave_the_server_serving => faults,
    unknown_tools_are_protocol_errors_and_lists_are_stable => lists,
    redirects_stay_on_the_same_origin => redirects,
    discovery_search_describe_call => discovery,
    auto_mode_switches_at_its_limits => discovery_threshold,
    optional_nulls_are_left_out => nulls,
    both_surfaces_over_http => surfaces,
    planted_instructions_reach_no_client => untrusted_text,
}

/// The checks of results that fit the model (tests/common/results.rs), against `mcpgen serve`.
macro_rules! e2e_results {
    ($($name:ident => $check:ident),* $(,)?) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let mock = start_mock().await;
            let spec = e2e_spec(&mock);
            common::results::$check(&Subject::Serve(spec.to_path_buf()), &mock).await;
        }
    )*};
}

e2e_results! {
    jq_selects_exactly_and_never_goes_upstream => projection,
    bad_looping_and_misplaced_filters_are_clear_errors => projection_faults,
    over_the_budget_results_stay_json_and_name_the_next_page => reduction,
    lean_by_default_full_byte_for_byte_errors_budgeted => rendering,
}

/// A tool whose API has an argument named `_jq` keeps it (it goes upstream); its filter argument
/// is `__jq`, and the instructions say so. (mcpgen's own configs name no argument `_jq`: a
/// hand-edited or function-calling one can.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_argument_named_jq_keeps_working() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["config", spec.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut config: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tool = config["tools"].as_array_mut().unwrap().iter_mut().find(|t| t["name"] == "ownJq").unwrap();
    tool["input_schema"]["properties"] = serde_json::json!({"_jq": {"type": "string"}});
    tool["http"]["params"][0]["arg"] = serde_json::json!("_jq");
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), serde_json::to_vec(&config).unwrap()).unwrap();
    let base = format!("{}/api", mock.url());
    let cmd = ServerCommand::mcpgen(&["serve", file.path().to_str().unwrap(), "--base-url", &base])
        .env("E2E_TEST_API_HEADER_KEY", "hk");
    let c = connect(&cmd, Transport::Stdio).await;
    let instructions = c.client.peer_info().and_then(|i| i.instructions.clone()).unwrap_or_default();
    assert!(instructions.contains("ownJq (__jq)"), "{instructions}");
    mock.reply_next(Reply::Json(200, serde_json::json!({"q": "kept", "other": 1})));
    let r = c.call("ownJq", serde_json::json!({"_jq": "api-value", "__jq": ".q"})).await;
    assert_eq!(text(&r), r#""kept""#);
    assert_eq!(mock.last().query.as_deref(), Some("_jq=api-value"));
    c.client.cancel().await.unwrap();
}

/// An OAuth2 client-credentials scheme also takes an access token the user already has.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth2_takes_a_ready_token() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap(), "--base-url", &format!("{}/api", mock.url())])
        .env("E2E_TEST_API_OAUTH_TOKEN", "ready-token");
    let c = connect(&cmd, Transport::Stdio).await;
    let r = c.call("authOAuth", serde_json::json!({})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert_eq!(mock.last().header("authorization"), Some("Bearer ready-token"));
    assert_eq!(mock.tokens_issued(), 0, "no client id or secret needed");
    c.client.cancel().await.unwrap();
}

/// Unset credentials are named at start, once per scheme, with how many tools need them.
#[test]
fn unset_credentials_are_named_at_start() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["serve", "tests/fixtures/e2e.yaml", "--base-url", "http://127.0.0.1:9"])
        .env_clear()
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("E2E_TEST_API_BASIC_USERNAME and E2E_TEST_API_BASIC_PASSWORD not set: 1 tool needs it (security scheme `basic`)"), "{err}");
    assert!(err.contains("E2E_TEST_API_HEADER_KEY not set: 17 tools need it (security scheme `headerKey`)"), "{err}");
    assert!(
        err.contains(
            "E2E_TEST_API_OAUTH_TOKEN, or E2E_TEST_API_OAUTH_CLIENT_ID and E2E_TEST_API_OAUTH_CLIENT_SECRET not set"
        ),
        "{err}"
    );
    assert_eq!(err.matches(" not set: ").count(), 6, "one line per scheme: {err}");
    let with_query_key = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["serve", "tests/fixtures/e2e.yaml", "--base-url", "http://127.0.0.1:9"])
        .env_clear()
        .env("E2E_TEST_API_QUERY_KEY", "q")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&with_query_key.stderr);
    assert!(
        err.contains("E2E_TEST_API_BEARER_TOKEN not set: 1 tool needs it"),
        "authEither goes with the query key: {err}"
    );
}

/// Declared `Accept`, `Content-Type` and `Authorization` header parameters: never arguments; the
/// document's fixed value is sent, and `Authorization` is a credential from its own env var.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_accept_content_type_and_authorization_headers() {
    let mock = start_mock().await;
    let spec = fixture_spec("headers.yaml", &mock);
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap()]).env("HEADERS_TEST_AUTHORIZATION", "token abc");
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;
        for tool in c.client.list_all_tools().await.unwrap() {
            let props = tool.input_schema.get("properties").and_then(|p| p.as_object()).unwrap();
            assert!(
                props.keys().all(|k| !["Accept", "Content-Type", "Authorization"].contains(&k.as_str())),
                "{props:?}"
            );
        }
        let r = c.call("listThings", serde_json::json!({"q": "x"})).await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        let req = mock.last();
        assert_eq!(req.header("accept"), Some("application/vnd.things+json"));
        assert_eq!(req.header("content-type"), Some("application/json"));
        assert_eq!(req.header("authorization"), Some("token abc"));
        let r = c.call("addThing", serde_json::json!({"name": "n"})).await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        let req = mock.last();
        assert_eq!(req.header("accept"), Some("text/csv"), "the only response media type");
        assert_eq!(req.header("content-type"), Some("application/json"), "the body's own media type");
        assert_eq!(req.body.as_ref(), br#"{"name":"n"}"#);
        let r = c.call("getStats", serde_json::json!({})).await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        assert_eq!(mock.last().header("content-type"), Some("application/json"), "a required header's example");
        c.client.cancel().await.unwrap();
    }
}

/// AWS's path keys (`/#Action=X`, `/#X-Amz-Target=Y`, `/path#name`): the fragment's pairs reach the
/// server as query parameters, one-value required parameters are sent without being asked for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aws_path_keys_reach_the_server() {
    let mock = start_mock().await;
    let spec = fixture_spec("aws-query.yaml", &mock);
    let c = connect(&ServerCommand::mcpgen(&["serve", spec.to_str().unwrap()]), Transport::Stdio).await;
    let tools = c.client.list_all_tools().await.unwrap();
    let describe = tools.iter().find(|t| t.name == "GET_DescribeInstances").unwrap();
    let props = describe.input_schema.get("properties").and_then(|p| p.as_object()).unwrap();
    let args: Vec<&String> = props.keys().filter(|k| *k != "_jq").collect();
    assert_eq!(args, ["DryRun", "InstanceId"], "Action and Version are not arguments");

    let r = c.call("GET_DescribeInstances", serde_json::json!({"InstanceId": ["i-1", "i-2"]})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let req = mock.last();
    assert_eq!((req.method.as_str(), req.path.as_str()), ("GET", "/"));
    assert_eq!(req.query.as_deref(), Some("Action=DescribeInstances&Version=2016-11-15&InstanceId=i-1&InstanceId=i-2"));

    let r = c.call("POST_RebootInstances", serde_json::json!({"InstanceId": "i-9"})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert_eq!(mock.last().query.as_deref(), Some("Action=RebootInstances&Version=2016-11-15&InstanceId=i-9"));

    let r = c.call("ListMigrationTasks", serde_json::json!({"MaxResults": 5})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let req = mock.last();
    assert_eq!((req.path.as_str(), req.query.as_deref()), ("/", None));
    assert_eq!(req.header("x-amz-target"), Some("AWSMigrationHub.ListMigrationTasks"));

    let r = c.call("GetAnalyzedResource", serde_json::json!({"analyzerArn": "a", "resourceArn": "r"})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let req = mock.last();
    assert_eq!((req.path.as_str(), req.query.as_deref()), ("/analyzed-resource", Some("analyzerArn=a&resourceArn=r")));
    c.client.cancel().await.unwrap();
}

/// `--workers 3`: calls from many clients at once, each on connections of its own (which the
/// acceptor hands to the three workers in turn), all reach the upstream exactly and come back to
/// the client that made them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worker_threads_answer_concurrent_clients() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let cmd = Subject::Serve(spec.to_path_buf()).command(&format!("{}/api", mock.url()), &[]);
    let (mut child, url) = spawn_http(&cmd, &["--workers", "3"]).await;
    let calls = (0..9).map(|i| {
        let url = url.clone();
        async move {
            let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url);
            let client = rmcp::ServiceExt::serve((), transport).await.expect("initialize over HTTP");
            let c = Connected { client, http: None };
            let r = c
                .call("pathSimple", serde_json::json!({"id": format!("client-{i}"), "list": [i], "obj": {"a": "x"}}))
                .await;
            c.client.cancel().await.unwrap();
            (i, r)
        }
    });
    for (i, r) in futures::future::join_all(calls).await {
        checks::ok(&r);
        assert!(text(&r).contains(&format!("/api/path/simple/client-{i}/{i}/a=x")), "call {i}: {}", text(&r));
    }
    let mut paths: Vec<String> = mock.requests().into_iter().map(|r| r.path).collect();
    paths.sort();
    let want: Vec<String> = (0..9).map(|i| format!("/api/path/simple/client-{i}/{i}/a=x")).collect();
    assert_eq!(paths, want);
    child.kill().await.unwrap();
}

/// `--workers 0` is a usage error that says what is allowed.
#[test]
fn zero_workers_is_a_usage_error() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["serve", "samples/petstore-oas30.json", "--transport", "http", "--workers", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid value '0' for '--workers <N>'") && err.contains("1..=1024"), "{err}");
}
