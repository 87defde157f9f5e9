//! Function-calling lists served as MCP: `--forward-url` (per tool and single endpoint) and a
//! bindings file, end to end with the rmcp client against a local upstream, over stdio and HTTP.

use crate::common;

use common::*;
use serde_json::{Value, json};

const FUNCTIONS: &str = "samples/openai-functions.json";
const BINDINGS: &str = "samples/bindings/openai-functions.bindings.yaml";

fn body(r: &Recorded) -> Value {
    serde_json::from_slice(&r.body).unwrap_or_else(|e| panic!("JSON body ({e}): {:?}", r.body))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forward_url_posts_exactly_the_arguments() {
    let mock = start_mock().await;
    let url = format!("{}/tools", mock.url());
    for transport in TRANSPORTS {
        let c = connect(&ServerCommand::mcpgen(&["serve", FUNCTIONS, "--forward-url", &url]), transport).await;
        let args = json!({"to": ["a@example.com", "b@example.com"], "subject": "Hi", "body": "Ünïcode \"quoted\"\n", "priority": "high"});
        let r = c.call("send_email", args.clone()).await;
        assert_eq!(r.is_error, Some(false), "{transport:?}: {}", text(&r));
        let req = mock.last();
        assert_eq!((req.method.as_str(), req.path.as_str()), ("POST", "/tools/send_email"));
        assert_eq!(req.header("content-type"), Some("application/json"));
        assert_eq!(body(&req), args, "the upstream receives exactly the arguments");
        // JSON answers come back as JSON text.
        let answer: Value = serde_json::from_str(&text(&r)).unwrap();
        assert_eq!(answer["path"], "/tools/send_email");

        // No parameters at all: an empty object.
        c.call("get_random_joke", json!({})).await;
        assert_eq!(body(&mock.last()), json!({}));

        // Non-2xx is a tool error carrying the upstream's answer.
        mock.reply_next(Reply::Json(503, json!({"error": "weather service down"})));
        let r = c.call("get_current_weather", json!({"location": "Paris"})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(text(&r).contains("503") && text(&r).contains("weather service down"), "{}", text(&r));

        // Arguments are still checked against the function's schema before anything is sent.
        mock.clear();
        let r = c.call("get_current_weather", json!({"unit": "kelvin"})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(mock.requests().is_empty(), "invalid arguments never reach the upstream");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forward_mode_single_sends_name_and_arguments() {
    let mock = start_mock().await;
    let url = format!("{}/dispatch", mock.url());
    let cmd = ServerCommand::mcpgen(&["serve", FUNCTIONS, "--forward-url", &url, "--forward-mode", "single"]);
    let c = connect(&cmd, Transport::Stdio).await;
    let r = c.call("get_current_time", json!({"timezone": "Europe/Paris"})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let req = mock.last();
    assert_eq!((req.method.as_str(), req.path.as_str()), ("POST", "/dispatch"));
    assert_eq!(body(&req), json!({"name": "get_current_time", "arguments": {"timezone": "Europe/Paris"}}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bindings_route_each_argument_to_its_place() {
    let mock = start_mock().await;
    let base = format!("{}/v1", mock.url());
    for transport in TRANSPORTS {
        let cmd = ServerCommand::mcpgen(&["serve", FUNCTIONS, "--bindings", BINDINGS, "--base-url", &base])
            .env("WEATHER_API_KEY", "k-123");
        let c = connect(&cmd, transport).await;
        let tools = c.client.list_all_tools().await.unwrap();
        let weather = tools.iter().find(|t| t.name == "get_current_weather").unwrap();
        let ann = weather.annotations.as_ref().unwrap();
        assert_eq!(ann.read_only_hint, Some(true), "a GET binding is read-only");

        let r = c.call("get_current_weather", json!({"location": "San Francisco, CA", "unit": "celsius"})).await;
        assert_eq!(r.is_error, Some(false), "{transport:?}: {}", text(&r));
        let req = mock.last();
        assert_eq!((req.method.as_str(), req.path.as_str()), ("GET", "/v1/weather/San%20Francisco%2C%20CA"));
        assert_eq!(req.query.as_deref(), Some("units=celsius"));
        assert_eq!(req.header("x-api-key"), Some("k-123"));
        assert_eq!(req.header("x-client"), Some("mcpgen"));
        assert!(req.body.is_empty());

        c.call("get_n_day_weather_forecast", json!({"location": "Oslo", "format": "celsius", "num_days": 3})).await;
        let req = mock.last();
        assert_eq!((req.method.as_str(), req.path.as_str()), ("GET", "/v1/forecast"));
        assert_eq!(req.query.as_deref(), Some("location=Oslo&num_days=3"));
        assert_eq!(req.header("x-units"), Some("celsius"));

        let r = c
            .call("send_email", json!({"to": ["a@example.com"], "subject": "S", "body": "B", "priority": "low"}))
            .await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        let req = mock.last();
        assert_eq!((req.method.as_str(), req.path.as_str()), ("POST", "/v1/emails"));
        assert_eq!(req.header("x-priority"), Some("low"));
        assert_eq!(body(&req), json!({"to": ["a@example.com"], "subject": "S", "body": "B"}));

        // `security: []` for this one: no key is sent.
        c.call("get_current_time", json!({"timezone": "Asia/Tokyo"})).await;
        let req = mock.last();
        assert_eq!(req.path, "/v1/time/Asia%2FTokyo");
        assert_eq!(req.header("x-api-key"), None);
    }
}

#[test]
fn serve_refuses_a_function_list_without_a_binding() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen")).args(["serve", FUNCTIONS]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--forward-url") && err.contains("--bindings") && err.contains("get_current_weather"),
        "{err}"
    );
}

/// A function argument bound where the bindings' API key goes is that credential (every input
/// dialect keeps credentials out of the model's hands): no argument, the operator's key is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_argument_bound_to_a_credentials_header_is_the_credential() {
    let mock = start_mock().await;
    let base = format!("{}/v1", mock.url());
    let rebound = std::fs::read_to_string(BINDINGS)
        .unwrap()
        .replace("{ in: header, name: X-Units }", "{ in: header, name: x-api-key }");
    let bindings = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::fs::write(bindings.path(), rebound).unwrap();
    let cmd = ServerCommand::mcpgen(&[
        "serve",
        FUNCTIONS,
        "--bindings",
        bindings.path().to_str().unwrap(),
        "--base-url",
        &base,
    ])
    .env("WEATHER_API_KEY", "k-123");
    let c = connect(&cmd, Transport::Stdio).await;
    let tools = c.client.list_all_tools().await.unwrap();
    let forecast = tools.iter().find(|t| t.name == "get_n_day_weather_forecast").unwrap();
    let schema = serde_json::to_value(&forecast.input_schema).unwrap();
    assert!(schema["properties"].get("format").is_none(), "{schema}");
    assert_eq!(schema["required"], json!(["location", "num_days"]), "{schema}");
    // The model's own value for it is no argument: refused, nothing sent.
    let r = c.call("get_n_day_weather_forecast", json!({"location": "Oslo", "format": "k-evil", "num_days": 3})).await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));
    assert!(text(&r).contains("unknown argument `format`"), "{}", text(&r));
    assert!(mock.requests().is_empty());
    let r = c.call("get_n_day_weather_forecast", json!({"location": "Oslo", "num_days": 3})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert_eq!(mock.last().header("x-api-key"), Some("k-123"));
}
