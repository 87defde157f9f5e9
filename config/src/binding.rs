//! How a tool's call becomes an HTTP request, as the runtime config describes it: the method, the
//! path template, where each argument goes (path, query, header, cookie; with its serialisation
//! style) and the body. Part of the runtime config's model (`model.rs` re-exports it); depends on
//! nothing but serde.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::SecurityRequirements;

/// An HTTP method. Written upper-case in the runtime config; a config with any other value fails
/// to load, naming the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Method {
    /// `GET`.
    Get,
    /// `PUT`.
    Put,
    /// `POST`.
    Post,
    /// `DELETE`.
    Delete,
    /// `OPTIONS`.
    Options,
    /// `HEAD`.
    Head,
    /// `PATCH`.
    Patch,
    /// `TRACE`.
    Trace,
}

impl Method {
    /// Every method, in the order of OpenAPI's path item fields (the order operations are read in).
    pub const ALL: [Method; 8] = [
        Method::Get,
        Method::Put,
        Method::Post,
        Method::Delete,
        Method::Options,
        Method::Head,
        Method::Patch,
        Method::Trace,
    ];

    /// The lower-case key used in OpenAPI path items.
    pub fn key(self) -> &'static str {
        match self {
            Method::Get => "get",
            Method::Put => "put",
            Method::Post => "post",
            Method::Delete => "delete",
            Method::Options => "options",
            Method::Head => "head",
            Method::Patch => "patch",
            Method::Trace => "trace",
        }
    }

    /// The upper-case name, as sent and as the config writes it (`GET`).
    pub fn as_upper(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
            Method::Patch => "PATCH",
            Method::Trace => "TRACE",
        }
    }

    /// A method name in any case (`get`, `GET`), as users write them in bindings and flags.
    pub fn parse(s: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.key().eq_ignore_ascii_case(s))
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_upper())
    }
}

/// How a tool's call becomes an HTTP request (`http` in a tool).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpBinding {
    /// The request's method.
    pub method: Method,
    /// Path template relative to the base URL, e.g. `/pets/{petId}`.
    pub path: String,
    /// Arguments that go into the path, query, headers or cookies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<ParamBinding>,
    /// The request body and the arguments that make it up; `None`: no body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<BodyBinding>,
    /// The credentials this operation needs: any one of the alternatives, each a set of scheme
    /// names used together. Empty: no authentication.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub security: SecurityRequirements,
    /// A server of this operation's own (OpenAPI operation- or path-level `servers`); the
    /// upstream base URL otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Headers with values the document fixes (declared `Accept` / `Content-Type` parameters,
    /// required parameters that allow one value).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Query parameters with values the document fixes (`/#Action=X` path keys, required
    /// parameters that allow one value).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub query: BTreeMap<String, String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Where one argument goes and how it is serialised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParamBinding {
    /// Property name in the tool's input schema.
    pub arg: String,
    /// Name on the wire (path variable, query key, header or cookie name).
    pub name: String,
    /// Where the value goes; `in` in the config.
    #[serde(rename = "in")]
    pub location: ParamLocation,
    /// How the value is serialised (with [`explode`](Self::explode)).
    pub style: ParamStyle,
    /// OpenAPI's `explode`: arrays and objects as separate items or pairs (`tags=x&tags=y`,
    /// `;id=a;id=b`) rather than one comma-separated value.
    pub explode: bool,
    /// Query only: RFC 3986 reserved characters (`:/?[]@!$'()*+,;`) are sent as they are, not
    /// percent-encoded (OpenAPI `allowReserved`). Omitted when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub allow_reserved: bool,
    /// Set when the parameter is serialised as a media type (OpenAPI `content`), e.g. JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
}

/// Where a parameter goes (OpenAPI's `in`, lower-case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ParamLocation {
    /// `path`: replaces `{name}` in the path template.
    Path,
    /// `query`: query string pairs.
    Query,
    /// `header`: a request header.
    Header,
    /// `cookie`: a cookie of the `Cookie` header.
    Cookie,
}

