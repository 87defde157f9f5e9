//! `mcpgen doctor`: findings about how well an API description serves an AI agent, with a score.

use std::cell::RefCell;
use std::process::ExitCode;

use clap::Args;

use super::InputArgs;
use super::values::FailOnArg;
use crate::doctor::{self, ApiReport, Report, Severity};
use crate::error::Result;
use crate::merge::{ConfigKind, Source};
use crate::pipeline::Pipeline;

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen doctor openapi.yaml                     score, counts and findings (the first 5 of each rule)
  mcpgen doctor openapi.yaml --verbose           every finding
  mcpgen doctor openapi.yaml --json | jq '.findings[] | select(.rule == \"undocumented-enum\")'
  mcpgen doctor openapi.yaml --fail-on warning   exit 1 on a warning or error, 2 on bad input (CI)
  mcpgen doctor github.json stripe.json          several APIs: a score each
  mcpgen doctor petstore.mcp.json                a runtime config: the checks that need only tools

Rules, severities and the score: docs/doctor.md.";

#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// More APIs (API descriptions, runtime configs, multi-API files): each gets its own score.
    #[arg(value_name = "SPEC")]
    pub more: Vec<String>,

    /// Print a JSON report (every finding) instead of text.
    #[arg(long)]
    pub json: bool,

    /// Exit with code 1 when a finding at this level or above exists (without it: 0, whatever
    /// is found); an input that cannot be read exits with 2.
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub fail_on: Option<FailOnArg>,

    /// List every finding (the text report otherwise shows the first 5 of each rule).
    #[arg(long, short)]
    pub verbose: bool,
}

/// Runs `mcpgen doctor`: the exit code is 1 when `--fail-on`'s level is reached, else 0.
pub(super) fn run(args: &DoctorArgs) -> Result<ExitCode> {
    let opts = args.input.pipeline_options(false)?;
    let progress = crate::progress::Progress::start(true, "examining the API");
    // Each API merged with others is examined as its pipeline is built (its IR is not kept).
    let made: RefCell<Vec<ApiReport>> = RefCell::new(Vec::new());
    let examine = |p: &Pipeline| made.borrow_mut().push(doctor::of_pipeline(p));
    let inputs = crate::merge::open(&args.input.specs(&args.more), &opts, &examine)?;
    let apis = match &inputs.source {
        Source::Api(p) => vec![doctor::of_pipeline(p)],
        Source::Config { config, kind: ConfigKind::Given } => vec![doctor::of_config(config, &inputs.origin)],
        Source::Config { config, kind: ConfigKind::Merged { warnings } } => {
            super::report_merge_warnings(warnings, super::say_on_stderr);
            doctor::of_merged(config, &inputs.origin, made.take())
        }
    };
    drop(progress);
    let report = Report::new(apis);
    if args.json {
        print!("{}", report.json());
    } else {
        print!("{}", report.text(args.verbose));
    }
    let Some(level) = args.fail_on.map(Severity::from) else { return Ok(ExitCode::SUCCESS) };
    let failing = report.at_least(level);
    if failing == 0 {
        return Ok(ExitCode::SUCCESS);
    }
    let level = level.as_str();
    eprintln!("mcpgen doctor: {failing} findings at `{level}` or above (--fail-on {level})");
    Ok(ExitCode::FAILURE)
}
