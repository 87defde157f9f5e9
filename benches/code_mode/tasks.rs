//! The ten tasks of the code-mode bench, and how what the model reads and writes is measured.

use super::*;

// ---------------------------------------------------------------------------------------------
// Measuring what the model reads and writes.

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Measure {
    pub(crate) chars: usize,
    pub(crate) tokens: usize,
    /// Tokens of the text blocks alone (what a client that passes on only those shows the model).
    pub(crate) text_tokens: usize,
}

impl std::ops::AddAssign for Measure {
    fn add_assign(&mut self, o: Measure) {
        self.chars += o.chars;
        self.tokens += o.tokens;
        self.text_tokens += o.text_tokens;
    }
}

pub(crate) fn measure_text(text: &str) -> Measure {
    let tokens = tokens(text);
    Measure { chars: text.chars().count(), tokens, text_tokens: tokens }
}

/// A result as the client receives it: its text blocks, and its `structuredContent` when present.
pub(crate) fn measure(r: &CallToolResult) -> Measure {
    let text = texts(r).join("");
    let Some(sc) = &r.structured_content else { return measure_text(&text) };
    let all = format!("{text}{}", serde_json::to_string(sc).unwrap_or_default());
    Measure { text_tokens: tokens(&text), ..measure_text(&all) }
}

pub(crate) fn texts(r: &CallToolResult) -> Vec<&str> {
    r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.as_str())).collect()
}

/// What a model writes for a call: its arguments as JSON.
pub(crate) fn written(args: &Value) -> Measure {
    measure_text(&serde_json::to_string(args).unwrap_or_default())
}

// ---------------------------------------------------------------------------------------------
// The tool-per-step way: each call made as a model would, its result read as the model reads it.

/// One call of the tool-per-step way.
pub(crate) struct Step {
    pub(crate) tool: String,
    /// The arguments the model wrote (with `_jq` when it selects).
    pub(crate) args: Value,
    pub(crate) read: Measure,
    pub(crate) text: String,
    /// The call without `_jq` went over the result budget, so the model selects: what that
    /// call would have read, and the note of its reduction.
    pub(crate) over_budget: Option<(Measure, String)>,
}

/// How the tool-per-step way calls: plain, with a `_jq` filter only where the plain result would
/// be reduced to the budget (and so lose items the task needs); or with `_jq` on every call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Select {
    WhereNeeded,
    Always,
}

/// The calls of one task's tool-per-step way (shared by the task's function and its runner).
#[derive(Clone)]
pub(crate) struct Steps {
    pub(crate) api: Arc<Api>,
    pub(crate) select: Select,
    pub(crate) done: Arc<Mutex<Vec<Step>>>,
}

impl Steps {
    /// Calls `tool` as the model would and parses the JSON text of its result, as the model
    /// reads it; `jq` selects what the task needs, of the same shape as the whole response.
    pub(crate) async fn call(&self, tool: &str, args: Value, jq: &str) -> Result<Value, String> {
        if self.api.steps.tool(tool).is_none() {
            return Err(format!("{} has no tool `{tool}`", self.api.name));
        }
        let mut over_budget = None;
        let mut result = None;
        if self.select == Select::WhereNeeded {
            let r = self.call_once(tool, &args).await?;
            let all = texts(&r);
            match all.iter().skip(1).find(|t| t.starts_with("[mcpgen: this result was reduced")) {
                Some(note) => {
                    // Over the budget: the model calls again, selecting. This call is not one
                    // of the task's: off the upstream's record.
                    over_budget = Some((measure(&r), note.to_string()));
                    self.api.up.log.lock().expect("request log").pop();
                }
                None => result = Some(r),
            }
        }
        let mut args = args;
        let result = match result {
            Some(r) => r,
            None => {
                if let Value::Object(a) = &mut args {
                    a.insert("_jq".into(), json!(jq));
                }
                self.call_once(tool, &args).await?
            }
        };
        let all = texts(&result);
        let text = all.first().copied().unwrap_or("").to_string();
        let parsed = serde_json::from_str(&text).map_err(|e| format!("`{tool}`: its result is not JSON ({e})"));
        let step = Step { tool: tool.to_string(), args, read: measure(&result), text: all.join("\n"), over_budget };
        self.done.lock().expect("steps").push(step);
        parsed
    }

