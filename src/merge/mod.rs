//! Every command's inputs (API descriptions, runtime configs, multi-API files) to one API's
//! pipeline or one runtime config: [`open`], the one door into the pipeline. One
//! API description goes through the pipeline as always, one runtime config is read as it is;
//! two or more inputs (or a multi-API file) are built with tool name prefixes (`github_`,
//! `stripe_`) and merged into one catalogue ([`combine`]), which the one engine serves: one
//! `tools/list`, one search index.

mod combine;
mod file;

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::ir::ApiIr;
use crate::load::{self, AnyInput, Input};
use crate::normalize::Routing;
use crate::pipeline::{self, Pipeline, PipelineOptions};
use combine::Part;
use file::Wanted;
use mcpgen_config::RuntimeConfig;

/// What every command but `convert` runs on: its inputs, read and made into one API's pipeline
/// or one runtime config ([`open`]).
pub struct Inputs {
    /// The inputs as the user named them, joined with `, ` (for messages).
    pub origin: String,
    /// What they came to.
    pub source: Source,
    /// The local files read: the inputs, multi-API files, the files their `$ref`s reach
    /// (`serve --watch` watches them; `--bindings` is the caller's to add).
    pub files: Vec<PathBuf>,
}

/// One API description's pipeline, or a runtime config.
pub enum Source {
    /// One API description or function list, through the pipeline: its IR and its tools.
    Api(Box<Pipeline>),
    /// A runtime config: one given as it is, or one made here from several APIs.
    Config {
        /// The config, with the options that apply to a config's tools applied (filters,
        /// `--auth`, `--base-url`).
        config: Box<RuntimeConfig>,
        /// Where it comes from.
        kind: ConfigKind,
    },
}

/// Where a [`Source::Config`] comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigKind {
    /// A runtime config `mcpgen config` wrote (maybe edited since), read as it is.
    Given,
    /// Several APIs (several inputs, or a multi-API file) merged into one config; with what was
    /// renamed to keep them apart.
    Merged {
        /// One sentence per rename.
        warnings: Vec<String>,
    },
}

impl Source {
    /// The runtime config: the pipeline's tools, or the config.
    pub fn config(&self) -> &RuntimeConfig {
        match self {
            Source::Api(p) => &p.tools.config,
            Source::Config { config, .. } => config,
        }
    }

    /// Like [`Source::config`], to change it (a command's flags).
    pub fn config_mut(&mut self) -> &mut RuntimeConfig {
        match self {
            Source::Api(p) => &mut p.tools.config,
            Source::Config { config, .. } => config,
        }
    }

    /// The runtime config alone; a pipeline's IR is freed.
    pub fn into_config(self) -> RuntimeConfig {
        match self {
            Source::Api(p) => {
                let Pipeline { ir, tools, .. } = *p;
                crate::mem::free_now(ir);
                tools.config
            }
            Source::Config { config, .. } => *config,
        }
    }
}

/// The one door into the pipeline: reads `specs` (paths, URLs, `-`; API descriptions, function
/// lists, runtime configs, multi-API files) and makes them one API's pipeline (one API
/// description) or one runtime config (a runtime config, or several APIs merged, see
/// this module). `report` is called with the pipeline of each API that is merged with others
/// (for its warnings: its IR is not kept); a [`Source::Api`]'s diagnostics are the caller's to
/// show. Options that cannot apply to a runtime config's tools (`--output-schema`, ...) are an
/// error naming the flag when an input is one.
pub fn open(specs: &[String], opts: &PipelineOptions, report: &dyn Fn(&Pipeline)) -> Result<Inputs> {
    let (inputs, files) = read_inputs(specs, opts)?;
    let source = load_inputs(inputs, opts, report)?;
    Ok(Inputs { origin: specs.join(", "), source, files })
}

