//! A summary to suggest for an operation, made from the operation itself: what its method does to
//! the resource its path names, the resource that holds it, or the required query parameter that
//! picks what it acts on (`GET /tasks/{task_gid}/stories`: "List the stories of a task";
//! `DELETE /repos/{owner}/{repo}`: "Delete a repo").

use mcpgen_config::{Method, ParamLocation, Tool};

use super::words;

/// `stories` -> `story`, `repositories` -> `repository`, `statuses` -> `status`, `data` as it is.
fn singular(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("ies").filter(|s| s.len() > 1) {
        return format!("{stem}y");
    }
    for ending in ["sses", "shes", "ches", "xes", "uses"] {
        if let Some(stem) = word.strip_suffix(ending) {
            return format!("{stem}{}", &ending[..ending.len() - 2]);
        }
    }
    match word.strip_suffix('s') {
        Some(stem) if !word.ends_with("ss") && stem.len() > 1 => stem.to_string(),
        _ => word.to_string(),
    }
}

/// Whether a phrase's last word is a plural (`pets`, `goal relationships`; not `status`).
fn plural(phrase: &[String]) -> bool {
    phrase.last().is_some_and(|w| singular(w) != *w)
}

/// A phrase with its last word singular.
fn one(phrase: &[String]) -> String {
    let mut words = phrase.to_vec();
    if let Some(last) = words.last_mut() {
        *last = singular(last);
    }
    words.join(" ")
}

/// `a issue` -> `an issue`: the article for a phrase, by its first letter.
fn a(phrase: &str) -> String {
    let vowel = phrase.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {phrase}", if vowel { "an" } else { "a" })
}

/// A summary that says what the tool's operation does to what, from its method and path; `None`
/// for a tool without an HTTP binding, or a path without words.
pub(super) fn summary(tool: &Tool) -> Option<String> {
    let http = tool.http.as_ref()?;
    let segments: Vec<&str> = http.path.split('/').filter(|s| !s.is_empty()).collect();
    let literal = |s: &&str| !s.starts_with('{');
    let last = segments.iter().rposition(&literal)?;
    let resource = words(segments[last]);
    if resource.is_empty() {
        return None;
    }
    let on_one = segments.len() > last + 1;
    let (all, each) = (resource.join(" "), one(&resource));
    let mut text = match (http.method, on_one) {
        (Method::Get, false) if plural(&resource) => format!("List the {all}"),
        (Method::Get, true) => format!("Get {}", a(&each)),
        (Method::Get, false) => format!("Get the {each}"),
        (Method::Post, false) => format!("Create {}", a(&each)),
        (Method::Put, true) => format!("Replace {}", a(&each)),
        (Method::Put, false) => format!("Set the {all}"),
        (Method::Patch, true) => format!("Update {}", a(&each)),
        (Method::Delete, true) => format!("Delete {}", a(&each)),
        (Method::Delete, false) => format!("Delete the {all}"),
        (Method::Post | Method::Patch, _) => format!("Update the {all}"),
        _ => format!("Check the {all}"),
    };
    // What holds it: the resource named before the parameter that comes before it.
    let holder = segments[..last]
        .windows(2)
        .rev()
        .find(|pair| literal(&pair[0]) && !literal(&pair[1]))
        .map(|pair| one(&words(pair[0])))
        .filter(|h| !h.is_empty());
    let required = tool.input_schema.get("required").and_then(serde_json::Value::as_array);
    let picked = http.params.iter().find(|p| {
        p.location == ParamLocation::Query && required.is_some_and(|r| r.iter().any(|n| n == p.arg.as_str()))
    });
    if let Some(holder) = holder {
        text.push_str(&format!(" of {}", a(&holder)));
    } else if let Some(p) = picked {
        let which = words(&p.name);
        let given = if plural(&which) { "given" } else { "a given" };
        text.push_str(&format!(" for {given} {}", which.join(" ")));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(method: &str, path: &str, params: serde_json::Value, required: serde_json::Value) -> Tool {
        serde_json::from_value(json!({
            "name": "t", "input_schema": {"type": "object", "required": required},
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true},
            "http": {"method": method, "path": path, "params": params},
        }))
        .expect("a tool")
    }

    fn suggested(method: &str, path: &str) -> Option<String> {
        summary(&tool(method, path, json!([]), json!([])))
    }

    #[test]
    fn summaries_say_what_the_method_does_to_the_path_s_resource() {
        let cases = [
            ("GET", "/tasks/{task_gid}/stories", "List the stories of a task"),
            ("GET", "/repositories", "List the repositories"),
            ("GET", "/repos/{owner}/{repo}/issues/{issue_number}", "Get an issue of a repo"),
            ("GET", "/user", "Get the user"),
            ("GET", "/rate_limit", "Get the rate limit"),
            ("POST", "/projects/{project_gid}/sections", "Create a section of a project"),
            ("PUT", "/goals/{goal_gid}", "Replace a goal"),
            ("PATCH", "/repos/{owner}/{repo}", "Update a repo"),
            ("DELETE", "/statuses/{status_id}", "Delete a status"),
            ("POST", "/repos/{owner}/{repo}/issues/{issue_number}/lock", "Create a lock of an issue"),
        ];
        for (method, path, want) in cases {
            assert_eq!(suggested(method, path).as_deref(), Some(want), "{method} {path}");
        }
        assert_eq!(suggested("GET", "/{id}"), None, "no words to say it with");
    }

    #[test]
    fn a_required_query_parameter_says_which() {
        let params = json!([{"arg": "supported_goal", "name": "supported_goal", "in": "query", "style": "form", "explode": true}]);
        let t = tool("GET", "/goal_relationships", params, json!(["supported_goal"]));
        assert_eq!(summary(&t).as_deref(), Some("List the goal relationships for a given supported goal"));
    }
}
