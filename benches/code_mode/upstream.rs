//! The local upstream of the code-mode bench.

use super::*;

// ---------------------------------------------------------------------------------------------
// The local upstream: each request matched against the API's operations, answered with that
// operation's sample, varied so that the items of a list are distinct.

/// One request as the upstream received it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Request {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) query: String,
    /// A form or JSON body (Stripe's POSTs); empty for none.
    pub(crate) body: String,
}

impl std::fmt::Display for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method, self.path)?;
        if !self.query.is_empty() {
            write!(f, "?{}", self.query)?;
        }
        if !self.body.is_empty() {
            write!(f, " [{}]", self.body)?;
        }
        Ok(())
    }
}

/// An operation as the upstream answers it.
pub(crate) struct Route {
    pub(crate) method: String,
    /// The path template's segments; `None` for a `{param}` segment (it matches any one segment).
    pub(crate) segments: Vec<Option<String>>,
    /// The sample, its URLs on the API's origin pointing at the local upstream.
    pub(crate) sample: Value,
    /// Where the sample's list is: `None` for a response without one, `Some(None)` when the
    /// response is the list, `Some(Some(member))` for an object's member (Stripe's `data`).
    pub(crate) list: Option<Option<String>>,
    /// The values of the list items' `status` (an enum), which items cycle through.
    pub(crate) statuses: Vec<Value>,
}

pub(crate) struct Upstream {
    pub(crate) routes: Vec<Route>,
    pub(crate) log: Mutex<Vec<Request>>,
}

impl Upstream {
    /// The most specific route for a request: among those that match, literal segments earliest.
    pub(crate) fn route(&self, method: &str, path: &str) -> Option<&Route> {
        let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        self.routes
            .iter()
            .filter(|r| r.method == method && r.segments.len() == segs.len())
            .filter(|r| r.segments.iter().zip(&segs).all(|(t, s)| t.as_deref().is_none_or(|t| t == *s)))
            .max_by_key(|r| r.segments.iter().map(Option::is_some).collect::<Vec<bool>>())
    }

    /// The requests received since the last call.
    pub(crate) fn take_log(&self) -> Vec<Request> {
        std::mem::take(&mut *self.log.lock().expect("request log"))
    }
}

/// Query parameters that page or order a list, or pick among states: they do not narrow it to
/// one item's (a customer's charges, a user's issues).
pub(crate) const NOT_NARROWING: [&str; 11] = [
    "per_page",
    "page",
    "limit",
    "starting_after",
    "ending_before",
    "sort",
    "direction",
    "state",
    "status",
    "type",
    "expand[]",
];

/// The answer to a request on `route`.
pub(crate) fn reply(route: &Route, path: &str, query: &str) -> Value {
    let mut value = route.sample.clone();
    let seed = fnv(&format!("{path}?{query}"));
    let params: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    match &route.list {
        Some(member) => {
            let items = match member {
                None => value.as_array_mut(),
                Some(m) => value.get_mut(m).and_then(Value::as_array_mut),
            };
            if let Some(items) = items {
                // The page asked for (else the description's default page size); a list narrowed
                // to one item's holds 1 to 8 (a pull request has a few reviews, not a page).
                let asked =
                    params.iter().find(|(k, _)| k == "per_page" || k == "limit").and_then(|(_, v)| v.parse().ok());
                let narrowed = params.iter().any(|(k, _)| !NOT_NARROWING.contains(&k.as_str()))
                    || route.segments.iter().filter(|s| s.is_none()).count() >= 3;
                let mut n = asked.unwrap_or(items.len());
                if narrowed {
                    n = n.min(1 + (seed % 8) as usize);
                }
                resize(items, n);
                vary_items(items, &route.statuses);
                // What the query filters on, the items have (`customer=...`, `status=active`).
                for (k, v) in params.iter().filter(|(k, _)| !["per_page", "limit", "page"].contains(&k.as_str())) {
                    for item in items.iter_mut() {
                        if let Some(Value::String(s)) = item.get_mut(k) {
                            *s = v.clone();
                        }
                    }
                }
            }
        }
        None => {
            // A path that ends in a parameter reads that one item.
            let last = route.segments.last().and_then(|s| s.is_none().then(|| path.rsplit('/').next())).flatten();
            let last = last.map(|l| percent_encoding::percent_decode_str(l).decode_utf8_lossy().into_owned());
            vary_item(&mut value, last.as_deref(), seed);
        }
    }
    if let Some(total @ Value::Number(_)) = value.get_mut("total_count") {
        *total = json!(seed % 40);
    }
    value
}

/// `items` made `n` long: cut, or filled with copies of the first.
pub(crate) fn resize(items: &mut Vec<Value>, n: usize) {
    items.truncate(n);
    if let Some(first) = items.first().cloned() {
        items.resize(n, first);
    }
}

