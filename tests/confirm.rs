//! `--confirm` end to end with rmcp's client against `mcpgen serve` and the recording mock: a
//! 2025 client over stdio is asked with `elicitation/create`, a 2026-07-28 client gets an
//! `InputRequiredResult` (rmcp's client answers it through its handler and retries); accepted
//! calls reach the API exactly as asked, declined ones and refused ones never do, and a forged or
//! misused `requestState` is refused.

use crate::common;

use std::sync::{Arc, Mutex};

use common::{Mock, ServerCommand, fixture_spec, spawn_http, start_mock, text};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService};
use rmcp::{ErrorData, RoleClient};
use serde_json::{Value, json};

/// A client that answers confirmations as told (`None`: it cannot elicit) and keeps the questions.
#[derive(Clone)]
struct User {
    answer: Option<ElicitationAction>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl User {
    fn new(answer: Option<ElicitationAction>) -> Self {
        User { answer, asked: Arc::default() }
    }
    fn questions(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

impl rmcp::ClientHandler for User {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.asked.lock().unwrap().push(message.clone());
        }
        let mut result = ElicitResult::new(self.answer.clone().unwrap_or(ElicitationAction::Decline));
        if self.answer == Some(ElicitationAction::Accept) {
            result.content = Some(json!({"confirm": true}));
        }
        Ok(result)
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        if self.answer.is_some() {
            info.capabilities = serde_json::from_value::<ClientCapabilities>(json!({"elicitation": {}})).unwrap();
        }
        info
    }
}

/// How the client talks: 2025-11-25 over stdio, or 2026-07-28 (stateless) over HTTP or stdio.
#[derive(Debug, Clone, Copy)]
enum Way {
    LegacyStdio,
    LegacyHttp,
    StatelessHttp,
    StatelessStdio,
}

struct Session {
    client: RunningService<RoleClient, User>,
    _server: Option<tokio::process::Child>,
    _spec: tempfile::TempPath,
}

fn command(spec: &tempfile::TempPath, confirm: &str, extra: &[&str]) -> ServerCommand {
    let mut args = vec!["serve", spec.to_str().unwrap(), "--confirm", confirm];
    args.extend_from_slice(extra);
    ServerCommand::mcpgen(&args)
}

async fn session(mock: &Mock, user: &User, way: Way, confirm: &str) -> Session {
    session_with(mock, user, way, confirm, &[]).await
}

async fn session_with(mock: &Mock, user: &User, way: Way, confirm: &str, extra: &[&str]) -> Session {
    mcpgen::runtime::install_crypto_provider();
    let spec = fixture_spec("confirm.yaml", mock);
    let cmd = command(&spec, confirm, extra);
    let lifecycle = match way {
        Way::LegacyStdio | Way::LegacyHttp => ClientLifecycleMode::Initialize,
        Way::StatelessHttp | Way::StatelessStdio => {
            ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] }
        }
    };
    match way {
        Way::LegacyStdio | Way::StatelessStdio => {
            let mut c = tokio::process::Command::new(&cmd.program);
            c.args(&cmd.args).args(["--transport", "stdio"]).stderr(std::process::Stdio::null()).kill_on_drop(true);
            let child = rmcp::transport::TokioChildProcess::new(c).unwrap();
            let client = user.clone().serve_with_lifecycle(child, lifecycle).await.expect("connect over stdio");
            Session { client, _server: None, _spec: spec }
        }
        Way::LegacyHttp | Way::StatelessHttp => {
            let (child, url) = spawn_http(&cmd, &[]).await;
            let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url);
            let client = user.clone().serve_with_lifecycle(transport, lifecycle).await.expect("connect over HTTP");
            Session { client, _server: Some(child), _spec: spec }
        }
    }
}

async fn call(s: &Session, name: &str, args: Value) -> CallToolResult {
    let params = CallToolRequestParams::new(name.to_string()).with_arguments(args.as_object().cloned().unwrap());
    s.client.call_tool(params).await.unwrap_or_else(|e| panic!("tools/call {name}: {e}"))
}

/// An accepted confirmation: the question names the tool, method, path and arguments (not the
/// credential-looking one), and the upstream gets exactly the request.
async fn accepted(way: Way) {
    let mock = start_mock().await;
    let user = User::new(Some(ElicitationAction::Accept));
    let s = session(&mock, &user, way, "destructive").await;
    let r = call(&s, "deletePet", json!({"id": 7, "api_key": "k-123"})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let questions = user.questions();
    assert_eq!(questions.len(), 1, "{questions:?}");
    let q = &questions[0];
    assert!(q.contains("`deletePet`") && q.contains("DELETE /pets/7") && q.contains("\"id\":7"), "{q}");
    assert!(!q.contains("k-123") && q.contains("\"api_key\":\"***\""), "{q}");
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 1, "{reqs:?}");
    assert_eq!((reqs[0].method.as_str(), reqs[0].path.as_str()), ("DELETE", "/pets/7"));
    assert_eq!(reqs[0].header("api_key"), Some("k-123"));
}

