//! What each request id stands for, the same in the clients and the upstream: its operation and
//! arguments, the fault the upstream injects for it, and the healthy answer; and the spec served.

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

/// Faulty answers per thousand.
const FAULTS_PER_MILLE: u64 = 50;

/// What the upstream does with a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Fault {
    None,
    Status500,
    Reset,
    Slow,
    Truncated,
    BadJson,
    Big,
}

pub(crate) const FAULTS: [Fault; 6] =
    [Fault::Status500, Fault::Reset, Fault::Slow, Fault::Truncated, Fault::BadJson, Fault::Big];

impl Fault {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Fault::None => "healthy",
            Fault::Status500 => "HTTP 500",
            Fault::Reset => "reset",
            Fault::Slow => "timeout",
            Fault::Truncated => "truncated body",
            Fault::BadJson => "bad JSON",
            Fault::Big => "10 MB body",
        }
    }
}

/// splitmix64: request ids to well-spread bits, the same in the client and the upstream.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The fault the upstream injects for request `rid`: 5 %, spread over the six kinds.
pub(crate) fn fault_of(rid: u64) -> Fault {
    let h = mix(rid) % 1000;
    if h < FAULTS_PER_MILLE { FAULTS[(h % 6) as usize] } else { Fault::None }
}

/// The operations of the spec; the request id travels in the path, the query or the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Op {
    GetItem,
    SearchItems,
    CreateOrder,
}

pub(crate) fn op_of(rid: u64) -> Op {
    match (mix(rid) >> 32) % 3 {
        0 => Op::GetItem,
        1 => Op::SearchItems,
        _ => Op::CreateOrder,
    }
}

pub(crate) const QUERY: &str = "soak & ünïcode/?=";

pub(crate) fn limit_of(rid: u64) -> u64 {
    1 + rid % 5
}

pub(crate) fn qty_of(rid: u64) -> u64 {
    1 + rid % 7
}

pub(crate) fn note_of(rid: u64) -> String {
    format!("order r{rid} \u{2014} \"quoted\"")
}

/// The tool call for request `rid`.
pub(crate) fn call_for(rid: u64) -> CallToolRequestParams {
    let (name, args) = match op_of(rid) {
        Op::GetItem => ("getItem", json!({"id": format!("r{rid}")})),
        Op::SearchItems => ("searchItems", json!({"q": QUERY, "limit": limit_of(rid), "rid": rid})),
        Op::CreateOrder => ("createOrder", json!({"rid": rid, "qty": qty_of(rid), "note": note_of(rid)})),
    };
    CallToolRequestParams::new(name).with_arguments(args.as_object().cloned().expect("an object"))
}

/// The upstream's healthy answer to request `rid` (what the client expects as structured content).
pub(crate) fn healthy(rid: u64) -> Value {
    match op_of(rid) {
        Op::GetItem => json!({"id": format!("r{rid}"), "stock": mix(rid ^ 1) % 1000, "tags": ["soak", "item"]}),
        Op::SearchItems => json!({
            "q": QUERY,
            "rid": rid,
            "items": (0..limit_of(rid)).map(|i| json!({"id": rid * 10 + i})).collect::<Vec<_>>(),
        }),
        Op::CreateOrder => json!({"rid": rid, "qty": qty_of(rid), "note": note_of(rid), "status": "created"}),
    }
}

/// The OpenAPI spec of the soak, with `getStats` once it has been edited (`with_stats`).
pub(crate) fn spec(upstream: &str, with_stats: bool) -> String {
    let mut s = format!(
        r#"openapi: 3.0.3
info: {{title: Soak API, version: 1.0.0}}
servers: [{{url: "{upstream}"}}]
paths:
  /items/{{id}}:
    get:
      operationId: getItem
      parameters: [{{name: id, in: path, required: true, schema: {{type: string}}}}]
      responses: {{"200": {{description: the item}}}}
  /search:
    get:
      operationId: searchItems
      parameters:
        - {{name: q, in: query, required: true, schema: {{type: string}}}}
        - {{name: limit, in: query, schema: {{type: integer}}}}
        - {{name: rid, in: query, required: true, schema: {{type: integer}}}}
      responses: {{"200": {{description: matches}}}}
  /orders:
    post:
      operationId: createOrder
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [rid, qty]
              properties: {{rid: {{type: integer}}, qty: {{type: integer}}, note: {{type: string}}}}
      responses: {{"201": {{description: created}}}}
"#
    );
    if with_stats {
        s.push_str("  /stats:\n    get: {operationId: getStats, responses: {\"200\": {description: counters}}}\n");
    }
    s
}
