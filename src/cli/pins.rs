//! `mcpgen pins`: the tool definitions `serve --pin-definitions FILE` serves, approved (`update`)
//! or checked (`check`, for CI). Both read the inputs exactly as `serve` does, with the same
//! flags (they take every flag `serve` takes), so that the definitions they pin are the ones the
//! server compares. The file format, the hashes and the comparison are the runtime's
//! (`engine::pins`); a running `serve --watch` picks up an update at once (SIGHUP without it).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::serve::ServeArgs;
use crate::error::{Error, Location, Result};
use crate::runtime::tooling::pins::{self, Approval, Definitions, PinFile, PinsFileError, Review};

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen pins update --pin-definitions pins.json openapi.yaml
                                          approve every tool as `serve` would show it now
  mcpgen pins update --pin-definitions pins.json openapi.yaml --tool listPets
                                          approve one tool's change (repeatable)
  mcpgen pins check --pin-definitions pins.json openapi.yaml
                                          what changed since; exit 1 when `serve` would withhold a tool
  mcpgen serve openapi.yaml --pin-definitions pins.json --watch
                                          serve only approved definitions; an update is picked up live";

#[derive(Debug, Args)]
pub(crate) struct PinsArgs {
    #[command(subcommand)]
    command: PinsCommand,
}

#[derive(Debug, Subcommand)]
enum PinsCommand {
    /// Pin the tools' definitions as `serve` would show them now: changed and new tools are
    /// approved, pins of tools that are gone forgotten. Takes `serve`'s flags.
    #[command(after_help = EXAMPLES)]
    Update(UpdateArgs),
    /// Print how the tools differ from their pins; exit 1 when `serve` would withhold one. Takes
    /// `serve`'s flags (`--pins-auto-approve` included).
    #[command(after_help = EXAMPLES)]
    Check(CheckArgs),
}

#[derive(Debug, Args)]
struct UpdateArgs {
    #[command(flatten)]
    serve: ServeArgs,

    /// Approve only this tool (repeatable): its pin is written (or forgotten, when the tool is
    /// gone); the others stay as they are.
    #[arg(long, value_name = "NAME")]
    tool: Vec<String>,
}

#[derive(Debug, Args)]
struct CheckArgs {
    #[command(flatten)]
    serve: ServeArgs,
}

pub(super) fn run(args: &PinsArgs) -> Result<()> {
    match &args.command {
        PinsCommand::Update(a) => update(a),
        PinsCommand::Check(a) => check(a),
    }
}

/// The pins file the flags name, and the catalogue's definitions as `serve` would compare them.
fn read_inputs(serve: &ServeArgs) -> Result<(PathBuf, Definitions)> {
    let path = serve.server.pins.pin_definitions.clone().ok_or_else(|| Error::Usage {
        message: "`mcpgen pins` needs --pin-definitions FILE (or MCPGEN_PIN_DEFINITIONS): the file `serve \
                  --pin-definitions` reads"
            .into(),
    })?;
    let (config, _files) = super::serve::build_config(serve)?;
    Ok((path, pins::definitions(&config.tools)))
}

fn file_error(e: PinsFileError) -> Error {
    Error::Invalid { location: Location::doc(e.path.display().to_string()), message: e.why }
}

fn update(args: &UpdateArgs) -> Result<()> {
    let (path, current) = read_inputs(&args.serve)?;
    let existing = PinFile::read(&path).map_err(file_error)?;
    let created = existing.is_none();
    let mut pins = existing.unwrap_or_default();
    let approval = pins
        .approve(&current, &args.tool)
        .map_err(|message| Error::Usage { message: format!("--tool: {message} in {}", path.display()) })?;
    if approval.is_empty() && !created {
        println!("{}: nothing to approve: {} pins match the tools", path.display(), pins.tools.len());
        return Ok(());
    }
    pins.write(&path).map_err(file_error)?;
    print_approval(&path, &approval, pins.tools.len(), created);
    Ok(())
}

fn print_approval(path: &Path, approval: &Approval, pinned: usize, created: bool) {
    let Approval { added, changed, removed } = approval;
    println!(
        "{}: {} ({} added, {} changed, {} removed); {pinned} tools pinned",
        path.display(),
        if created { "written" } else { "approved" },
        added.len(),
        changed.len(),
        removed.len()
    );
    for name in added {
        println!("  added    {name}");
    }
    for (name, what) in changed {
        println!("  changed  {name}: {}", what.join("; "));
    }
    for name in removed {
        println!("  removed  {name}");
    }
}

fn check(args: &CheckArgs) -> Result<()> {
    let (path, current) = read_inputs(&args.serve)?;
    let Some(pins) = PinFile::read(&path).map_err(file_error)? else {
        return Err(Error::Invalid {
            location: Location::doc(path.display().to_string()),
            message: "no such file: `serve` would pin every tool on first use; `mcpgen pins update` writes it now"
                .into(),
        });
    };
    let review = pins::review(&pins, &current, &args.serve.server.pins.pins_auto_approve);
    print_review(&path, &review);
    if review.withheld.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = review.withheld.keys().map(String::as_str).collect();
    Err(Error::Invalid {
        location: Location::doc(path.display().to_string()),
        message: format!(
            "`serve` would withhold {} tools ({}): `mcpgen pins update` approves them",
            names.len(),
            names.join(", ")
        ),
    })
}

fn print_review(path: &Path, review: &Review) {
    println!(
        "{}: {} tools match their pins, {} would be withheld ({} changed, {} new)",
        path.display(),
        review.matching,
        review.withheld.len(),
        review.count("changed"),
        review.count("new")
    );
    for (name, reason) in &review.withheld {
        match reason {
            pins::Reason::Changed(what) => println!("  changed  {name}: {}", what.join("; ")),
            pins::Reason::New => println!("  new      {name}"),
        }
    }
    for (name, args) in &review.approved {
        println!("  approved automatically  {name}: new optional {}", args.join(", "));
    }
    for name in &review.stale {
        println!("  stale    {name}: pinned, no longer a tool (`mcpgen pins update` forgets it)");
    }
}