/// A declined confirmation: an `isError` result that says so, and nothing upstream.
async fn declined(way: Way) {
    let mock = start_mock().await;
    let user = User::new(Some(ElicitationAction::Decline));
    let s = session(&mock, &user, way, "destructive").await;
    let r = call(&s, "deletePet", json!({"id": 7})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("The user declined the call to `deletePet`"), "{}", text(&r));
    assert_eq!(user.questions().len(), 1);
    assert!(mock.requests().is_empty(), "a declined call must not reach the API");
}

/// A client that cannot elicit is refused, saying why; nothing upstream.
async fn cannot_elicit(way: Way, why: &str) {
    let mock = start_mock().await;
    let user = User::new(None);
    let s = session(&mock, &user, way, "destructive").await;
    let r = call(&s, "deletePet", json!({"id": 7})).await;
    assert_eq!(r.is_error, Some(true));
    let t = text(&r);
    assert!(t.contains("needs the user's confirmation (the server runs with --confirm)") && t.contains(why), "{t}");
    assert!(mock.requests().is_empty());
}

/// Code mode: a destructive call inside a script asks the user in the middle of `run_script`; a
/// yes sends it, a no throws in the script (which can catch it) and sends nothing.
async fn script_asks(answer: ElicitationAction) -> (CallToolResult, User, Mock) {
    let mock = start_mock().await;
    let user = User::new(Some(answer));
    let s = session_with(&mock, &user, Way::LegacyStdio, "destructive", &["--tool-mode", "code"]).await;
    let code = "const pet = await api.getPet({id: 7}); \
                try { await api.deletePet({id: 7}); return 'deleted' } catch (e) { return 'kept: ' + e.message }";
    let r = call(&s, "run_script", json!({ "code": code })).await;
    (r, user, mock)
}

#[tokio::test]
async fn a_destructive_call_in_a_script_asks_and_goes_on_a_yes() {
    let (r, user, mock) = script_asks(ElicitationAction::Accept).await;
    assert_eq!(text(&r), "deleted");
    let questions = user.questions();
    assert_eq!(questions.len(), 1, "only the destructive call asks: {questions:?}");
    assert!(questions[0].starts_with("A script asks: Allow `deletePet` to send DELETE /pets/7"), "{}", questions[0]);
    let sent: Vec<(String, String)> = mock.requests().iter().map(|r| (r.method.clone(), r.path.clone())).collect();
    assert_eq!(sent, [("GET".to_string(), "/pets/7".to_string()), ("DELETE".to_string(), "/pets/7".to_string())]);
}

#[tokio::test]
async fn a_destructive_call_in_a_script_declined_throws_and_sends_nothing() {
    let (r, user, mock) = script_asks(ElicitationAction::Decline).await;
    assert!(text(&r).starts_with("kept: The user declined the call to `deletePet`"), "{}", text(&r));
    assert_eq!(user.questions().len(), 1);
    assert!(mock.requests().iter().all(|r| r.method == "GET"), "{:?}", mock.requests());
}

#[tokio::test]
async fn a_script_over_stateless_http_cannot_ask_and_is_refused() {
    let mock = start_mock().await;
    let user = User::new(Some(ElicitationAction::Accept));
    let s = session_with(&mock, &user, Way::StatelessHttp, "destructive", &["--tool-mode", "code"]).await;
    let r = call(&s, "run_script", json!({"code": "await api.deletePet({id: 7})"})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("a script cannot ask for it over stateless Streamable HTTP"), "{}", text(&r));
    assert!(user.questions().is_empty() && mock.requests().is_empty());
}

#[tokio::test]
async fn accepted_over_stdio_with_elicitation_create() {
    accepted(Way::LegacyStdio).await;
}

#[tokio::test]
async fn accepted_over_http_with_input_required_result() {
    accepted(Way::StatelessHttp).await;
}

#[tokio::test]
async fn accepted_over_stdio_with_input_required_result() {
    accepted(Way::StatelessStdio).await;
}

#[tokio::test]
async fn declined_over_stdio_with_elicitation_create() {
    declined(Way::LegacyStdio).await;
}

#[tokio::test]
async fn declined_over_http_with_input_required_result() {
    declined(Way::StatelessHttp).await;
}

#[tokio::test]
async fn a_client_without_elicitation_is_refused_over_stdio() {
    cannot_elicit(Way::LegacyStdio, "the client does not support elicitation").await;
}

#[tokio::test]
async fn a_client_without_elicitation_is_refused_over_http() {
    cannot_elicit(Way::StatelessHttp, "the client does not support elicitation").await;
}

#[tokio::test]
async fn a_2025_client_over_stateless_http_is_refused() {
    let mock = start_mock().await;
    let user = User::new(Some(ElicitationAction::Accept));
    let s = session(&mock, &user, Way::LegacyHttp, "destructive").await;
    let r = call(&s, "deletePet", json!({"id": 7})).await;
    assert!(text(&r).contains("over stateless Streamable HTTP"), "{}", text(&r));
    assert!(user.questions().is_empty() && mock.requests().is_empty());
}

