//! `--upstream-auth user`: each user's own authorization at the API (OAuth2 authorization code
//! with PKCE).

pub mod store;