    pub(crate) async fn call_once(&self, tool: &str, args: &Value) -> Result<CallToolResult, String> {
        let Value::Object(map) = args.clone() else { return Err(format!("arguments of `{tool}` are not an object")) };
        let result = self.api.steps.call(tool, map).await.map_err(|e| format!("`{tool}`: {e}"))?;
        if result.is_error == Some(true) {
            return Err(format!("`{tool}` failed: {}", cut(texts(&result).first().copied().unwrap_or(""), 300)));
        }
        Ok(result)
    }
}

/// A task's two ways: the tool-per-step way's answer, and the script meant to give the same.
pub(crate) struct Pair {
    pub(crate) answer: Value,
    pub(crate) script: &'static str,
}

/// `v[key]`, or a message saying what is missing.
pub(crate) fn field<'v>(v: &'v Value, key: &str) -> Result<&'v Value, String> {
    v.get(key).ok_or_else(|| format!("no `{key}` in {}", cut(&v.to_string(), 200)))
}

pub(crate) fn text_field<'v>(v: &'v Value, key: &str) -> Result<&'v str, String> {
    field(v, key)?.as_str().ok_or_else(|| format!("`{key}` is not a string in {}", cut(&v.to_string(), 200)))
}

pub(crate) fn list<'v>(v: &'v Value, what: &str) -> Result<&'v [Value], String> {
    v.as_array().map(Vec::as_slice).ok_or_else(|| format!("{what} is not a list: {}", cut(&v.to_string(), 200)))
}

pub(crate) fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { format!("{}…", s.chars().take(n).collect::<String>()) }
}

// ---------------------------------------------------------------------------------------------
// The tasks: each a function doing the tool-per-step way and giving the equivalent script.

/// GitHub 1: the repositories of an organisation, and each one's count of open issues labelled
/// bug (a search per repository: its `total_count`, one item read).
pub(crate) async fn bug_counts(s: Steps) -> Result<Pair, String> {
    let repos = s.call("repos_list-for-org", json!({"org": "octo-org", "per_page": 10}), "[.[] | {name}]").await?;
    let mut answer = Vec::new();
    for r in list(&repos, "repos")? {
        let name = text_field(r, "name")?;
        let q = format!("repo:octo-org/{name} is:issue is:open label:bug");
        let found = s.call("search_issues-and-pull-requests", json!({"q": q, "per_page": 1}), "{total_count}").await?;
        answer.push(json!({"repo": name, "bugs": field(&found, "total_count")?}));
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const repos = await api.repos_list_for_org({org: "octo-org", per_page: 10});
return await Promise.all(repos.map(async r => {
  const found = await api.search_issues_and_pull_requests({q: `repo:octo-org/${r.name} is:issue is:open label:bug`, per_page: 1});
  return {repo: r.name, bugs: found.total_count};
}));"#,
    })
}

/// GitHub 2: the open pull requests of a repository, each with its number of reviews.
pub(crate) async fn reviews_per_pull(s: Steps) -> Result<Pair, String> {
    let pulls = s
        .call(
            "pulls_list",
            json!({"owner": "octo-org", "repo": "hello-world", "state": "open", "per_page": 10}),
            "[.[] | {number, title}]",
        )
        .await?;
    let mut answer = Vec::new();
    for p in list(&pulls, "pulls")? {
        let number = field(p, "number")?;
        let reviews = s
            .call(
                "pulls_list-reviews",
                json!({"owner": "octo-org", "repo": "hello-world", "pull_number": number}),
                "[.[] | {id}]",
            )
            .await?;
        answer
            .push(json!({"number": number, "title": field(p, "title")?, "reviews": list(&reviews, "reviews")?.len()}));
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const pulls = await api.pulls_list({owner: "octo-org", repo: "hello-world", state: "open", per_page: 10});
return await Promise.all(pulls.map(async p => {
  const reviews = await api.pulls_list_reviews({owner: "octo-org", repo: "hello-world", pull_number: p.number});
  return {number: p.number, title: p.title, reviews: reviews.length};
}));"#,
    })
}

