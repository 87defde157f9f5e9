//! The response rules end to end on one response at a time (the rules' own tests are next to
//! them).

use super::*;

fn resp(status: u16, ct: &str, body: &[u8]) -> UpstreamResponse {
    UpstreamResponse {
        status: reqwest::StatusCode::from_u16(status).unwrap(),
        content_type: Some(ct.into()),
        retry_after: None,
        link: None,
        body: body.to_vec(),
        truncated: false,
    }
}

fn ctx() -> CallContext<'static> {
    CallContext {
        method: Method::Get,
        path: "/pets",
        tool: "listPets",
        auth_hint: Some("set PET_KEY".into()),
        validate_output: None,
        budget: 40_000,
        detail: ResponseDetail::Lean,
        format: ResponseFormat::Json,
        origin: "https://api.example.com",
        args: &NO_ARGS,
        pager: None,
        jq: None,
    }
}

static NO_ARGS: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

fn result(r: UpstreamResponse, c: &CallContext<'_>) -> CallToolResult {
    tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(to_result(r, c))
}

#[test]
fn full_detail_is_the_body_as_sent_with_structured_content() {
    let full = CallContext { detail: ResponseDetail::Full, ..ctx() };
    let r = result(resp(200, "application/json", br#"[1, 2]"#), &full);
    assert_eq!(r.structured_content, Some(json!({"result": [1, 2]})));
    assert_eq!(r.content[0].as_text().map(|t| t.text.as_str()), Some("[1, 2]"));
    assert_eq!(r.is_error, Some(false));
    let r = result(resp(200, "application/json; charset=utf-8", br#"{"a":1}"#), &full);
    assert_eq!(r.structured_content, Some(json!({"a": 1})));
}

#[test]
fn errors_have_no_structured_content() {
    let r = result(resp(401, "application/json", br#"{"message":"bad key"}"#), &ctx());
    assert_eq!(r.is_error, Some(true));
    assert!(r.structured_content.is_none());
    let text = serde_json::to_string(&r.content).unwrap();
    assert!(
        text.contains("HTTP 401 Unauthorized from GET /pets")
            && text.contains("set PET_KEY")
            && text.contains("bad key"),
        "{text}"
    );
}

#[test]
fn invalid_json_and_binary() {
    let r = result(resp(200, "application/json", b"{oops"), &ctx());
    assert!(r.structured_content.is_none() && r.is_error == Some(false));
    let r = result(resp(200, "image/png", &[0x89, b'P', b'N', b'G']), &ctx());
    assert!(matches!(r.content[0], ContentBlock::Image(_)));
    let r = result(resp(200, "application/pdf", &[0xff, 0xfe, 0x00]), &ctx());
    assert!(matches!(r.content[0], ContentBlock::Resource(_)));
}

#[test]
fn multipart_parts_become_one_block_each() {
    let body = b"--b1\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b1\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n--b1--\r\n";
    let r = result(resp(200, "multipart/mixed; boundary=\"b1\"", body), &ctx());
    assert_eq!(r.content.len(), 2, "{r:?}");
    assert_eq!(r.content[0].as_text().map(|t| t.text.as_str()), Some("hello"));
    assert!(matches!(&r.content[1], ContentBlock::Image(i) if i.mime_type == "image/png"));
}

#[test]
fn an_attached_part_is_an_embedded_resource_named_by_its_file() {
    let body = b"--b\r\nContent-Type: application/json\r\nContent-Disposition: attachment; filename=\"d.json\"\r\n\r\n{\"a\":1}\r\n--b--";
    let r = result(resp(200, "multipart/mixed; boundary=b", body), &ctx());
    let ContentBlock::Resource(e) = &r.content[0] else { panic!("{r:?}") };
    assert_eq!(
        serde_json::to_value(&e.resource).unwrap(),
        json!({"uri": "mcpgen://response/listPets/part/1/d%2Ejson", "mimeType": "application/json", "text": "{\"a\":1}"})
    );
}

#[test]
fn a_multipart_body_without_its_boundary_is_text() {
    let r = result(resp(200, "multipart/mixed; boundary=zz", b"no parts here"), &ctx());
    assert_eq!(r.content[0].as_text().map(|t| t.text.as_str()), Some("no parts here"));
}

#[test]
fn audio_is_audio_content() {
    let r = result(resp(200, "audio/wav", b"RIFF\x24\x00\x00\x00WAVE"), &ctx());
    assert!(matches!(&r.content[0], ContentBlock::Audio(a) if a.mime_type == "audio/wav"), "{r:?}");
}

#[test]
fn output_schema_mismatch_is_an_error() {
    let check = |v: &Value| if v.get("id").is_some() { None } else { Some("missing id".to_string()) };
    let c = CallContext { validate_output: Some(&check), ..ctx() };
    let r = result(resp(200, "application/json", br#"{"name":"x"}"#), &c);
    assert_eq!(r.is_error, Some(true));
    assert!(r.structured_content.is_none());
}

fn texts(r: &CallToolResult) -> Vec<String> {
    r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect()
}

#[test]
fn lean_is_minified_without_own_links_and_without_structured_content() {
    let body = br#"{"id": 1, "url": "https://api.example.com/x/1", "html_url": "https://example.com/x/1"}"#;
    let r = result(resp(200, "application/json", body), &ctx());
    assert_eq!(texts(&r), [r#"{"id":1,"html_url":"https://example.com/x/1"}"#]);
    assert!(r.structured_content.is_none());
}

#[test]
fn a_declared_output_schema_gets_the_full_value_as_structured_content() {
    let check = |_: &Value| None;
    let c = CallContext { validate_output: Some(&check), ..ctx() };
    let r = result(resp(200, "application/json", br#"{"id": 1, "url": "https://api.example.com/x/1"}"#), &c);
    assert_eq!(r.structured_content, Some(json!({"id": 1, "url": "https://api.example.com/x/1"})));
    assert_eq!(texts(&r), [r#"{"id":1}"#]);
}

fn list(n: usize) -> Vec<u8> {
    let items: Vec<Value> = (0..n).map(|i| json!({"id": i, "name": format!("item {i}"), "tags": ["a", "b"]})).collect();
    serde_json::to_vec(&items).unwrap()
}

#[test]
fn over_the_budget_the_text_stays_json_and_a_note_says_how_to_get_the_rest() {
    let args = Map::from_iter([("page".to_string(), json!(3))]);
    let pager = Pager::detect(
        &serde_json::from_value(json!({"method": "GET", "path": "/x", "params": [
            {"arg": "page", "name": "page", "in": "query", "style": "form", "explode": true}]}))
        .unwrap(),
        &Map::new(),
    );
    let c = CallContext { budget: 2_000, args: &args, pager: Some(&pager), jq: Some(("_jq", None)), ..ctx() };
    let r = result(resp(200, "application/json", &list(500)), &c);
    let t = texts(&r);
    assert_eq!(t.len(), 2, "{t:?}");
    let kept: Value = serde_json::from_str(&t[0]).expect("valid JSON");
    let n = kept.as_array().unwrap().len();
    assert!(n > 3 && t[0].len() + t[1].len() <= 2_000, "{n} items, {} + {} chars", t[0].len(), t[1].len());
    assert!(t[1].contains(&format!("the first {n} of 500 items")), "{}", t[1]);
    assert!(t[1].contains(&format!(r#"{{"_jq":".[{n}:]"}}"#)), "{}", t[1]);
    assert!(t[1].contains(r#"{"page":4}"#), "{}", t[1]);
    assert!(t[1].contains(r#"map({id, name})"#), "{}", t[1]);
}

#[test]
fn a_budget_of_zero_is_no_limit() {
    let c = CallContext { budget: 0, ..ctx() };
    let r = result(resp(200, "application/json", &list(2_000)), &c);
    assert_eq!(texts(&r).len(), 1);
}

#[test]
fn tables_are_written_where_the_format_asks() {
    let c = CallContext { format: ResponseFormat::Table, ..ctx() };
    let r = result(resp(200, "application/json", br#"[{"id":1,"n":"a"},{"id":2,"n":"b"}]"#), &c);
    assert_eq!(texts(&r), ["id\tn\n1\ta\n2\tb"]);
    let c = CallContext { format: ResponseFormat::Auto, ..ctx() };
    let r = result(resp(200, "application/json", br#"[{"id":1},{"id":2}]"#), &c);
    assert_eq!(texts(&r), ["id\n1\n2"]);
    let r = result(resp(200, "application/json", br#"{"id":1}"#), &c);
    assert_eq!(texts(&r), [r#"{"id":1}"#]);
}

#[test]
fn an_error_is_at_most_8000_characters_with_the_apis_message_first() {
    let body = serde_json::to_vec(&json!({"message": "Validation Failed", "trace": "x".repeat(50_000)})).unwrap();
    let r = result(resp(422, "application/json", &body), &ctx());
    let t = texts(&r).concat();
    assert!(t.chars().count() <= 8_000, "{}", t.len());
    assert!(t.starts_with("HTTP 422") && t.contains("The API says: Validation Failed"), "{}", &t[..200]);
    assert!(t.ends_with("[...]"));
}

#[test]
fn a_long_text_body_is_cut_to_the_budget() {
    let c = CallContext { budget: 1_000, ..ctx() };
    let r = result(resp(200, "text/plain", "word ".repeat(10_000).as_bytes()), &c);
    let t = texts(&r).concat();
    assert!(t.chars().count() <= 1_100 && t.contains("more characters left out"), "{}", t.len());
}

#[test]
fn a_filter_on_a_body_that_is_not_json_is_refused() {
    let c = CallContext { jq: Some(("_jq", Some("."))), ..ctx() };
    let r = result(resp(200, "text/html", b"<p>hi</p>"), &c);
    assert_eq!(r.is_error, Some(true));
    assert!(texts(&r)[0].contains("`text/html`, not JSON"), "{:?}", texts(&r));
}

/// A whole page the API says is one of more carries the next call's arguments, and keeps its
/// structured content; a page number alone says nothing of a next page.
#[test]
fn a_whole_page_names_the_next_when_the_api_says_there_is_one() {
    let http: crate::config::HttpBinding = serde_json::from_value(json!({
        "method": "GET", "path": "/commits",
        "params": [{"arg": "page", "name": "page", "in": "query", "style": "form", "explode": true}]
    }))
    .unwrap();
    let schema = json!({"type": "object", "properties": {"page": {"type": "integer"}}});
    let pager = paging::Pager::detect(&http, schema.as_object().unwrap());
    let c = CallContext { pager: Some(&pager), detail: ResponseDetail::Full, ..ctx() };
    let mut r = resp(200, "application/json", br#"[{"sha": "a"}, {"sha": "b"}]"#);
    r.link = Some(
        r#"<https://api.example.com/commits?page=2>; rel="next", <https://api.example.com/commits?page=9>; rel="last""#
            .into(),
    );
    let got = result(r, &c);
    assert_eq!(got.content.len(), 2, "{got:?}");
    let note = got.content[1].as_text().map(|t| t.text.clone()).unwrap();
    assert_eq!(note, "[mcpgen: the API has more than this page.] The next page: the same arguments and {\"page\":2}.");
    assert!(got.structured_content.is_some(), "a whole result keeps its structured content");
    let alone = result(resp(200, "application/json", br#"[{"sha": "a"}]"#), &c);
    assert_eq!(alone.content.len(), 1, "no Link, no cursor: nothing said");
    let cursor = result(
        resp(200, "application/json", br#"{"items": [1], "next": "https://api.example.com/commits?page=3"}"#),
        &c,
    );
    assert!(cursor.content[1].as_text().unwrap().text.contains("{\"page\":3}"), "{cursor:?}");
}