/// How a parameter's value is serialised (OpenAPI's `style`, camelCase); examples for the array
/// `[a, b]`, unexploded / exploded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ParamStyle {
    /// `simple`: `a,b` (path and header default).
    Simple,
    /// `label`: `.a,b` / `.a.b` (path).
    Label,
    /// `matrix`: `;id=a,b` / `;id=a;id=b` (path).
    Matrix,
    /// `form`: `id=a,b` / `id=a&id=b` (query and cookie default).
    Form,
    /// `spaceDelimited`: `id=a%20b` (query arrays).
    SpaceDelimited,
    /// `pipeDelimited`: `id=a|b` (query arrays).
    PipeDelimited,
    /// `deepObject`: an object as `id[key]=value` pairs, nested objects as `id[key][inner]`
    /// (query).
    DeepObject,
}

impl ParamLocation {
    /// The OpenAPI name (`in`).
    pub fn as_str(self) -> &'static str {
        match self {
            ParamLocation::Path => "path",
            ParamLocation::Query => "query",
            ParamLocation::Header => "header",
            ParamLocation::Cookie => "cookie",
        }
    }
}

impl ParamStyle {
    /// The OpenAPI name (`style`).
    pub fn as_str(self) -> &'static str {
        match self {
            ParamStyle::Simple => "simple",
            ParamStyle::Label => "label",
            ParamStyle::Matrix => "matrix",
            ParamStyle::Form => "form",
            ParamStyle::SpaceDelimited => "spaceDelimited",
            ParamStyle::PipeDelimited => "pipeDelimited",
            ParamStyle::DeepObject => "deepObject",
        }
    }

    /// The OpenAPI default style for a location.
    pub fn default_for(location: ParamLocation) -> Self {
        match location {
            ParamLocation::Path | ParamLocation::Header => ParamStyle::Simple,
            ParamLocation::Query | ParamLocation::Cookie => ParamStyle::Form,
        }
    }
}

/// The request body and which arguments make it up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BodyBinding {
    /// The body's media type, sent as `Content-Type` (`*/*` sends JSON as `application/json`). It
    /// says how the value is serialised: JSON, `application/x-www-form-urlencoded`, `multipart/*`,
    /// text (XML, YAML, CSV, `text/*`, ...), or else raw bytes.
    pub media_type: String,
    /// The body is required: with `properties`, an empty object is sent when no field argument is
    /// given (otherwise no body is). Omitted when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
    /// Which arguments make up the body (`kind`).
    pub content: BodyContent,
}

/// Which arguments make up a request body (`kind` in the config, snake_case).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum BodyContent {
    /// The whole body is one argument (arrays, scalars, raw and binary bodies, unions).
    Whole {
        /// The input-schema property whose value is the body; no body when it is absent.
        arg: String,
    },
    /// The body is an object whose properties are top-level arguments.
    Properties {
        /// The body's properties, each from its own argument.
        fields: Vec<BodyField>,
        /// For object bodies that allow unknown keys: an argument holding extra properties.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        extra_arg: Option<String>,
    },
    /// The arguments object as it is: a function-calling tool forwarded to a URL of its own.
    Arguments,
    /// `{"name": <name>, "arguments": {...}}`: every function-calling tool forwarded to one URL.
    Call {
        /// The function's name, sent as `name`.
        name: String,
    },
}

/// One property of an object body and the argument that holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BodyField {
    /// Property name in the tool's input schema.
    pub arg: String,
    /// Name in the body (the JSON or form key, or the multipart part's name).
    pub name: String,
    /// Multipart only: the part's content type (from the OpenAPI `encoding` object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Multipart only: the field is a file (its argument is base64 content or text).
    #[serde(default, skip_serializing_if = "is_false")]
    pub file: bool,
}