/// GitHub 3: the top 5 contributors of a repository and each one's name.
pub(crate) async fn contributor_names(s: Steps) -> Result<Pair, String> {
    let top = s
        .call(
            "repos_list-contributors",
            json!({"owner": "octo-org", "repo": "hello-world", "per_page": 5}),
            "[.[] | {login, contributions}]",
        )
        .await?;
    let mut answer = Vec::new();
    for c in list(&top, "contributors")? {
        let login = text_field(c, "login")?;
        let user = s.call("users_get-by-username", json!({"username": login}), "{name}").await?;
        answer
            .push(json!({"login": login, "contributions": field(c, "contributions")?, "name": field(&user, "name")?}));
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const top = await api.repos_list_contributors({owner: "octo-org", repo: "hello-world", per_page: 5});
return await Promise.all(top.map(async c => {
  const user = await api.users_get_by_username({username: c.login});
  return {login: c.login, contributions: c.contributions, name: user.name};
}));"#,
    })
}

/// GitHub 4: the latest release tag of each of five repositories.
pub(crate) async fn latest_tags(s: Steps) -> Result<Pair, String> {
    let mut answer = Vec::new();
    for repo in ["hello-world", "spoon-knife", "linguist", "docs", "cli"] {
        let release =
            s.call("repos_get-latest-release", json!({"owner": "octo-org", "repo": repo}), "{tag_name}").await?;
        answer.push(json!({"repo": repo, "tag": field(&release, "tag_name")?}));
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const repos = ["hello-world", "spoon-knife", "linguist", "docs", "cli"];
return await Promise.all(repos.map(async repo => {
  const release = await api.repos_get_latest_release({owner: "octo-org", repo});
  return {repo, tag: release.tag_name};
}));"#,
    })
}

/// GitHub 5: the open issues assigned to a user that have no comments (one list, filtered).
pub(crate) async fn silent_issues(s: Steps) -> Result<Pair, String> {
    let issues = s
        .call(
            "issues_list-for-repo",
            json!({"owner": "octo-org", "repo": "hello-world", "assignee": "octocat", "state": "open", "per_page": 100}),
            "[.[] | {number, title, comments}]",
        )
        .await?;
    let mut answer = Vec::new();
    for i in list(&issues, "issues")? {
        if field(i, "comments")? == 0 {
            answer.push(json!({"number": field(i, "number")?, "title": field(i, "title")?}));
        }
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const issues = await api.issues_list_for_repo({owner: "octo-org", repo: "hello-world", assignee: "octocat", state: "open", per_page: 100});
return issues.filter(i => i.comments === 0).map(i => ({number: i.number, title: i.title}));"#,
    })
}

/// GitHub 6: the last 10 commits of a repository, and which of them touched files under `src/`.
pub(crate) async fn commits_in_src(s: Steps) -> Result<Pair, String> {
    let commits = s
        .call(
            "repos_list-commits",
            json!({"owner": "octo-org", "repo": "hello-world", "per_page": 10}),
            "[.[] | {sha}]",
        )
        .await?;
    let mut answer = Vec::new();
    for c in list(&commits, "commits")? {
        let sha = text_field(c, "sha")?;
        let commit = s
            .call(
                "repos_get-commit",
                json!({"owner": "octo-org", "repo": "hello-world", "ref": sha}),
                "{files: [.files[] | {filename}]}",
            )
            .await?;
        let files = list(field(&commit, "files")?, "files")?;
        let src =
            files.iter().any(|f| f.get("filename").and_then(Value::as_str).is_some_and(|n| n.starts_with("src/")));
        answer.push(json!({"sha": sha, "src": src}));
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const commits = await api.repos_list_commits({owner: "octo-org", repo: "hello-world", per_page: 10});
return await Promise.all(commits.map(async c => {
  const commit = await api.repos_get_commit({owner: "octo-org", repo: "hello-world", ref: c.sha});
  return {sha: c.sha, src: commit.files.some(f => f.filename.startsWith("src/"))};
}));"#,
    })
}