/// Item i of a list (from 1) gets id i (`object_i` for Stripe's string ids), number i, name and
/// login `…-i`, a sha ending in i, and amounts, comment counts and `status` varying with i.
pub(crate) fn vary_items(items: &mut [Value], statuses: &[Value]) {
    for (k, item) in items.iter_mut().enumerate() {
        let i = k as u64 + 1;
        let Value::Object(o) = item else { continue };
        let object = o.get("object").and_then(Value::as_str).map(str::to_string);
        for (key, v) in o.iter_mut() {
            let new = match (key.as_str(), &*v) {
                ("id", Value::Number(_)) | ("number", Value::Number(_)) => json!(i),
                ("id", Value::String(s)) => json!(format!("{}_{i}", object.as_deref().unwrap_or(s))),
                ("name" | "login", Value::String(s)) => json!(format!("{s}-{i}")),
                ("sha", Value::String(s)) if s.len() >= 4 && s.is_char_boundary(s.len() - 4) => {
                    json!(format!("{}{i:04x}", &s[..s.len() - 4]))
                }
                ("customer", Value::String(_)) => json!(format!("customer_{i}")),
                ("comments", Value::Number(_)) => json!(i % 3),
                ("contributions", Value::Number(_)) => json!(600 / i),
                ("amount" | "amount_due", Value::Number(_)) => json!(2500 * (i % 9)),
                ("status", _) if !statuses.is_empty() => statuses[k % statuses.len()].clone(),
                _ => continue,
            };
            *v = new;
        }
    }
}

/// One item read by its path: its string id, login or sha is the path's last segment, its email
/// follows from it; a release's tag and a commit's files vary with the path.
pub(crate) fn vary_item(value: &mut Value, last: Option<&str>, seed: u64) {
    let Value::Object(o) = value else { return };
    if let Some(last) = last {
        for key in ["id", "login", "sha"] {
            if let Some(Value::String(s)) = o.get_mut(key) {
                *s = last.to_string();
            }
        }
        if let Some(Value::String(s)) = o.get_mut("email") {
            *s = format!("{last}@example.com");
        }
    }
    if let Some(Value::String(s)) = o.get_mut("tag_name") {
        *s = format!("v{}.{}.0", 1 + seed % 3, seed % 10);
    }
    if let Some(Value::Array(files)) = o.get_mut("files") {
        for (j, f) in files.iter_mut().enumerate() {
            if let Some(Value::String(name)) = f.get_mut("filename")
                && (seed + j as u64).is_multiple_of(3)
            {
                *name = format!("src/{name}");
            }
        }
    }
}

/// FNV-1a: a stable hash (the standard library's is seeded per process).
pub(crate) fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

pub(crate) async fn answer(
    State(up): State<Arc<Upstream>>,
    method: HttpMethod,
    uri: Uri,
    body: bytes::Bytes,
) -> axum::response::Response {
    let (path, query) = (uri.path().to_string(), uri.query().unwrap_or("").to_string());
    let found = up.route(method.as_str(), &path).map(|r| reply(r, &path, &query));
    let body = String::from_utf8_lossy(&body).into_owned();
    up.log.lock().expect("request log").push(Request { method: method.to_string(), path, query, body });
    let (status, value) = match found {
        Some(v) => (200, v),
        None => (404, json!({"message": "Not Found"})),
    };
    axum::response::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(axum::body::Body::from(serde_json::to_vec(&value).unwrap_or_default()))
        .expect("response")
}

/// The routes of every operation with a JSON sample, URLs on the API's origin moved to `base`.
pub(crate) fn routes(ir: &ApiIr, base: &str) -> Vec<Route> {
    let mut routes = Vec::new();
    for op in &ir.operations {
        let Some(mut s) = sample_response(ir, op) else { continue };
        rehome(&mut s.value, &sample::origin(ir, op), base);
        let list = s.page_size.map(|_| main_list(&s.value));
        let statuses = list.as_ref().map(|m| item_statuses(ir, op, m.as_deref())).unwrap_or_default();
        routes.push(Route {
            method: op.method.as_upper().to_string(),
            segments: op
                .path
                .split('/')
                .filter(|s| !s.is_empty())
                .map(|s| (!s.contains('{')).then(|| s.to_string()))
                .collect(),
            sample: s.value,
            list,
            statuses,
        });
    }
    routes
}

/// The list of a list response: itself, or its object's longest array of objects.
pub(crate) fn main_list(v: &Value) -> Option<String> {
    let o = v.as_object()?;
    o.iter()
        .filter_map(|(k, v)| Some((k, v.as_array()?)))
        .filter(|(_, a)| a.first().is_some_and(Value::is_object))
        .max_by_key(|(_, a)| a.len())
        .map(|(k, _)| k.clone())
}

/// The enum of the list items' `status`, from the response schema.
pub(crate) fn item_statuses(ir: &ApiIr, op: &Operation, member: Option<&str>) -> Vec<Value> {
    let Some(media) = op.response.as_ref().and_then(|r| r.content.iter().find(|m| m.media_type.contains("json")))
    else {
        return Vec::new();
    };
    let mut list = resolve(ir, &media.schema);
    if let Some(m) = member {
        list = resolve(ir, &list["properties"][m]);
    }
    let item = resolve(ir, &list["items"]);
    let status = resolve(ir, &item["properties"]["status"]);
    status.get("enum").and_then(Value::as_array).cloned().unwrap_or_default()
}

/// A schema with its `$ref`s into the API's schemas followed.
pub(crate) fn resolve<'a>(ir: &'a ApiIr, mut s: &'a Value) -> &'a Value {
    for _ in 0..16 {
        let target = s.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"));
        match target.and_then(|name| ir.schemas.get(name)) {
            Some(t) => s = t,
            None => break,
        }
    }
    s
}
