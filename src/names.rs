//! Names: the words, cases and slugs behind tool names, the Rust identifiers of generated crates,
//! credential env vars and crate names.
//!
//! Every name made here is a contract: users' configs name tools, their `handlers.rs` names the
//! generated functions and argument types, their environments set the env vars. So each kind of
//! name keeps the words it has always been made of, and there are three ways to find words:
//!
//! - [`snake_case`] is heck's, and splits acronyms (`HTTPStatus` -> `http_status`): tool names made
//!   from paths are made of its words.
//! - [`identifier_words`] splits only where a lower-case letter or a digit meets an upper-case one,
//!   and keeps only ASCII letters and digits (`HTTPStatus` and `OAuth2` are one word each, `名前`
//!   none): Rust identifiers ([`snake_identifier`], [`pascal_identifier`]) and env vars
//!   ([`screaming_snake_case`]). heck does not fit these: it would split `APIKey` (env var
//!   `APIKEY` -> `API_KEY`) and `OAuth2` (`O_AUTH2`), and keep non-ASCII letters.
//! - [`words`] only splits at what is not an ASCII letter or digit: titles and file names, for
//!   [`env_prefix`] and [`kebab_slug`].
//!
//! [`name_parts`] splits tool and argument names for shortening them (case kept).

use heck::ToSnakeCase;
use mcpgen_config::text::{WordSplit, split_words};

/// heck's snake_case: `getPetById` -> `get_pet_by_id`, `HTTPStatus` -> `http_status`; letters
/// other than ASCII are kept.
pub(crate) fn snake_case(text: &str) -> String {
    text.to_snake_case()
}

/// The runs of ASCII letters and digits in `text`, as they are: `GitHub v3 REST API` -> `GitHub`
/// `v3` `REST` `API`.
/// Not [`split_words`]: humps do not split, so that `GitHub` stays one word of an env prefix
/// (`GITHUB_`) and of a slug (`github`), as they always were.
pub(crate) fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty())
}

/// [`words`], also split where a lower-case letter or a digit meets an upper-case one, as they
/// are: `getPetById` -> `get` `Pet` `By` `Id`, `v3Api` -> `v3` `Api`; `HTTPStatus` is one word.
/// The contract's splitter, on ASCII letters and digits alone.
pub(crate) fn identifier_words(text: &str) -> Vec<&str> {
    split_words(text, WordSplit { ascii: true, acronyms: false }).collect()
}

/// [`identifier_words`] in lower case, led by `fallback` when there are none or the first starts
/// with a digit (an identifier cannot).
fn identifier_words_lower(name: &str, fallback: &str) -> Vec<String> {
    let mut out: Vec<String> = identifier_words(name).into_iter().map(str::to_ascii_lowercase).collect();
    if out.first().is_none_or(|w| w.starts_with(|c: char| c.is_ascii_digit())) {
        out.insert(0, fallback.to_string());
    }
    out
}

/// A snake_case Rust identifier for a name: `getPetById` -> `get_pet_by_id`, `1st` ->
/// `<fallback>_1st`. It may be a keyword: see [`escape_keyword`].
pub(crate) fn snake_identifier(name: &str, fallback: &str) -> String {
    identifier_words_lower(name, fallback).join("_")
}

/// A PascalCase Rust identifier for a name: `get_current_weather` -> `GetCurrentWeather`.
pub(crate) fn pascal_identifier(name: &str, fallback: &str) -> String {
    identifier_words_lower(name, fallback)
        .iter()
        .map(|w| {
            let mut cs = w.chars();
            cs.next().map(|c| c.to_ascii_uppercase().to_string() + cs.as_str()).unwrap_or_default()
        })
        .collect()
}

/// Whether `text` can name a Rust item as it is: an identifier and no keyword (`self`, `type`...).
pub(crate) fn is_identifier(text: &str) -> bool {
    syn::parse_str::<syn::Ident>(text).is_ok() && !matches!(text, "self" | "Self" | "super" | "crate")
}

/// An identifier that cannot be used as it is (a keyword) with `_` appended: `type` -> `type_`.
pub(crate) fn escape_keyword(ident: String) -> String {
    if is_identifier(&ident) { ident } else { format!("{ident}_") }
}

/// SCREAMING_SNAKE_CASE from [`identifier_words`]: `bearerAuth` -> `BEARER_AUTH`, `api-key` ->
/// `API_KEY`.
pub(crate) fn screaming_snake_case(text: &str) -> String {
    identifier_words(text).iter().map(|w| w.to_ascii_uppercase()).collect::<Vec<_>>().join("_")
}

