//! The customisation points the engine runs with, as [`crate::ext`] defines them: the engine
//! imports them from there (a generated crate's code sees only `ext`), never the reverse.

pub use crate::ext::hooks::{BoxFuture, DynHooks, Extensions, HandlerFuture, Handlers, NoHandlers, NoHooks};
