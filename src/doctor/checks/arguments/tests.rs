use serde_json::json;

use super::coded;
use crate::doctor::tests::{api, findings_of, of_rule};

/// `GET path` with these parameters (YAML flow mappings, one a line).
fn with_params(path: &str, params: &[&str]) -> String {
    let params: String = params.iter().map(|p| format!("        - {p}\n")).collect();
    api(
        &format!(
            "  {path}:\n    get:\n      summary: List the pets for adoption\n      parameters:\n{params}      \
             responses: {{\"204\": {{description: none}}}}"
        ),
        "",
    )
}

#[test]
fn a_required_parameter_without_a_description_is_a_warning() {
    let found = findings_of(&with_params("/pets", &["{name: color, in: query, required: true}"]));
    let f = of_rule(&found, "undocumented-required-parameter");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert_eq!(f[0].pointer, "#/paths/~1pets/get/parameters/0");
    assert!(f[0].message.contains("required parameter `color` of GET /pets"), "{}", f[0].message);
}

#[test]
fn an_optional_parameter_without_a_description_is_info() {
    let found = findings_of(&with_params("/pets", &["{name: color, in: query}"]));
    assert_eq!(of_rule(&found, "undocumented-optional-parameter").len(), 1, "{found:#?}");
}

#[test]
fn a_description_on_the_schema_counts() {
    let found =
        findings_of(&with_params("/pets", &["{name: color, in: query, schema: {description: The coat's color.}}"]));
    assert!(found.iter().all(|f| !f.rule.starts_with("undocumented")), "{found:#?}");
}

#[test]
fn a_well_known_name_is_info_whether_required_or_not() {
    let found = findings_of(&with_params(
        "/pets/{petId}",
        &["{name: petId, in: path, required: true}", "{name: page, in: query}", "{name: per_page, in: query}"],
    ));
    let f = of_rule(&found, "undocumented-well-known-parameter");
    assert_eq!(f.len(), 3, "{found:#?}");
    assert!(of_rule(&found, "undocumented-required-parameter").is_empty(), "{found:#?}");
}

#[test]
fn a_path_parameter_named_after_its_resource_is_well_known() {
    let found = findings_of(&with_params("/charges/{charge}", &["{name: charge, in: path, required: true}"]));
    assert_eq!(of_rule(&found, "undocumented-well-known-parameter").len(), 1, "{found:#?}");
}

#[test]
fn an_id_named_after_no_resource_of_the_path_is_not_well_known() {
    let found = findings_of(&with_params("/pets/{ownerId}", &["{name: ownerId, in: path, required: true}"]));
    assert_eq!(of_rule(&found, "undocumented-required-parameter").len(), 1, "{found:#?}");
}

#[test]
fn the_pointer_is_where_the_parameter_is_declared() {
    // A path item's parameter, and an operation's after one sorted before it.
    let text = api(
        "  /pets/{petId}:\n    parameters:\n      - {name: petId, in: path, required: true, schema: {type: string}}\n    \
         get:\n      summary: Show one pet\n      parameters:\n        - {name: X-Trace, in: header}\n        - {name: \
         q, in: query, required: true}\n      responses: {\"204\": {description: none}}",
        "",
    );
    let found = findings_of(&text);
    let pointers: Vec<&str> =
        found.iter().filter(|f| f.rule.starts_with("undocumented")).map(|f| f.pointer.as_str()).collect();
    assert!(pointers.contains(&"#/paths/~1pets~1{petId}/parameters/0"), "{pointers:?}");
    assert!(pointers.contains(&"#/paths/~1pets~1{petId}/get/parameters/1"), "{pointers:?}");
    assert!(pointers.contains(&"#/paths/~1pets~1{petId}/get/parameters/0"), "{pointers:?}");
}

#[test]
fn swagger_2_parameters_keep_their_index_past_a_body() {
    let text = r#"
swagger: "2.0"
info: {title: T, version: "1"}
host: api.example.com
paths:
  /pets:
    post:
      summary: Add a pet to the store
      parameters:
        - {name: body, in: body, schema: {type: object}}
        - {name: dry, in: query, type: boolean}
      responses: {"204": {description: none}}
"#;
    let found = findings_of(text);
    let f = of_rule(&found, "undocumented-optional-parameter");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert_eq!(f[0].pointer, "#/paths/~1pets/post/parameters/1");
}

#[test]
fn fixed_headers_are_no_arguments() {
    let found = findings_of(&with_params(
        "/pets",
        &["{name: Accept, in: header, schema: {type: string, enum: [application/json]}}"],
    ));
    assert!(found.iter().all(|f| !f.rule.starts_with("undocumented")), "{found:#?}");
}

#[test]
fn a_function_s_arguments_are_its_properties() {
    let list = r#"[{"name": "get_weather", "description": "The weather now.", "parameters": {"type": "object",
        "properties": {"city": {"type": "string"}}, "required": ["city"]}}]"#;
    let found = findings_of(list);
    let f = of_rule(&found, "undocumented-required-parameter");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert_eq!(f[0].pointer, "#/0/parameters/properties/city");
}