/// Titles' words past this many characters are left out of env var prefixes.
const ENV_PREFIX_MAX: usize = 24;

/// The prefix of every env var of an API, from its title: `Swagger Petstore` ->
/// `SWAGGER_PETSTORE`. Whole words up to about 24 characters; `API_` leads when a digit would.
pub(crate) fn env_prefix(title: &str) -> String {
    let mut kept: Vec<String> = Vec::new();
    let mut len = 0;
    for w in words(title) {
        if len + w.len() > ENV_PREFIX_MAX && !kept.is_empty() {
            break;
        }
        len += w.len() + 1;
        kept.push(w.to_ascii_uppercase());
    }
    let p = kept.join("_");
    if p.starts_with(|c: char| c.is_ascii_digit()) { format!("API_{p}") } else { p }
}

/// Words of API titles that say nothing about which API it is.
const GENERIC_TITLE_WORDS: [&str; 14] = [
    "the", "a", "an", "swagger", "openapi", "api", "apis", "rest", "restful", "http", "json", "service", "server",
    "spec",
];

/// Tool name prefixes are at most this long (with their `_`).
pub(crate) const API_PREFIX_MAX: usize = 16;

/// The tool name prefix of an API served beside others, from its title: its first word that is
/// not generic (`swagger`, `api`, `rest`, a version such as `v3`), lower case, then `_`:
/// `GitHub v3 REST API` -> `github_`, `Swagger Petstore - OpenAPI 3.0` -> `petstore_`. `api_`
/// when no word is left; `api_` leads when a digit would.
pub(crate) fn api_prefix(title: &str) -> String {
    let is_version = |w: &str| {
        let w = w.to_ascii_lowercase();
        w.chars().all(|c| c.is_ascii_digit())
            || (w.starts_with('v') && w.len() > 1 && w[1..].chars().all(|c| c.is_ascii_digit()))
    };
    let word = words(title)
        .find(|w| !GENERIC_TITLE_WORDS.contains(&w.to_ascii_lowercase().as_str()) && !is_version(w))
        .map(str::to_ascii_lowercase);
    let mut word = match word {
        None => return "api_".to_string(),
        Some(w) if w.starts_with(|c: char| c.is_ascii_digit()) => format!("api_{w}"),
        Some(w) => w,
    };
    word.truncate(API_PREFIX_MAX - 1);
    format!("{word}_")
}

/// A kebab-case slug of a title, at most `max` characters: `Swagger Petstore - OpenAPI 3.0` ->
/// `swagger-petstore-openapi-3-0`. `api` when nothing is left; `api-` leads when a digit would.
pub(crate) fn kebab_slug(title: &str, max: usize) -> String {
    let mut slug: String = words(title).map(str::to_ascii_lowercase).collect::<Vec<_>>().join("-");
    slug.truncate(max);
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        "api".to_string()
    } else if slug.starts_with(|c: char| c.is_ascii_digit()) {
        format!("api-{slug}")
    } else {
        slug.to_string()
    }
}

