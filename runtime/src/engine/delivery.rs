//! How a call reaches the engine besides its tool and arguments ([`Via`]), and whom its result is
//! written for ([`Delivery`]): what the call path (`call.rs`) and code mode's part (`code.rs`)
//! share.

use rmcp::RoleServer;
use rmcp::service::RequestContext;

use super::confirm::Asker;

/// Whom a call's result is written for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Delivery {
    /// The model: lean or full, tables, within the result budget.
    #[default]
    Model,
    /// A script of code mode: the response as sent, whole (see [`crate::response::for_script`]).
    #[cfg_attr(not(feature = "code"), allow(dead_code))]
    Script,
    /// A crate's Rust code through [`crate::ext::Context::call`]: whole, like a script's, and
    /// always the API's tool (a Rust tool that replaces it is not called).
    Rust,
}

impl Delivery {
    /// The result is the response whole, for code to read.
    pub(crate) fn whole(self) -> bool {
        matches!(self, Delivery::Script | Delivery::Rust)
    }
}

/// How a call reaches the engine besides its tool and arguments.
#[derive(Clone, Copy, Default)]
pub(crate) struct Via<'a> {
    /// Whom the result is for.
    pub(crate) delivery: Delivery,
    /// Who asks the user to confirm the calls a script makes (`--confirm`).
    pub(crate) asker: Option<&'a Asker>,
    /// The client's request this call answers, for a Rust tool's questions to the user.
    pub(crate) session: Option<&'a RequestContext<RoleServer>>,
}