#[test]
fn a_coded_enum_without_meanings_is_undocumented() {
    let found = findings_of(&with_params(
        "/pets",
        &["{name: status, in: query, description: The status filter., schema: {type: integer, enum: [1, 2, 3]}}"],
    ));
    let f = of_rule(&found, "undocumented-enum");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert!(f[0].message.contains("takes 1, 2, 3"), "{}", f[0].message);
}

#[test]
fn an_enum_of_an_array_is_checked_too() {
    let found = findings_of(&with_params(
        "/pets",
        &["{name: kinds, in: query, description: Kinds., schema: {type: array, items: {type: string, enum: [A, B]}}}"],
    ));
    assert_eq!(of_rule(&found, "undocumented-enum").len(), 1, "{found:#?}");
}

#[test]
fn an_enum_whose_description_names_its_values_is_documented() {
    let found = findings_of(&with_params(
        "/pets",
        &["{name: status, in: query, description: \"1: available, 2: sold\", schema: {type: integer, enum: [1, 2]}}"],
    ));
    assert!(of_rule(&found, "undocumented-enum").is_empty(), "{found:#?}");
}

#[test]
fn value_descriptions_in_an_extension_are_not_shown_to_agents() {
    let found = findings_of(&with_params(
        "/pets",
        &["{name: s, in: query, description: S., schema: {type: integer, enum: [1, 2], x-enumNames: [on, off]}}"],
    ));
    let f = of_rule(&found, "undocumented-enum");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert!(f[0].fix.contains("`x-` extensions"), "{}", f[0].fix);
}

#[test]
fn an_enum_of_words_explains_itself() {
    let found = findings_of(&with_params(
        "/pets",
        &[
            "{name: order, in: query, description: The order., schema: {type: string, enum: [asc, desc]}}",
            "{name: status, in: query, description: S., schema: {type: string, enum: [available, pending, sold]}}",
        ],
    ));
    assert!(of_rule(&found, "undocumented-enum").is_empty(), "{found:#?}");
}

#[test]
fn an_enum_of_words_with_a_few_codes_explains_itself() {
    let found = findings_of(&with_params(
        "/reactions",
        &[
            "{name: content, in: query, description: C., schema: {type: string, enum: [\"+1\", \"-1\", laugh, heart, rocket]}}",
        ],
    ));
    assert!(of_rule(&found, "undocumented-enum").is_empty(), "{found:#?}");
}

#[test]
fn codes_are_numbers_digits_and_short_strings() {
    let all = [json!("a")];
    assert!(coded(&json!(1), &all));
    assert!(coded(&json!("2"), &all));
    assert!(coded(&json!("A"), &all));
    assert!(coded(&json!("pp"), &all));
    assert!(!coded(&json!("on"), &all));
    assert!(!coded(&json!("asc"), &all));
    assert!(!coded(&json!(true), &all));
    let countries: Vec<_> = ["us", "gb", "fr", "de", "es"].map(|c| json!(c)).to_vec();
    assert!(!coded(&json!("fr"), &countries));
}

#[test]
fn a_parameter_of_a_path_item_is_one_finding_for_its_operations() {
    let text = api(
        "  /pets/{ownerKey}:\n    parameters:\n      - {name: ownerKey, in: path, required: true}\n    get:\n      \
         summary: Show the owner's pets\n      responses: {\"204\": {description: none}}\n    delete:\n      summary: \
         Forget the owner's pets\n      responses: {\"204\": {description: none}}",
        "",
    );
    let found = findings_of(&text);
    let f = of_rule(&found, "undocumented-required-parameter");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert_eq!(f[0].pointer, "#/paths/~1pets~1{ownerKey}/parameters/0");
    assert_eq!(f[0].operations, 2);
    assert!(f[0].message.ends_with("(declared once for 2 operations)"), "{}", f[0].message);
}

#[test]
fn the_fix_asks_where_a_value_comes_from_only_for_references() {
    let found = findings_of(&with_params(
        "/repos/{owner}/issues",
        &[
            "{name: owner, in: path, required: true, schema: {type: string}}",
            "{name: archived, in: query, schema: {type: boolean}}",
            "{name: state, in: query, schema: {type: string, enum: [open, closed]}}",
            "{name: count, in: query, schema: {type: integer}}",
            "{name: milestone_number, in: query, schema: {type: integer}}",
            "{name: changed, in: query, schema: {type: string, format: date-time}}",
            "{name: assignee, in: query, schema: {type: string}}",
        ],
    ));
    let fix = |name: &str| {
        let f = found
            .iter()
            .find(|f| f.message.contains(&format!("`{name}`")))
            .unwrap_or_else(|| panic!("{name}: {found:#?}"));
        f.fix.clone()
    };
    let asks = |name: &str| fix(name).contains("which tool returns it");
    assert!(asks("owner") && asks("milestone_number") && asks("assignee"));
    for chosen in ["archived", "state", "count", "changed"] {
        assert!(!asks(chosen), "{chosen}: {}", fix(chosen));
    }
    assert_eq!(fix("archived"), "describe what it turns on, and what leaving it out means");
    assert_eq!(fix("state"), "describe what it selects, and what each value means");
}
