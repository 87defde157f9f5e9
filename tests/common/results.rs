//! End-to-end checks of results that fit the model (`_jq`, the budget and its next-page notes,
//! lean and full rendering), run against a subject like the others: `mcpgen serve` over stdio and
//! HTTP (tests/e2e.rs) and a generated crate (tests/generate.rs).

use serde_json::{Value, json};

use super::checks::{Subject, ok};
use super::*;

/// Every check, in turn.
pub async fn all(subject: &Subject, mock: &Mock) {
    projection(subject, mock).await;
    projection_faults(subject, mock).await;
    reduction(subject, mock).await;
    rendering(subject, mock).await;
}

/// `n` items of about 150 characters, with a link back into the API (`url`).
fn items(mock: &Mock, n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            json!({"id": format!("it_{i}"), "title": format!("Item number {i} with a title long enough to matter"),
                   "url": format!("{}/api/items/{i}", mock.url()), "user": {"login": format!("user{i}")}})
        })
        .collect()
}

/// The result's text blocks.
fn blocks(r: &CallToolResult) -> Vec<String> {
    r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect()
}

/// The first block, which must be JSON.
fn json_of(r: &CallToolResult) -> Value {
    let first = blocks(r).into_iter().next().expect("a text block");
    serde_json::from_str(&first).unwrap_or_else(|e| panic!("not JSON ({e}): {first}"))
}

/// `_jq` selects exactly what it says, and never reaches the upstream.
pub async fn projection(subject: &Subject, mock: &Mock) {
    let cmd = subject.command(&format!("{}/api", mock.url()), &[]);
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;
        let list = Value::Array(items(mock, 3));
        let cases = [
            (
                "map({id, who: .user.login})",
                json!([{"id": "it_0", "who": "user0"}, {"id": "it_1", "who": "user1"}, {"id": "it_2", "who": "user2"}]),
            ),
            (".[1].user", json!({"login": "user1"})),
            ("map(.id)", json!(["it_0", "it_1", "it_2"])),
            (".[0].missing", json!(null)),
            (".[].id", json!(["it_0", "it_1", "it_2"])),
            (
                ".[0] | {title, url}",
                json!({"title": "Item number 0 with a title long enough to matter", "url": format!("{}/api/items/0", mock.url())}),
            ),
        ];
        for (filter, expected) in cases {
            mock.reply_next(Reply::Json(200, list.clone()));
            let r = c.call("listPages", json!({"page": 2, "_jq": filter})).await;
            ok(&r);
            assert_eq!(json_of(&r), expected, "{filter}");
            let sent = mock.last();
            assert_eq!(sent.query.as_deref(), Some("page=2"), "the filter never goes upstream");
        }
        c.client.cancel().await.unwrap();
    }
}

