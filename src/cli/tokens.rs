//! `mcpgen tokens`: the per-user upstream tokens `serve --upstream-auth user` keeps in its token
//! store. `revoke` deletes every stored token of a subject (their next call asks them to
//! authorize again); deleting decrypts nothing, so it needs no encryption key. The store and its
//! key layout are the runtime's (`upstream::user::store`).

use clap::{Args, Subcommand};

use crate::error::{Error, Result};
use crate::runtime::tooling::store;

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen tokens revoke alice@example.com --token-store /var/lib/mcpgen/tokens.json
                                          delete every upstream token stored for the subject
  MCPGEN_TOKEN_STORE=redis://redis:6379 mcpgen tokens revoke 'auth0|1234'
                                          the same on the Redis/Valkey store replicas share
                                          (its password in MCPGEN_TOKEN_STORE_PASSWORD)";

#[derive(Debug, Args)]
pub(crate) struct TokensArgs {
    #[command(subcommand)]
    command: TokensCommand,
}

#[derive(Debug, Subcommand)]
enum TokensCommand {
    /// Delete every upstream token stored for a subject (the `sub` of their access token to
    /// mcpgen): they authorize again at their next call. Needs no encryption key.
    #[command(after_help = EXAMPLES)]
    Revoke(RevokeArgs),
}

#[derive(Debug, Args)]
struct RevokeArgs {
    /// The subject whose tokens go, as the server saw it: the `sub` claim of their access token.
    #[arg(value_name = "SUBJECT")]
    subject: String,

    /// The token store `serve --upstream-auth user` uses: a file path (or file:PATH), or
    /// redis://HOST:PORT[/DB] or rediss://… (its password in MCPGEN_TOKEN_STORE_PASSWORD)
    /// [default: serve's, $XDG_STATE_HOME/mcpgen/upstream-tokens.json].
    #[arg(long, value_name = "SPEC", env = "MCPGEN_TOKEN_STORE")]
    token_store: Option<String>,
}

pub(super) fn run(args: &TokensArgs) -> Result<()> {
    match &args.command {
        TokensCommand::Revoke(a) => revoke(a),
    }
}

fn revoke(args: &RevokeArgs) -> Result<()> {
    if args.subject.is_empty() {
        return Err(Error::Usage { message: "`mcpgen tokens revoke`: the SUBJECT is empty".into() });
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Internal { what: "starting the async runtime".into(), message: e.to_string() })?;
    let spec = match &args.token_store {
        Some(s) => s.clone(),
        None => crate::runtime::cli::default_token_store().map_err(|e| Error::Usage { message: e.to_string() })?,
    };
    let gone = runtime.block_on(async {
        let env = |name: &str| std::env::var(name).ok();
        let store = store::open(&spec, &env).await.map_err(|e| Error::Usage { message: e.to_string() })?;
        store
            .delete_prefix(&store::subject_prefix(&args.subject))
            .await
            .map_err(|e| Error::Usage { message: e.to_string() })
    })?;
    match gone {
        0 => println!("no stored token of {}", args.subject),
        1 => println!("revoked 1 stored token of {}", args.subject),
        n => println!("revoked {n} stored tokens of {}", args.subject),
    }
    Ok(())
}