fn load_inputs(inputs: Vec<Asked<Input>>, opts: &PipelineOptions, report: &dyn Fn(&Pipeline)) -> Result<Source> {
    let several = inputs.len() > 1;
    if !several {
        // One input (named on the command line, or the one API of a multi-API file): an API
        // description's pipeline, or a runtime config, as they were before there were several.
        let Some((w, input)) = inputs.into_iter().next() else {
            return Err(Error::Usage { message: "no input: name an API description or a runtime config".into() });
        };
        return match input {
            Input::Config(c) => {
                refuse_unusable(&w, opts, w.prefix.as_deref().is_some_and(|p| !p.is_empty()))?;
                let mut config = adjust(*c, &w, w.prefix.as_deref().unwrap_or(""))?;
                config.upstream.headers.extend(w.headers);
                if w.upstream_auth.is_some() {
                    config.upstream.auth = w.upstream_auth;
                }
                Ok(Source::Config { config: Box::new(config), kind: ConfigKind::Given })
            }
            Input::Api(doc) => {
                let _progress = crate::progress::Progress::start(opts.progress, &format!("converting {}", w.spec));
                let mut wanted = w.opts.clone();
                if let Some(prefix) = &w.prefix {
                    wanted.tools.name_prefix = prefix.clone();
                }
                let mut p = pipeline::run_loaded(&w.spec, *doc, &wanted)?;
                p.tools.config.upstream.headers.extend(w.headers);
                if w.upstream_auth.is_some() {
                    p.tools.config.upstream.auth = w.upstream_auth;
                }
                Ok(Source::Api(Box::new(p)))
            }
        };
    }
    let progress = crate::progress::Progress::start(opts.progress, "converting the APIs");
    let prepared: Vec<(Wanted, Prepared)> = inputs
        .into_iter()
        .map(|(w, input)| {
            let p = match input {
                Input::Api(doc) => Prepared::Api(Box::new(pipeline::prepare(*doc, &w.opts)?)),
                Input::Config(c) => {
                    // Every config gets a prefix, but one whose entry asks for none.
                    refuse_unusable(&w, opts, w.prefix.as_deref() != Some(""))?;
                    Prepared::Config(c)
                }
            };
            Ok((w, p))
        })
        .collect::<Result<_>>()?;
    let (prefixes, mut warnings) = prefixes(&prepared, several)?;
    let mut parts = Vec::with_capacity(prepared.len());
    for ((w, p), prefix) in prepared.into_iter().zip(prefixes) {
        let config = match p {
            Prepared::Api(ir) => {
                let mut opts = w.opts.clone();
                opts.tools.name_prefix = prefix.clone();
                built(pipeline::finish(&w.spec, *ir, &opts)?, report)
            }
            Prepared::Config(c) => adjust(*c, &w, &prefix)?,
        };
        parts.push(Part { origin: w.spec, prefix, headers: w.headers, upstream_auth: w.upstream_auth, config });
    }
    drop(progress);
    let merged = combine::merge(parts, opts.tools.max_name_len, opts.tools.max_description_len)?;
    warnings.extend(merged.warnings);
    Ok(Source::Config { config: Box::new(merged.config), kind: ConfigKind::Merged { warnings } })
}

/// An input loaded, an API description normalised (its title known) but not yet made tools.
enum Prepared {
    Api(Box<ApiIr>),
    Config(Box<RuntimeConfig>),
}

impl Prepared {
    fn title(&self) -> &str {
        match self {
            Prepared::Api(ir) => &ir.info.title,
            Prepared::Config(c) => combine::title_of(c),
        }
    }
}

/// An input with what its entry (or the command line) asks of it.
type Asked<T> = (Wanted, T);

/// A spec that names a local file, made absolute (URLs and stdin are not files).
fn local_file(spec: &str) -> Option<PathBuf> {
    load::names_a_file(spec).then(|| std::path::absolute(spec).unwrap_or_else(|_| PathBuf::from(spec)))
}

/// The local files of an input: its documents (and `$ref`ed files) or the config file.
fn files_of(spec: &str, input: &Input) -> Vec<PathBuf> {
    match input {
        Input::Api(doc) => doc.docs.local_files(),
        Input::Config(_) => local_file(spec).into_iter().collect(),
    }
}

