//! Pinned tool definitions (`--pin-definitions FILE`), against "rug pulls": a tool whose
//! definition changes after a user approved it (a description that now tells the model to do
//! something else, a new required argument).
//!
//! The file keeps, for each tool, the SHA-256 of its definition as clients are shown it ([`mod@file`]:
//! name, title, description, input and output schemas, annotations; canonical JSON) and the
//! definition itself. Each time the server builds its catalogue (at start and on each reload) the
//! tools are checked against it ([`compare`]): a tool that matches its pin is served; one whose
//! definition changed, or that has no pin (new since the pins were written), is *withheld*: taken
//! out of the config before the engine is built, so that no surface lists it, no search finds it,
//! and a call to it is an error saying why ([`crate::Error::Withheld`]). A missing file is
//! created with every tool (trust on first use). `mcpgen pins update` approves the catalogue as
//! it is now; `--pins-auto-approve optional-args` approves, without asking, a change that only
//! adds optional arguments.

pub mod compare;
pub mod file;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, ValueEnum};

pub use self::compare::{Reason, Review, review};
use self::file::Pin;
pub use self::file::{Approval, Definitions, PinFile, PinsFileError, definitions};
use crate::config::RuntimeConfig;

/// Withheld tools named in a log line at most; the rest are counted.
const NAMED: usize = 20;

/// `--pin-definitions`, `--pins-auto-approve`: a server flag (a config cannot name its own pins:
/// a changed config could then drop them).
#[derive(Debug, Clone, Default, Args)]
pub struct PinArgs {
    /// Serve only tools whose definitions match their pins in FILE (written with every tool when
    /// it does not exist); a changed or new tool is withheld until `mcpgen pins update` approves it.
    #[arg(long, value_name = "FILE", env = "MCPGEN_PIN_DEFINITIONS", help_heading = "Pinned definitions")]
    pub pin_definitions: Option<PathBuf>,

    /// Changes approved without asking (the pins file is updated, the log says so).
    #[arg(
        long,
        value_enum,
        value_name = "CHANGE",
        value_delimiter = ',',
        requires = "pin_definitions",
        help_heading = "Pinned definitions"
    )]
    pub pins_auto_approve: Vec<AutoApprove>,
}

/// `--pins-auto-approve`: the kinds of change approved without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AutoApprove {
    /// A tool that only gained optional arguments (new input properties `required` does not list;
    /// everything else as approved).
    OptionalArgs,
}

impl PinArgs {
    /// The check the flags ask for; `None` without `--pin-definitions`.
    pub fn pinner(&self) -> Option<Pinner> {
        let path = self.pin_definitions.clone()?;
        Some(Pinner { path, auto: self.pins_auto_approve.clone() })
    }
}

/// The tools withheld from the engine, and why: a call to one is [`crate::Error::Withheld`].
/// Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Withheld(Arc<BTreeMap<String, Reason>>);

impl Withheld {
    /// Why `name` is withheld; `None` when it is not.
    pub fn reason(&self, name: &str) -> Option<&Reason> {
        self.0.get(name)
    }

    /// How many are withheld for `label` (`changed`, `new`: [`Reason::label`]).
    pub fn count(&self, label: &str) -> usize {
        self.0.values().filter(|r| r.label() == label).count()
    }

    /// How many are withheld.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// None is withheld.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Checks each catalogue the server builds against the pins file.
#[derive(Debug, Clone)]
pub struct Pinner {
    path: PathBuf,
    auto: Vec<AutoApprove>,
}

impl Pinner {
    /// Checks against the pins at `path`, approving the changes `auto` names.
    pub fn new(path: PathBuf, auto: Vec<AutoApprove>) -> Pinner {
        Pinner { path, auto }
    }

    /// The pins file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Takes the tools of `config` that do not match their pins out of it, and says so in the
    /// log (one line per catalogue). A missing pins file is written with every tool; changes
    /// `--pins-auto-approve` approves are written to it. A pins file that cannot be read is an
    /// error (the server does not start; a reload leaves the previous catalogue serving).
    pub fn apply(&self, config: &mut RuntimeConfig) -> Result<Withheld, PinsFileError> {
        // The config's shared definitions, lent to the tools' definitions and given back.
        let shared = Arc::new(std::mem::take(&mut config.definitions));
        let current = file::definitions_in(&config.tools, &shared);
        config.definitions = Arc::try_unwrap(shared).unwrap_or_else(|shared| (*shared).clone());
        let Some(mut pins) = PinFile::read(&self.path)? else {
            PinFile::of(&current).write(&self.path)?;
            tracing::info!(
                "{}: pinned the definitions of {} tools (trust on first use); from now on a tool whose definition \
                 changes, or a new one, is withheld until `mcpgen pins update` approves it",
                self.path.display(),
                current.len()
            );
            return Ok(Withheld::default());
        };
        let review = review(&pins, &current, &self.auto);
        if !review.approved.is_empty() {
            self.approve(&mut pins, &current, &review.approved);
        }
        self.log(&review);
        let withheld = review.withheld;
        if !withheld.is_empty() {
            config.tools.retain(|t| !withheld.contains_key(&t.name));
            // Measured on every tool: `auto` estimates the shorter list instead.
            config.context.tools_list_tokens = None;
        }
        Ok(Withheld(Arc::new(withheld)))
    }

    /// Writes the pins of the tools `--pins-auto-approve` approved. They are served even when the
    /// file cannot be written (the flag approves them again next time).
    fn approve(&self, pins: &mut PinFile, current: &Definitions, approved: &[(String, Vec<String>)]) {
        for (name, _) in approved {
            if let Some(d) = current.get(name) {
                pins.tools.insert(name.clone(), Pin::of(d));
            }
        }
        let said: Vec<String> =
            approved.iter().map(|(name, args)| format!("{name} (new optional {})", list(args))).collect();
        match pins.write(&self.path) {
            Ok(()) => tracing::info!(
                "{}: approved automatically (--pins-auto-approve optional-args): {}",
                self.path.display(),
                said.join(", ")
            ),
            Err(e) => tracing::warn!(
                "{e}; approved for now (--pins-auto-approve optional-args), not written: {}",
                said.join(", ")
            ),
        }
    }

    /// The review's line: the tools withheld and why (warn), or that every tool matches (debug).
    fn log(&self, review: &Review) {
        let path = self.path.display();
        if !review.stale.is_empty() {
            let stale: Vec<&str> = review.stale.iter().map(String::as_str).collect();
            tracing::info!(
                "{path}: {} pinned tools are no longer in the catalogue ({}); `mcpgen pins update` forgets them",
                stale.len(),
                list(&stale)
            );
        }
        if review.withheld.is_empty() {
            tracing::debug!("{path}: {} tools match their pins", review.matching);
            return;
        }
        let mut named: Vec<String> =
            review.withheld.iter().take(NAMED).map(|(name, reason)| format!("{name} ({reason})")).collect();
        if review.withheld.len() > NAMED {
            named.push(format!("and {} more", review.withheld.len() - NAMED));
        }
        tracing::warn!(
            "{path}: {} tools withheld until approved with `mcpgen pins update` ({} serve as pinned): {}",
            review.withheld.len(),
            review.matching + review.approved.len(),
            named.join(", ")
        );
    }
}

/// `a`, `b` and `c`, quoted.
fn list<S: AsRef<str>>(names: &[S]) -> String {
    file::quoted(&names.iter().map(AsRef::as_ref).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests;