/// The parts of a tool or argument name, for shortening it: split at `_` and `-` and where a
/// lower-case letter meets an upper-case one, case kept (not [`split_words`]: digits never split,
/// `.` never does, so that shortened tool names stay what they were) (`getPetById` -> `get` `Pet` `By` `Id`).
/// Other characters (`.` in argument names) and digits stay inside parts, as they always have:
/// shortened names are tool names too.
pub(crate) fn name_parts(name: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for part in name.split(['_', '-']).filter(|p| !p.is_empty()) {
        let bytes = part.as_bytes();
        let mut start = 0;
        for i in 1..bytes.len() {
            if bytes[i].is_ascii_uppercase() && bytes[i - 1].is_ascii_lowercase() {
                parts.push(&part[start..i]);
                start = i;
            }
        }
        parts.push(&part[start..]);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_splits_acronyms() {
        assert_eq!(snake_case("getPetById"), "get_pet_by_id");
        assert_eq!(snake_case("HTTPStatus"), "http_status");
        assert_eq!(snake_case("/chat.postMessage"), "chat_post_message");
    }

    #[test]
    fn words_split_at_anything_but_ascii_letters_and_digits() {
        assert_eq!(words("GitHub v3 REST-API").collect::<Vec<_>>(), ["GitHub", "v3", "REST", "API"]);
        assert_eq!(words("日本 x").collect::<Vec<_>>(), ["x"]);
        assert_eq!(words("--").count(), 0);
    }

    #[test]
    fn identifier_words_split_at_humps_only() {
        assert_eq!(identifier_words("getPetById"), ["get", "Pet", "By", "Id"]);
        assert_eq!(identifier_words("v3Api"), ["v3", "Api"]);
        assert_eq!(identifier_words("HTTPStatus"), ["HTTPStatus"]);
        assert_eq!(identifier_words("OAuth2"), ["OAuth2"]);
        assert_eq!(identifier_words("get-current.weather"), ["get", "current", "weather"]);
        assert!(identifier_words("名前").is_empty());
    }

    #[test]
    fn snake_identifiers() {
        assert_eq!(snake_identifier("getPetById", "tool"), "get_pet_by_id");
        assert_eq!(snake_identifier("get-current.weather", "tool"), "get_current_weather");
        assert_eq!(snake_identifier("1st", "tool"), "tool_1st");
        assert_eq!(snake_identifier("名前", "field"), "field");
        assert_eq!(snake_identifier("userId", "field"), "user_id");
    }

    #[test]
    fn pascal_identifiers() {
        assert_eq!(pascal_identifier("get_current_weather", "tool"), "GetCurrentWeather");
        assert_eq!(pascal_identifier("getHTTPStatus", "tool"), "GetHttpstatus");
        assert_eq!(pascal_identifier("1st", "tool"), "Tool1st");
    }

    #[test]
    fn keywords_are_escaped() {
        assert_eq!(escape_keyword("type".into()), "type_");
        assert_eq!(escape_keyword("self".into()), "self_");
        assert_eq!(escape_keyword("crate".into()), "crate_");
        assert_eq!(escape_keyword("user_id".into()), "user_id");
        assert!(is_identifier("parse") && !is_identifier("fn") && !is_identifier("1st"));
    }

    #[test]
    fn screaming_snake() {
        assert_eq!(screaming_snake_case("bearerAuth"), "BEARER_AUTH");
        assert_eq!(screaming_snake_case("api_key"), "API_KEY");
        assert_eq!(screaming_snake_case("api-key"), "API_KEY");
        assert_eq!(screaming_snake_case("oauth2AuthCode"), "OAUTH2_AUTH_CODE");
        assert_eq!(screaming_snake_case("APIKey"), "APIKEY");
        assert_eq!(screaming_snake_case("__x名y__"), "X_Y");
    }

    #[test]
    fn env_prefixes() {
        assert_eq!(env_prefix("Swagger Petstore - OpenAPI 3.0"), "SWAGGER_PETSTORE_OPENAPI");
        assert_eq!(env_prefix("GitHub v3 REST API"), "GITHUB_V3_REST_API");
        assert_eq!(env_prefix("1Password"), "API_1PASSWORD");
        assert_eq!(env_prefix("AVeryLongSingleWordTitleIndeed"), "AVERYLONGSINGLEWORDTITLEINDEED");
        assert_eq!(env_prefix("日本"), "");
    }

    #[test]
    fn api_prefixes() {
        assert_eq!(api_prefix("GitHub v3 REST API"), "github_");
        assert_eq!(api_prefix("Stripe API"), "stripe_");
        assert_eq!(api_prefix("Swagger Petstore - OpenAPI 3.0"), "petstore_");
        assert_eq!(api_prefix("The Star Wars API"), "star_");
        assert_eq!(api_prefix("1Password Connect"), "api_1password_");
        assert_eq!(api_prefix("API v2"), "api_");
        assert_eq!(api_prefix("日本"), "api_");
        assert_eq!(api_prefix("Supercalifragilisticexpialidocious"), "supercalifragil_");
    }

    #[test]
    fn kebab_slugs() {
        assert_eq!(kebab_slug("Swagger Petstore - OpenAPI 3.0", 40), "swagger-petstore-openapi-3-0");
        assert_eq!(kebab_slug("1Password Connect", 40), "api-1password-connect");
        assert_eq!(kebab_slug("日本", 40), "api");
        assert_eq!(kebab_slug("abc def", 4), "abc");
        assert_eq!(kebab_slug("abcdef", 4), "abcd");
    }

    #[test]
    fn name_parts_keep_case_digits_and_dots() {
        assert_eq!(name_parts("getPetById"), ["get", "Pet", "By", "Id"]);
        assert_eq!(name_parts("get_v3Api--x"), ["get", "v3Api", "x"]);
        assert_eq!(name_parts("api.versionNumber"), ["api.version", "Number"]);
    }
}