/// Every input read, a multi-API file's entries in its place, and the local files read.
fn read_inputs(specs: &[String], opts: &PipelineOptions) -> Result<(Vec<Asked<Input>>, Vec<PathBuf>)> {
    let mut files = Vec::new();
    if specs.iter().filter(|s| *s == "-").count() > 1 {
        return Err(Error::Usage { message: "stdin (`-`) can be read only once".into() });
    }
    let mut inputs = Vec::new();
    for spec in specs {
        let _progress = crate::progress::Progress::start(opts.progress, &format!("loading {spec}"));
        match load::load_any(spec, &opts.load)? {
            AnyInput::One(input) => {
                files.extend(files_of(spec, &input));
                inputs.push((Wanted::cli(spec, opts), input));
            }
            AnyInput::Apis(apis) => {
                files.extend(local_file(spec));
                for w in file::entries(&apis, opts)? {
                    let input = match load::load_any(&w.spec, &w.opts.load) {
                        Ok(AnyInput::One(input)) => input,
                        Ok(AnyInput::Apis(_)) => {
                            return Err(w.invalid("spec", "is a multi-API file too: name API descriptions".into()));
                        }
                        // The file that could not be read, and the entry that names it.
                        Err(e @ Error::Read { .. }) => return Err(w.invalid("spec", e.to_string())),
                        Err(e) => return Err(e),
                    };
                    files.extend(files_of(&w.spec, &input));
                    inputs.push((w, input));
                }
            }
        }
    }
    files.sort();
    files.dedup();
    Ok((inputs, files))
}

/// A pipeline's config, its warnings reported and its IR freed.
fn built(p: Pipeline, report: &dyn Fn(&Pipeline)) -> RuntimeConfig {
    report(&p);
    crate::mem::free_now(p.ir);
    p.tools.config
}

/// Each API's tool name prefix: the one asked for, else one from its title when there are
/// several APIs (none for one). Two APIs asking for one prefix is an error; a derived prefix that
/// is taken gets a number (`petstore2_`), with a warning.
fn prefixes(inputs: &[(Wanted, Prepared)], several: bool) -> Result<(Vec<String>, Vec<String>)> {
    let mut warnings = Vec::new();
    let mut taken: Vec<(String, &str)> = Vec::new();
    for (w, _) in inputs {
        let Some(asked) = w.prefix.as_deref().filter(|p| !p.is_empty()) else { continue };
        if let Some((_, other)) = taken.iter().find(|(p, _)| p == asked) {
            return Err(w.invalid("prefix", format!("`{asked}` is the prefix of {other} too: give each API its own")));
        }
        taken.push((asked.to_string(), &w.spec));
    }
    let mut out = Vec::with_capacity(inputs.len());
    for (w, p) in inputs {
        let prefix = match &w.prefix {
            Some(asked) => asked.clone(),
            None if !several => String::new(),
            None => {
                let base = crate::names::api_prefix(p.title());
                let stem = base.trim_end_matches('_');
                let free = (1..)
                    .map(|n| if n == 1 { base.clone() } else { format!("{stem}{n}_") })
                    .find(|c| !taken.iter().any(|(t, _)| t == c))
                    .unwrap_or_else(|| base.clone());
                if let Some((_, other)) = taken.iter().find(|(t, _)| *t == base) {
                    warnings.push(format!(
                        "{} and {other} would both have the prefix `{base}`: the tools of {} start with `{free}` \
                         (set `prefix` in a multi-API file to choose)",
                        w.spec, w.spec
                    ));
                }
                taken.push((free.clone(), &w.spec));
                free
            }
        };
        out.push(prefix);
    }
    Ok((out, warnings))
}

