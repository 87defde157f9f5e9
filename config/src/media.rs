//! Which media types are JSON and which are text: how the engine sends and shows a body, and how
//! mcpgen binds one.

/// JSON media types (`application/json`, `application/problem+json`, ...); `media` is lower-case.
pub fn is_json_media(media: &str) -> bool {
    media.starts_with("application/json") || media.contains("+json")
}

/// Media types whose bodies are text (sent and shown as strings); `media` is lower-case.
pub fn is_text_media(media: &str) -> bool {
    ["xml", "yaml", "csv", "graphql", "javascript"].iter().any(|t| media.contains(t)) || media.starts_with("text/")
}
