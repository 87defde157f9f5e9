//! Non-Rust files of a generated crate, from handlebars templates embedded in the binary.
//! Strict mode (a missing field is an error) and no HTML escaping (it would corrupt TOML and
//! Markdown); values are escaped for their format by helpers: `toml` (a TOML string literal) and
//! `inline` (one line of text: control characters become spaces).

use handlebars::{Context, Handlebars, Helper, HelperDef, HelperResult, Output, RenderContext, RenderErrorReason};
use serde::Serialize;

use crate::error::{Error, Result};

pub(super) const CARGO_TOML: &str = "Cargo.toml";
pub(super) const README: &str = "README.md";
pub(super) const ENV_EXAMPLE: &str = ".env.example";
pub(super) const DOCKERFILE: &str = "Dockerfile";
pub(super) const GITIGNORE: &str = ".gitignore";

const TEMPLATES: &[(&str, &str)] = &[
    (CARGO_TOML, include_str!("../../templates/crate/Cargo.toml.hbs")),
    (README, include_str!("../../templates/crate/README.md.hbs")),
    (ENV_EXAMPLE, include_str!("../../templates/crate/env.example.hbs")),
    (DOCKERFILE, include_str!("../../templates/crate/Dockerfile.hbs")),
    (GITIGNORE, include_str!("../../templates/crate/gitignore.hbs")),
];

/// The hooks module: static Rust, no spec strings in it.
pub(super) const HOOKS_RS: &str = include_str!("../../templates/crate/hooks.rs");

pub(super) struct Templates {
    hb: Handlebars<'static>,
}

impl Templates {
    pub(super) fn new() -> Result<Self> {
        let mut hb = Handlebars::new();
        hb.set_strict_mode(true);
        hb.register_escape_fn(handlebars::no_escape);
        hb.register_helper("toml", escaping_helper("toml", toml_string));
        hb.register_helper("inline", escaping_helper("inline", inline_text));
        for (name, text) in TEMPLATES {
            hb.register_template_string(name, *text).map_err(|e| bug(name, e.to_string()))?;
        }
        Ok(Templates { hb })
    }

    pub(super) fn render(&self, name: &str, ctx: &impl Serialize) -> Result<String> {
        self.hb.render(name, ctx).map_err(|e| bug(name, e.to_string()))
    }
}

fn bug(name: &str, message: String) -> Error {
    Error::internal(format!("rendering the template {name}"), message)
}

fn param_str<'a>(h: &'a Helper<'_>, name: &'static str) -> std::result::Result<&'a str, RenderErrorReason> {
    h.param(0).and_then(|p| p.value().as_str()).ok_or(RenderErrorReason::ParamNotFoundForIndex(name, 0))
}

/// A TOML basic string: quotes, backslashes and control characters escaped.
pub(super) fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One line of text, at most 300 characters.
pub(super) fn inline_text(s: &str) -> String {
    let line: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).take(300).collect();
    line.trim().to_string()
}

/// A helper that writes its one string argument escaped by `escape`.
fn escaping_helper(name: &'static str, escape: fn(&str) -> String) -> Box<dyn HelperDef + Send + Sync> {
    Box::new(
        move |h: &Helper<'_>,
              _: &Handlebars<'_>,
              _: &Context,
              _: &mut RenderContext<'_, '_>,
              out: &mut dyn Output|
              -> HelperResult {
            out.write(&escape(param_str(h, name)?))?;
            Ok(())
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(toml_string("a \"b\" \\ c\nd"), r#""a \"b\" \\ c\u000Ad""#);
        assert_eq!(inline_text("two\nlines\t"), "two lines");
    }
}
