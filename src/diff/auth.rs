//! What a tool's calls need: the upstream credentials (`http.security`, the schemes by what they
//! are: a scheme whose name or kind changed is another credential; env var names are not
//! compared) and the OAuth scopes a caller's token needs (`scopes`). Both are alternatives (any
//! one suffices) of sets (all needed together). A change breaks when what sufficed before no
//! longer does: some old alternative contains no new one.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Change, Kind, Sink};
use mcpgen_config::{RuntimeConfig, SecurityScheme, Tool};

/// Alternatives of sets; `[{}]`: nothing needed.
type Needs = BTreeSet<BTreeSet<String>>;

/// The credentials and scopes of a pair of tools.
pub(super) fn compare(old: &Tool, new: &Tool, old_config: &RuntimeConfig, new_config: &RuntimeConfig, sink: &mut Sink) {
    let security = |t: &Tool| t.http.as_ref().map(|h| h.security.clone()).unwrap_or_default();
    let credentials = |sets: &[Vec<String>], c: &RuntimeConfig| {
        needs(sets.iter().map(|set| set.iter().map(|name| identity(name, c)).collect()))
    };
    let (a, b) = (security(old), security(new));
    let what = ("/http/security", "credentials", "upstream credentials");
    if let Some(change) =
        changed(Kind::AuthChanged, what, credentials(&a, old_config), credentials(&b, new_config), sink)
    {
        change.values(Some(&Value::from(a)), Some(&Value::from(b)));
    }
    let scopes = |t: &Tool| needs(t.scopes.iter().map(|set| set.iter().cloned().collect()));
    let what = ("/scopes", "scopes", "OAuth scopes");
    if let Some(change) = changed(Kind::ScopesChanged, what, scopes(old), scopes(new), sink) {
        change.values(Some(&Value::from(old.scopes.clone())), Some(&Value::from(new.scopes.clone())));
    }
}

/// A scheme as the credential it is: its name and kind (and, for OAuth2 client credentials, its
/// token endpoint and scopes).
fn identity(name: &str, config: &RuntimeConfig) -> String {
    match config.security_schemes.get(name) {
        Some(SecurityScheme::OAuth2ClientCredentials { token_url, scopes, .. }) if scopes.is_empty() => {
            format!("{name} (OAuth2 client credentials from {token_url})")
        }
        Some(SecurityScheme::OAuth2ClientCredentials { token_url, scopes, .. }) => {
            format!("{name} (OAuth2 client credentials from {token_url}, scopes {})", scopes.join(" "))
        }
        Some(scheme) => format!("{name} ({})", scheme.describe()),
        None => name.to_string(),
    }
}

/// Alternatives made canonical: none, or an empty one among them, is `[{}]`.
fn needs(alternatives: impl Iterator<Item = BTreeSet<String>>) -> Needs {
    let all: Needs = alternatives.collect();
    if all.is_empty() || all.iter().any(BTreeSet::is_empty) { Needs::from([BTreeSet::new()]) } else { all }
}

/// Whether every caller that had what `old` asks still has what `new` asks.
fn still_enough(old: &Needs, new: &Needs) -> bool {
    old.iter().all(|had| new.iter().any(|asked| asked.is_subset(had)))
}

/// `a and b or c`; `none` for nothing.
fn words(needs: &Needs) -> String {
    if needs.iter().all(BTreeSet::is_empty) {
        return "none".into();
    }
    let sets: Vec<String> = needs.iter().map(|set| set.iter().cloned().collect::<Vec<_>>().join(" and ")).collect();
    sets.join(", or ")
}

/// A change of `old` to `new` (at `pointer`, named `short` and `long`), if there is one.
fn changed<'s>(
    kind: Kind,
    (pointer, short, long): (&str, &str, &str),
    old: Needs,
    new: Needs,
    sink: &'s mut Sink,
) -> Option<&'s mut Change> {
    if old == new {
        return None;
    }
    let breaking = !still_enough(&old, &new);
    let explanation = if breaking {
        format!("calls now need {long} the old ones do not cover: {} (was: {})", words(&new), words(&old))
    } else {
        format!("the {short} that sufficed still do: now {} (was: {})", words(&new), words(&old))
    };
    Some(sink.add(kind, pointer.into(), breaking, explanation))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(alternatives: &[&[&str]]) -> Needs {
        needs(alternatives.iter().map(|set| set.iter().map(|s| s.to_string()).collect()))
    }

    #[test]
    fn needing_a_new_credential_breaks() {
        assert!(!still_enough(&of(&[]), &of(&[&["bearer"]])), "none -> bearer");
        assert!(!still_enough(&of(&[&["key"]]), &of(&[&["key", "secret"]])), "key -> key and secret");
        assert!(!still_enough(&of(&[&["key"], &["bearer"]]), &of(&[&["bearer"]])), "key or bearer -> bearer");
    }

    #[test]
    fn needing_less_does_not() {
        assert!(still_enough(&of(&[&["bearer"]]), &of(&[])), "bearer -> none");
        assert!(still_enough(&of(&[&["key", "secret"]]), &of(&[&["key"]])), "key and secret -> key");
        assert!(still_enough(&of(&[&["bearer"]]), &of(&[&["key"], &["bearer"]])), "bearer -> key or bearer");
        assert_eq!(of(&[&["a"], &[]]), of(&[]), "an empty alternative needs nothing");
    }

    #[test]
    fn needs_in_words() {
        assert_eq!(words(&of(&[])), "none");
        assert_eq!(words(&of(&[&["b", "a"], &["c"]])), "a and b, or c");
    }
}
