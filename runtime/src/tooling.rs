//! What mcpgen's own commands use of the engine outside a running server: `search` (discovery's
//! search), `inspect` and the token reports (what `tools/list` costs), `pins`, `tokens revoke`
//! (the users' token store), `generate` (which features a config needs), `doctor` (how a tool
//! pages). A small API kept for mcpgen and its tests; a generated crate's own code builds on
//! [`crate::ext`] instead.

#[cfg(feature = "reload")]
pub use crate::engine::reload::{LoadError, Reload};
pub use crate::engine::{StoredSchema, ToolEntry};
pub use crate::response::paging::Pager;
pub use crate::upstream::encode::encode as encode_component;
pub use crate::upstream::identity::declared_modes;
pub use crate::upstream::request::prepare as prepare_request;

/// The `tools/list` of discovery mode and pinned tools: what it costs (`inspect`, token reports).
#[cfg(feature = "discovery")]
pub mod listing {
    pub use crate::engine::meta::{meta_tools, pinned};
}

/// Discovery's search over a catalogue, as `search_tools` runs it (`mcpgen search`).
#[cfg(feature = "discovery")]
pub mod search {
    #[cfg(feature = "semantic")]
    pub use crate::discovery::embed_cache::default_dir as embed_cache_dir;
    pub use crate::discovery::finder::Finder;
    pub use crate::discovery::search::SearchIndex;
    #[cfg(feature = "semantic")]
    pub use crate::discovery::semantic::{SemanticIndex, SentenceModel};
    pub use crate::engine::meta::{DEFAULT_LIMIT, MAX_LIMIT, search_result};
}

/// Approved tool definitions (`--pin-definitions`): `mcpgen pins update|check`.
pub mod pins {
    pub use crate::engine::pins::{Approval, Definitions, PinFile, PinsFileError, Reason, Review, definitions, review};
}

/// The token store of `--upstream-auth user`: `mcpgen tokens revoke`.
#[cfg(feature = "user-auth")]
pub mod store {
    pub use crate::upstream::user::store::{
        KEY_ENV, Sealed, StoreError, StoreFuture, TokenStore, open, state_key, subject_prefix, token_key,
    };
}

/// Code mode's declarations of the tools as typed functions (`describe_tools`), for their goldens.
#[cfg(feature = "code")]
pub mod code {
    pub use crate::code::{Options, ScriptNames, declare_all, declare_tools};
}
