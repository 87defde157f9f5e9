//! `--upstream-auth user`: each user's own authorization at the API (OAuth2 authorization code
//! with PKCE): the flow per API and the store of users' tokens. Asking a user through their client
//! and the callback route are the transport's (`transport/ask_user.rs`,
//! `transport/http/user_routes.rs`).

pub mod authorizer;
pub mod store;