/// Bad filters, filters that loop or blow up, and responses that are not JSON are clear errors,
/// and the server goes on serving.
pub async fn projection_faults(subject: &Subject, mock: &Mock) {
    let cmd = subject.command(&format!("{}/api", mock.url()), &[]);
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;
        let list = Value::Array(items(mock, 2));
        mock.reply_next(Reply::Json(200, list.clone()));
        let r = c.call("listPages", json!({"_jq": "map(.id"})).await;
        assert_eq!(r.is_error, Some(true));
        let t = text(&r);
        assert!(
            t.contains("expected closing parenthesis") && t.contains("an array of 2 objects with id, title, url, user"),
            "{t}"
        );

        for looping in ["last(repeat(1))", "def f: 1 + f; f", "[range(1e12)] | length"] {
            mock.reply_next(Reply::Json(200, list.clone()));
            let started = std::time::Instant::now();
            let r = c.call("listPages", json!({"_jq": looping})).await;
            assert_eq!(r.is_error, Some(true), "{looping}");
            assert!(started.elapsed() < Duration::from_secs(10), "{looping}: {:?}", started.elapsed());
            let t = text(&r);
            assert!(
                t.contains("was stopped") || t.contains("could not run") || t.contains("output passed"),
                "{looping}: {t}"
            );
        }
        // Still serving.
        mock.reply_next(Reply::Json(200, list.clone()));
        let r = c.call("listPages", json!({"_jq": "length"})).await;
        assert_eq!(json_of(&r), json!(2));

        mock.reply_next(Reply::Raw(200, "text/csv", b"a,b\n1,2\n".to_vec()));
        let r = c.call("listPages", json!({"_jq": "."})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(text(&r).contains("`text/csv`, not JSON"), "{}", text(&r));

        mock.reply_next(Reply::Json(200, list));
        let r = c.call("listPages", json!({"_jq": 7})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(text(&r).contains("must be a jq filter"), "{}", text(&r));
        c.client.cancel().await.unwrap();
    }
}

/// Over the budget, every pagination style names the arguments of the rest and the next page,
/// and the text stays JSON.
pub async fn reduction(subject: &Subject, mock: &Mock) {
    let cmd = subject.command(&format!("{}/api", mock.url()), &["--max-result-chars", "4000"]);
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;
        let fits = |r: &CallToolResult| {
            let b = blocks(r);
            assert_eq!(b.len(), 2, "{b:?}");
            assert!(b.iter().map(|t| t.chars().count()).sum::<usize>() <= 4000, "{b:?}");
            let kept = json_of(r);
            (kept, b[1].clone())
        };
        let kept_count = |v: &Value, path: &str| v.pointer(path).and_then(Value::as_array).map_or(0, Vec::len);

        // Page numbers: the next page, and the rest of this one with `_jq`.
        mock.reply_next(Reply::Json(200, Value::Array(items(mock, 100))));
        let (kept, note) = fits(&c.call("listPages", json!({"page": 2})).await);
        let n = kept_count(&kept, "");
        assert!(n >= 5, "{n}");
        assert!(note.contains(&format!("the first {n} of 100 items")), "{note}");
        assert!(
            note.contains(&format!(r#"{{"_jq":".[{n}:]"}}"#))
                && note.contains(r#"if there is one: the same arguments and {"page":3}"#),
            "{note}"
        );

        // GitHub's way: a Link header gives the next page's arguments.
        let link = format!(r#"<{}/api/list/pages?page=3&per_page=30>; rel="next""#, mock.url());
        mock.reply_next(Reply::JsonWith(200, Value::Array(items(mock, 100)), vec![("link", link)]));
        let (_, note) = fits(&c.call("listPages", json!({"page": 2})).await);
        assert!(note.contains(r#"{"page":3,"per_page":30}"#), "{note}");

        // An offset: the rest of the list exactly.
        mock.reply_next(Reply::Json(200, Value::Array(items(mock, 100))));
        let (kept, note) = fits(&c.call("listOffset", json!({"offset": 40, "limit": 100})).await);
        let n = kept_count(&kept, "");
        assert!(note.contains(&format!(r#"{{"offset":{}}}"#, 40 + n)), "{note}");

        // A cursor in the body (Slack's way): the next page.
        mock.reply_next(Reply::Json(200, json!({"items": items(mock, 100), "next_cursor": "Y3Vyc29yOjQy"})));
        let (kept, note) = fits(&c.call("listCursor", json!({})).await);
        assert_eq!(kept["next_cursor"], json!("Y3Vyc29yOjQy"));
        let n = kept_count(&kept, "/items");
        assert!(note.contains(&format!(r#"{{"_jq":".items[{n}:]"}}"#)), "{note}");
        assert!(note.contains(r#"{"cursor":"Y3Vyc29yOjQy"}"#), "{note}");

        // Stripe's `starting_after`: the rest from the last item kept, the next page from the last.
        mock.reply_next(Reply::Json(200, json!({"object": "list", "data": items(mock, 100), "has_more": true})));
        let (kept, note) = fits(&c.call("listAfter", json!({})).await);
        let n = kept_count(&kept, "/data");
        assert!(note.contains(&format!(r#"{{"starting_after":"it_{}"}}"#, n - 1)), "{note}");
        assert!(note.contains(r#"{"starting_after":"it_99"}"#), "{note}");

        // With a filter, the rest is the same filter sliced.
        mock.reply_next(Reply::Json(200, Value::Array(items(mock, 300))));
        let (kept, note) = fits(&c.call("listPages", json!({"_jq": "map({id, title})"})).await);
        let n = kept_count(&kept, "");
        assert!(note.contains(&format!(r#"{{"_jq":"(map({{id, title}})) | .[{n}:]"}}"#)), "{note}");
        c.client.cancel().await.unwrap();
    }
}

/// Lean by default (links into the API left out, no structuredContent), `full` byte for byte,
/// errors within 8,000 characters, and `_jq` through discovery's call_tool.
pub async fn rendering(subject: &Subject, mock: &Mock) {
    let api = format!("{}/api", mock.url());
    let raw = format!(
        r#"{{"id": "it_1",  "url": "{}/api/items/1", "html_url": "https://example.com/1", "merged_at": null}}"#,
        mock.url()
    );
    for transport in TRANSPORTS {
        let lean = connect(&subject.command(&api, &[]), transport).await;
        mock.reply_next(Reply::Raw(200, "application/json", raw.clone().into_bytes()));
        let r = lean.call("fault", json!({})).await;
        assert_eq!(blocks(&r), [r#"{"id":"it_1","html_url":"https://example.com/1","merged_at":null}"#]);
        assert_eq!(r.structured_content, None);

        mock.reply_next(Reply::Json(404, json!({"message": "Not Found", "trace": "x".repeat(30_000)})));
        let r = lean.call("fault", json!({})).await;
        let t = text(&r);
        assert!(t.chars().count() <= 8_000 && t.contains("The API says: Not Found"), "{}", t.len());
        lean.client.cancel().await.unwrap();

        let full = connect(&subject.command(&api, &["--response-detail", "full"]), transport).await;
        mock.reply_next(Reply::Raw(200, "application/json", raw.clone().into_bytes()));
        let r = full.call("fault", json!({})).await;
        assert_eq!((blocks(&r).len(), blocks(&r).concat()), (1, raw.clone()), "byte for byte");
        assert_eq!(r.structured_content, Some(serde_json::from_str(&raw).unwrap()));
        full.client.cancel().await.unwrap();

        let discovery = connect(&subject.command(&api, &["--tool-mode", "discovery"]), transport).await;
        mock.reply_next(Reply::Json(200, Value::Array(items(mock, 3))));
        let r = discovery
            .call("call_tool", json!({"name": "listPages", "arguments": {"page": 1}, "_jq": "map(.user.login)"}))
            .await;
        assert_eq!(json_of(&r), json!(["user0", "user1", "user2"]));
        let described = discovery.call("describe_tools", json!({"names": ["listPages"]})).await;
        let tools = json_of(&described);
        assert!(tools[0]["inputSchema"]["properties"]["_jq"].is_object(), "{tools}");
        let shape = tools[0]["response"].as_str().unwrap_or_default();
        assert!(shape.starts_with("[{id") && shape.contains("user"), "the response's shape: {tools}");
        discovery.client.cancel().await.unwrap();
    }
}