/// A runtime config with its entry's (or the command line's) options: filters, credentials for
/// tools that declare none, base URL, and its prefix on every tool name (shortened to stay
/// within the limit).
fn adjust(mut config: RuntimeConfig, w: &Wanted, prefix: &str) -> Result<RuntimeConfig> {
    let opts = &w.opts.tools;
    if !opts.filter.is_empty() {
        let before = config.tools.len();
        config.tools.retain(|t| opts.filter.keeps_tool(t));
        if config.tools.is_empty() {
            return Err(Error::NoTools {
                origin: w.spec.clone(),
                reason: format!("the filters exclude all {before} tools"),
                diagnostics: Vec::new(),
            });
        }
        if config.tools.len() < before {
            // What listing every tool costs was counted for the tools it had.
            config.context.tools_list_tokens = None;
        }
    }
    let default_security = crate::tools::security::add_cli_schemes(&mut config.security_schemes, &opts.auth);
    if !default_security.is_empty() {
        for http in config.tools.iter_mut().filter_map(|t| t.http.as_mut()).filter(|h| h.security.is_empty()) {
            http.security = vec![default_security.clone()];
        }
    }
    if let Some(url) = &opts.base_url {
        // As `--base-url` does when the config is served: every API's URL.
        config.upstream.base_url = Some(url.clone());
        for api in &mut config.apis {
            api.upstream.base_url = Some(url.clone());
        }
    }
    if !prefix.is_empty() {
        let room = opts.max_name_len.clamp(8, 128).saturating_sub(prefix.len()).max(8);
        use crate::tools::naming::{NameAllocator, Wanted};
        let wanted: Vec<Wanted> =
            config.tools.iter().map(|t| Wanted::new(t.name.as_str(), t.tags.first().map(String::as_str))).collect();
        let names = NameAllocator::new(room).allocate_all(&wanted);
        for (t, name) in config.tools.iter_mut().zip(names) {
            t.name = format!("{prefix}{name}");
        }
    }
    Ok(config)
}

/// The options that cannot apply to a runtime config's tools, which are made already (filters,
/// `--auth` and `--base-url` can, see [`adjust`]): an error naming the first one set, on the
/// command line (`cli`) or in the input's entry of a multi-API file. `prefixed`: its tool names
/// get a prefix, and are shortened to `--max-name-len` with it.
fn refuse_unusable(w: &Wanted, cli: &PipelineOptions, prefixed: bool) -> Result<()> {
    let defaults = crate::tools::ToolOptions::default();
    let (ours, theirs) = (&w.opts.tools, &cli.tools);
    if ours.env_prefix.is_some() {
        let why = "its credentials' env var names are in its `security_schemes`: edit them there";
        return Err(match &w.entry {
            Some(_) if ours.env_prefix != theirs.env_prefix => {
                w.invalid("env_prefix", format!("{why}, and leave `env_prefix` out"))
            }
            _ => unusable(&w.spec, "--env-prefix", why),
        });
    }
    let set = [
        (
            ours.output_schema != defaults.output_schema,
            "--output-schema",
            "output schemas are made from an API description's responses, which a config does not keep: set \
             `output_schema` on its tools",
        ),
        (
            ours.max_name_len != defaults.max_name_len && !prefixed,
            "--max-name-len",
            "its tool names are as written in it: edit them there",
        ),
        (
            ours.max_description_len != defaults.max_description_len,
            "--max-description-len",
            "its descriptions are as written in it: edit them there",
        ),
        (
            matches!(w.opts.routing, Routing::Forward(_)),
            "--forward-url",
            "its tools have their HTTP bindings already (`http`): edit them there",
        ),
        (
            matches!(w.opts.routing, Routing::Bindings(_)),
            "--bindings",
            "its tools have their HTTP bindings already (`http`): edit them there",
        ),
    ];
    match set.into_iter().find(|(on, _, _)| *on) {
        Some((_, flag, why)) => Err(unusable(&w.spec, flag, why)),
        None => Ok(()),
    }
}

/// A flag that a runtime config cannot take.
fn unusable(spec: &str, flag: &str, why: &str) -> Error {
    Error::Usage {
        message: format!(
            "{flag} cannot apply to {spec}, a runtime config whose tools are made already: {why}, or give the API \
             description it was made from instead of the config"
        ),
    }
}
