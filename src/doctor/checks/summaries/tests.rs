use crate::doctor::tests::{api, findings_of, of_rule};

/// One operation, `GET /pets` (or `method path`), with these keys.
fn op(method: &str, path: &str, keys: &str) -> String {
    format!("  {path}:\n    {method}:\n{keys}      responses: {{\"204\": {{description: none}}}}\n")
}

#[test]
fn an_operation_without_summary_or_description_is_an_error() {
    let found = findings_of(&api(&op("get", "/pets", ""), ""));
    let f = of_rule(&found, "undescribed-operation");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert_eq!(f[0].pointer, "#/paths/~1pets/get");
    assert!(f[0].message.contains("GET /pets has neither a summary nor a description"), "{}", f[0].message);
    assert!(of_rule(&found, "missing-summary").is_empty());
}

#[test]
fn a_description_without_a_summary_is_a_warning() {
    let found = findings_of(&api(&op("get", "/pets", "      description: Lists the pets for adoption.\n"), ""));
    assert_eq!(of_rule(&found, "missing-summary").len(), 1, "{found:#?}");
    assert!(of_rule(&found, "undescribed-operation").is_empty());
}

#[test]
fn an_x_mcp_description_describes_the_operation() {
    let keys = "      x-mcp: {description: Lists the pets for adoption.}\n";
    let found = findings_of(&api(&op("get", "/pets", keys), ""));
    assert!(of_rule(&found, "undescribed-operation").is_empty(), "{found:#?}");
}

#[test]
fn a_function_without_a_description_is_an_error() {
    let list = r#"[{"name": "get_weather", "parameters": {"type": "object", "properties": {}}},
                   {"name": "get_time", "description": "The time now.", "parameters": {"type": "object"}}]"#;
    let found = findings_of(list);
    let f = of_rule(&found, "undescribed-operation");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert_eq!(f[0].pointer, "#/0");
    assert!(f[0].message.contains("function `get_weather` has no description"), "{}", f[0].message);
    // Functions have no summaries to ask for.
    assert!(of_rule(&found, "missing-summary").is_empty());
}

#[test]
fn operations_sharing_a_summary_each_get_a_finding() {
    let paths = [
        op("get", "/cats", "      summary: List the animals.\n"),
        op("get", "/dogs", "      summary: list the  animals\n"),
        op("get", "/fish", "      summary: List the fish\n"),
    ]
    .concat();
    let found = findings_of(&api(&paths, ""));
    let f = of_rule(&found, "duplicate-summary");
    let pointers: Vec<&str> = f.iter().map(|f| f.pointer.as_str()).collect();
    assert_eq!(pointers, ["#/paths/~1cats/get", "#/paths/~1dogs/get"], "{found:#?}");
    assert!(f.iter().all(|f| f.operations == 2));
    assert!(f[0].message.contains("as GET /dogs does"), "{}", f[0].message);
}

#[test]
fn a_one_word_summary_is_generic() {
    for summary in ["Pets", "listPets", "list_pets"] {
        let found = findings_of(&api(&op("get", "/pets", &format!("      summary: {summary}\n")), ""));
        let f = of_rule(&found, "generic-summary");
        assert_eq!(f.len(), 1, "{summary}: {found:#?}");
        assert!(f[0].message.contains("is a single word"), "{}", f[0].message);
    }
}

#[test]
fn a_generic_word_that_names_the_path_s_resource_is_not_generic() {
    let found = findings_of(&api(&op("get", "/data", "      summary: Get the data of this account\n"), ""));
    assert!(of_rule(&found, "generic-summary").is_empty(), "{found:#?}");
}

#[test]
fn a_summary_of_generic_words_is_generic() {
    for summary in ["Update item", "Get all", "Get the details"] {
        let found = findings_of(&api(&op("put", "/pets", &format!("      summary: {summary}\n")), ""));
        let f = of_rule(&found, "generic-summary");
        assert_eq!(f.len(), 1, "{summary}: {found:#?}");
        assert!(f[0].message.contains("is generic"), "{}", f[0].message);
    }
}

#[test]
fn a_summary_that_restates_the_route_is_generic() {
    for summary in ["GET /pets/{petId}", "Get pets by pet id"] {
        let keys = format!("      summary: \"{summary}\"\n");
        let found = findings_of(&api(&op("get", "/pets/{petId}", &keys), ""));
        let f = of_rule(&found, "generic-summary");
        assert_eq!(f.len(), 1, "{summary}: {found:#?}");
        assert!(f[0].message.contains("only restates the method and path"), "{}", f[0].message);
    }
}

#[test]
fn a_summary_that_says_more_than_the_route_is_fine() {
    for summary in ["List pets", "Show one pet by its id", "Find pets by status"] {
        let keys = format!("      summary: \"{summary}\"\n");
        let found = findings_of(&api(&op("get", "/pets", &keys), ""));
        assert!(of_rule(&found, "generic-summary").is_empty(), "{summary}: {found:#?}");
    }
}

#[test]
fn the_fix_suggests_a_summary_made_from_the_operation() {
    let found = findings_of(&api(&op("get", "/tasks/{task_gid}/stories", "      summary: List\n"), ""));
    let f = of_rule(&found, "generic-summary");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert!(f[0].fix.ends_with("\"List the stories of a task\""), "{}", f[0].fix);
    assert!(!f[0].fix.contains("pets"), "{}", f[0].fix);
    let found = findings_of(&api(&op("delete", "/repos/{owner}/{repo}", "      description: Deletes it.\n"), ""));
    let f = of_rule(&found, "missing-summary");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert!(f[0].fix.ends_with("(\"Delete a repo\")"), "{}", f[0].fix);
}