#[tokio::test]
async fn tools_outside_the_class_are_not_confirmed() {
    let mock = start_mock().await;
    let user = User::new(Some(ElicitationAction::Decline));
    let s = session(&mock, &user, Way::LegacyStdio, "destructive").await;
    call(&s, "createPet", json!({"name": "rex"})).await;
    call(&s, "getPet", json!({"id": 1})).await;
    assert!(user.questions().is_empty());
    assert_eq!(mock.requests().len(), 2);
}

#[tokio::test]
async fn writes_confirms_every_call_that_is_not_read_only() {
    let mock = start_mock().await;
    let user = User::new(Some(ElicitationAction::Decline));
    let s = session(&mock, &user, Way::LegacyStdio, "writes").await;
    assert_eq!(call(&s, "createPet", json!({"name": "rex"})).await.is_error, Some(true));
    call(&s, "getPet", json!({"id": 1})).await;
    assert_eq!(user.questions().len(), 1);
    assert_eq!(mock.requests().len(), 1, "only the read reached the API");
}

/// Raw 2026-07-28 `tools/call`s over HTTP, to send what rmcp's client never would.
struct Raw {
    http: reqwest::Client,
    url: String,
}

impl Raw {
    async fn call(&self, args: Value, state: Option<&str>, confirm: bool) -> Value {
        let mut params = json!({
            "name": "deletePet",
            "arguments": args,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            },
        });
        if let Some(state) = state {
            params["requestState"] = json!(state);
            params["inputResponses"] = json!({"confirm": {"action": "accept", "content": {"confirm": confirm}}});
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        let resp = self
            .http
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", "deletePet")
            .json(&body)
            .send()
            .await
            .unwrap();
        resp.json().await.unwrap()
    }
}

async fn raw(mock: &Mock) -> (Raw, tokio::process::Child, tempfile::TempPath) {
    let spec = fixture_spec("confirm.yaml", mock);
    let (child, url) = spawn_http(&command(&spec, "destructive", &[]), &[]).await;
    (Raw { http: reqwest::Client::new(), url }, child, spec)
}

fn state_of(answer: &Value) -> String {
    assert_eq!(answer["result"]["resultType"], "input_required", "{answer}");
    assert_eq!(answer["result"]["inputRequests"]["confirm"]["method"], "elicitation/create", "{answer}");
    answer["result"]["requestState"].as_str().expect("a requestState").to_string()
}

fn error_message(answer: &Value) -> String {
    answer["error"]["message"].as_str().unwrap_or_else(|| panic!("expected a JSON-RPC error, got {answer}")).to_string()
}

#[tokio::test]
async fn a_tampered_request_state_is_refused_and_nothing_reaches_the_api() {
    let mock = start_mock().await;
    let (raw, _server, _spec) = raw(&mock).await;
    let state = state_of(&raw.call(json!({"id": 7}), None, false).await);
    let mut forged = state.clone().into_bytes();
    let last = forged.len() - 1;
    forged[last] = if forged[last] == b'A' { b'B' } else { b'A' };
    let answer = raw.call(json!({"id": 7}), Some(std::str::from_utf8(&forged).unwrap()), true).await;
    assert!(error_message(&answer).contains("the requestState is not valid"), "{answer}");
    let answer = raw.call(json!({"id": 7}), Some("rs1.made-up.state"), true).await;
    assert!(error_message(&answer).contains("the requestState is not valid"), "{answer}");
    assert!(mock.requests().is_empty());
}

#[tokio::test]
async fn a_request_state_for_other_arguments_is_refused() {
    let mock = start_mock().await;
    let (raw, _server, _spec) = raw(&mock).await;
    let state = state_of(&raw.call(json!({"id": 7}), None, false).await);
    let answer = raw.call(json!({"id": 8}), Some(&state), true).await;
    assert!(error_message(&answer).contains("not issued for this tool, these arguments and this caller"), "{answer}");
    assert!(mock.requests().is_empty());
}

#[tokio::test]
async fn a_request_state_is_used_once() {
    let mock = start_mock().await;
    let (raw, _server, _spec) = raw(&mock).await;
    let state = state_of(&raw.call(json!({"id": 7}), None, false).await);
    let first = raw.call(json!({"id": 7}), Some(&state), true).await;
    assert!(first["result"]["content"].is_array(), "{first}");
    let again = raw.call(json!({"id": 7}), Some(&state), true).await;
    assert!(error_message(&again).contains("already used"), "{again}");
    assert_eq!(mock.requests().len(), 1, "one confirmation, one call");
}

#[tokio::test]
async fn an_answer_that_says_no_is_a_decline() {
    let mock = start_mock().await;
    let (raw, _server, _spec) = raw(&mock).await;
    let state = state_of(&raw.call(json!({"id": 7}), None, false).await);
    let answer = raw.call(json!({"id": 7}), Some(&state), false).await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(mock.requests().is_empty());
}