/// Stripe 7: the total amount of a customer's succeeded charges.
pub(crate) async fn succeeded_total(s: Steps) -> Result<Pair, String> {
    let charges = s
        .call("GetCharges", json!({"customer": "cus_42", "limit": 100}), "{data: [.data[] | {status, amount}]}")
        .await?;
    let (mut total, mut count) = (0, 0);
    for c in list(field(&charges, "data")?, "charges")? {
        if text_field(c, "status")? == "succeeded" {
            total += field(c, "amount")?.as_i64().ok_or("`amount` is not an integer")?;
            count += 1;
        }
    }
    Ok(Pair {
        answer: json!({"total": total, "count": count}),
        script: r#"const charges = await api.GetCharges({customer: "cus_42", limit: 100});
pub(crate) const ok = charges.data.filter(c => c.status === "succeeded");
return {total: ok.reduce((sum, c) => sum + c.amount, 0), count: ok.length};"#,
    })
}

/// Stripe 8: for each of the ten newest customers, the number of active subscriptions.
pub(crate) async fn active_subscriptions(s: Steps) -> Result<Pair, String> {
    let customers = s.call("GetCustomers", json!({"limit": 10}), "{data: [.data[] | {id}]}").await?;
    let mut answer = Vec::new();
    for c in list(field(&customers, "data")?, "customers")? {
        let id = text_field(c, "id")?;
        let subs = s
            .call(
                "GetSubscriptions",
                json!({"customer": id, "status": "active", "limit": 100}),
                "{data: [.data[] | {id}]}",
            )
            .await?;
        answer.push(json!({"customer": id, "active": list(field(&subs, "data")?, "subscriptions")?.len()}));
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const customers = await api.GetCustomers({limit: 10});
return await Promise.all(customers.data.map(async c => {
  const subs = await api.GetSubscriptions({customer: c.id, status: "active", limit: 100});
  return {customer: c.id, active: subs.data.length};
}));"#,
    })
}

/// Stripe 9: the open invoices over 100.00, each with its customer's email.
pub(crate) async fn big_open_invoices(s: Steps) -> Result<Pair, String> {
    let invoices = s
        .call("GetInvoices", json!({"status": "open", "limit": 10}), "{data: [.data[] | {id, amount_due, customer}]}")
        .await?;
    let mut answer = Vec::new();
    for inv in list(field(&invoices, "data")?, "invoices")? {
        let amount = field(inv, "amount_due")?.as_i64().ok_or("`amount_due` is not an integer")?;
        if amount > 10_000 {
            let customer =
                s.call("GetCustomersCustomer", json!({"customer": text_field(inv, "customer")?}), "{email}").await?;
            answer
                .push(json!({"invoice": field(inv, "id")?, "amount_due": amount, "email": field(&customer, "email")?}));
        }
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const invoices = await api.GetInvoices({status: "open", limit: 10});
pub(crate) const big = invoices.data.filter(i => i.amount_due > 10000);
return await Promise.all(big.map(async i => {
  const customer = await api.GetCustomersCustomer({customer: i.customer});
  return {invoice: i.id, amount_due: i.amount_due, email: customer.email};
}));"#,
    })
}

/// Stripe 10: refund a customer's latest charge.
pub(crate) async fn refund_latest(s: Steps) -> Result<Pair, String> {
    let charges = s.call("GetCharges", json!({"customer": "cus_42", "limit": 1}), "{data: [.data[] | {id}]}").await?;
    let latest = list(field(&charges, "data")?, "charges")?.first().ok_or("the customer has no charge")?;
    let charge = text_field(latest, "id")?;
    let refund = s.call("PostRefunds", json!({"charge": charge}), "{id, status}").await?;
    Ok(Pair {
        answer: json!({"charge": charge, "refund": field(&refund, "id")?, "status": field(&refund, "status")?}),
        script: r#"const charges = await api.GetCharges({customer: "cus_42", limit: 1});
pub(crate) const charge = charges.data[0];
if (!charge) return "the customer has no charge";
pub(crate) const refund = await api.PostRefunds({charge: charge.id});
return {charge: charge.id, refund: refund.id, status: refund.status};"#,
    })
}
