//! `--upstream-auth user`: each user's own authorization at the API (OAuth2 authorization code
//! with PKCE): the flow per API, its callback route, and the store of users' tokens.

pub(crate) mod ask;
pub mod authorizer;
#[cfg(feature = "http")]
pub mod callback;
pub mod store;
