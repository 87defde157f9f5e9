use crate::doctor::tests::{api, findings_of, of_rule};

/// `GET path` with these parameters (YAML flow mappings) answering `schema` (a YAML flow mapping).
fn list(path: &str, params: &[&str], schema: &str) -> String {
    let params: String = params.iter().map(|p| format!("        - {p}\n")).collect();
    let params = if params.is_empty() { String::new() } else { format!("      parameters:\n{params}") };
    api(
        &format!(
            "  {path}:\n    get:\n      summary: List the pets for adoption\n{params}      responses:\n        \"200\":\n          \
             description: ok\n          content:\n            application/json:\n              schema: {schema}\n"
        ),
        "",
    )
}

const PET: &str = "{type: object, properties: {id: {type: string, description: The id.}, name: {type: string}}}";

#[test]
fn an_array_without_paging_is_an_unpaginated_list() {
    let found = findings_of(&list("/pets", &[], &format!("{{type: array, items: {PET}}}")));
    let f = of_rule(&found, "unpaginated-list");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert_eq!(f[0].pointer, "#/paths/~1pets/get");
    assert!(f[0].message.contains("at 20 items"), "{}", f[0].message);
    assert!(f[0].tokens > 0);
}

#[test]
fn an_object_wrapping_a_list_without_paging_is_one_too() {
    let schema =
        format!("{{type: object, properties: {{data: {{type: array, items: {PET}}}, total: {{type: integer}}}}}}");
    let found = findings_of(&list("/pets", &[], &schema));
    assert_eq!(of_rule(&found, "unpaginated-list").len(), 1, "{found:#?}");
}

#[test]
fn a_large_list_without_paging_is_a_warning() {
    // Twenty pets take some 800 characters: over a budget of 500.
    let text = list("/pets", &[], &format!("{{type: array, items: {PET}}}"))
        .replace("      responses:", "      x-mcp: {maxResultChars: 500}\n      responses:");
    let found = findings_of(&text);
    let f = of_rule(&found, "unpaginated-large-list");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert!(f[0].message.contains("over the 500-character result budget"), "{}", f[0].message);
    assert!(f[0].fix.contains("response reduction"), "{}", f[0].fix);
    assert!(of_rule(&found, "unpaginated-list").is_empty());
}

#[test]
fn a_list_with_a_page_size_or_a_cursor_pages() {
    let schema = format!("{{type: array, items: {PET}}}");
    for param in [
        "{name: limit, in: query, description: At most., schema: {type: integer}}",
        "{name: cursor, in: query, description: Where to go on., schema: {type: string}}",
        "{name: page, in: query, description: The page., schema: {type: integer}}",
    ] {
        let found = findings_of(&list("/pets", &[param], &schema));
        assert!(!found.iter().any(|f| f.rule.starts_with("unpaginated")), "{param}: {found:#?}");
    }
}

#[test]
fn one_item_is_no_list() {
    let found = findings_of(&list(
        "/pets/{petId}",
        &["{name: petId, in: path, required: true, description: Its id.}"],
        &format!("{{type: array, items: {PET}}}"),
    ));
    assert!(!found.iter().any(|f| f.rule.starts_with("unpaginated")), "{found:#?}");
    let found = findings_of(&list("/pets", &[], PET));
    assert!(!found.iter().any(|f| f.rule.starts_with("unpaginated")), "{found:#?}");
}

#[test]
fn an_object_of_a_single_thing_is_no_list() {
    let schema =
        format!("{{type: object, properties: {{scopes: {{type: array, items: {PET}}}, token: {{type: string}}}}}}");
    let found = findings_of(&list("/oauth.token", &[], &schema));
    assert!(!found.iter().any(|f| f.rule.starts_with("unpaginated")), "{found:#?}");
    let found = findings_of(&list("/usergroups.list", &[], &schema));
    assert_eq!(of_rule(&found, "unpaginated-list").len(), 1, "{found:#?}");
}

#[test]
fn a_list_that_pages_by_since_or_a_cursor_either_way_pages() {
    let schema = format!("{{type: array, items: {PET}}}");
    for param in [
        // GitHub's `GET /repositories`: the id of the last repository seen.
        "{name: since, in: query, description: A repository ID., schema: {type: integer}}",
        "{name: after, in: query, description: Where to go on., schema: {type: string}}",
        "{name: before, in: query, description: Where to go back., schema: {type: string}}",
        "{name: page_token, in: query, description: The page., schema: {type: string}}",
        "{name: starting_after, in: query, description: The last id., schema: {type: string}}",
        "{name: next, in: query, description: The next page., schema: {type: string}}",
    ] {
        let found = findings_of(&list("/repositories", &[param], &schema));
        assert!(!found.iter().any(|f| f.rule.starts_with("unpaginated")), "{param}: {found:#?}");
    }
    // A date `since` only filters: the list is still unpaginated.
    let date = "{name: since, in: query, description: Changed since., schema: {type: string, format: date-time}}";
    let found = findings_of(&list("/repositories", &[date], &schema));
    assert_eq!(of_rule(&found, "unpaginated-list").len(), 1, "{found:#?}");
}
