use crate::doctor::tests::{api, findings_of, of_rule, report_of};

/// `GET /a` and `GET /b`, each with `security` (a YAML flow sequence; empty: none), and these
/// security schemes (YAML flow mappings by name).
fn secured(a: &str, b: &str, schemes: &str) -> String {
    let op = |path: &str, security: &str| {
        let security = if security.is_empty() { String::new() } else { format!("      security: {security}\n") };
        format!(
            "  {path}:\n    get:\n      summary: Show the {path} thing\n{security}      responses: {{\"204\": {{description: none}}}}\n"
        )
    };
    api(&[op("/a", a), op("/b", b)].concat(), &format!("components:\n  securitySchemes:\n{schemes}"))
}

const SCHEMES: &str = "    key: {type: apiKey, in: header, name: X-Key}
    code: {type: oauth2, flows: {implicit: {authorizationUrl: \"https://a.example.com/auth\", scopes: {}}}}
    authcode: {type: oauth2, flows: {authorizationCode: {authorizationUrl: \"https://a.example.com/auth\", tokenUrl: \"https://a.example.com/token\", scopes: {}}}}
    oidc: {type: openIdConnect, openIdConnectUrl: \"https://a.example.com/.well-known/openid-configuration\"}
    mtls: {type: mutualTLS}
    digest: {type: http, scheme: digest}
";

#[test]
fn an_oauth_flow_mcpgen_cannot_run_needs_an_external_token() {
    let found = findings_of(&secured("[{code: []}]", "[{code: []}]", SCHEMES));
    let f = of_rule(&found, "external-token-required");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert_eq!(f[0].pointer, "#/components/securitySchemes/code");
    assert_eq!(f[0].operations, 2);
    assert!(f[0].message.contains("T_CODE_TOKEN"), "{}", f[0].message);
}

#[test]
fn an_authorization_code_flow_is_one_mcpgen_runs_for_each_user() {
    let found = findings_of(&secured("[{authcode: []}]", "[{authcode: []}]", SCHEMES));
    assert!(of_rule(&found, "external-token-required").is_empty(), "{found:#?}");
    assert!(of_rule(&found, "unsupported-auth").is_empty(), "{found:#?}");
}

#[test]
fn openid_connect_needs_an_external_token() {
    let found = findings_of(&secured("[{oidc: []}]", "", SCHEMES));
    let f = of_rule(&found, "external-token-required");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert_eq!(f[0].operations, 1);
}

#[test]
fn mutual_tls_and_digest_are_unsupported() {
    let found = findings_of(&secured("[{mtls: []}]", "[{digest: []}]", SCHEMES));
    let f = of_rule(&found, "unsupported-auth");
    let pointers: Vec<&str> = f.iter().map(|f| f.pointer.as_str()).collect();
    assert_eq!(pointers, ["#/components/securitySchemes/digest", "#/components/securitySchemes/mtls"], "{found:#?}");
}

#[test]
fn an_alternative_mcpgen_performs_is_enough() {
    let found = findings_of(&secured("[{code: []}, {key: []}]", "[{mtls: []}, {}]", SCHEMES));
    assert!(of_rule(&found, "external-token-required").is_empty(), "{found:#?}");
    assert!(of_rule(&found, "unsupported-auth").is_empty(), "{found:#?}");
}

#[test]
fn a_scheme_the_document_does_not_define_sends_tools_bare() {
    let found = findings_of(&secured("[{nokey: []}]", "[{nokey: []}]", SCHEMES));
    let f = of_rule(&found, "undefined-security-scheme");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert_eq!(f[0].pointer, "#/paths/~1a/get/security");
    assert_eq!(f[0].operations, 2);
    assert!(f[0].message.contains("`nokey`") && f[0].message.contains("2 tools are sent without"), "{}", f[0].message);
}

#[test]
fn a_scheme_the_api_requires_is_pointed_at_in_the_api_s_security() {
    let text = secured("", "", SCHEMES).replace("paths:\n", "security: [{nokey: []}]\npaths:\n");
    let found = findings_of(&text);
    let f = of_rule(&found, "undefined-security-scheme");
    assert_eq!(f.len(), 1, "{found:#?}");
    assert_eq!(f[0].pointer, "#/security");
}

#[test]
fn a_token_to_get_elsewhere_costs_the_api_once_and_a_failing_scheme_each_tool() {
    // One warning for the API: 3 points, whatever the number of tools.
    assert_eq!(report_of(&secured("[{code: []}]", "[{code: []}]", SCHEMES)).score, 97);
    // An error on each of the two tools: all of their worth.
    assert_eq!(report_of(&secured("[{mtls: []}]", "[{mtls: []}]", SCHEMES)).score, 0);
}

#[test]
fn a_runtime_config_s_schemes_are_known_by_their_descriptions() {
    use crate::pipeline::{self, PipelineOptions};
    let text = secured("[{mtls: []}]", "[{code: []}]", SCHEMES);
    let p = pipeline::run_str(&text, "t.yaml", &PipelineOptions::default()).expect("reads");
    let found = crate::doctor::of_config(&p.tools.config, "t.mcp.json").findings;
    let unsupported = of_rule(&found, "unsupported-auth");
    assert_eq!(unsupported.len(), 1, "{found:#?}");
    assert_eq!(unsupported[0].pointer, "#/security_schemes/mtls");
    assert_eq!(of_rule(&found, "external-token-required")[0].pointer, "#/security_schemes/code");
    assert!(super::unsupported_in_config("HTTP `digest` authentication: the env var holds it"));
    assert!(!super::unsupported_in_config("HTTP `token` authentication: the env var holds it"));
}
