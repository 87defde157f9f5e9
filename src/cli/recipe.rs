//! `mcpgen generate` and a crate's `mcpgen.toml`: with no input named, the inputs and options
//! the crate was generated with are read from it ([`with_recipe`]); whatever the command line
//! gave is recorded back ([`recorded_options`]), so that the next run without arguments makes the
//! same crate.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap::parser::ValueSource;

use crate::generate::manifest;

/// The arguments `generate`'s own code handles, never recorded: the inputs, where the crate
/// goes, and whether to overwrite it.
const NOT_RECORDED: [&str; 4] = ["spec", "more", "output", "force"];

/// `args` (a `mcpgen generate ...` command line) with the recipe of the crate folder (`-o DIR`,
/// else the current directory) spliced in when it names no input: its inputs, its options, then
/// the command line's own (which win where an option takes one value), `--output DIR` and
/// `--force` (running in a crate regenerates it). Any other command line is returned as it is.
pub(super) fn with_recipe(args: Vec<OsString>) -> Result<Vec<OsString>, String> {
    if args.get(1).is_none_or(|a| a != "generate") {
        return Ok(args);
    }
    let command = super::Cli::command();
    let Some(generate) = command.find_subcommand("generate") else { return Ok(args) };
    let scan = scan(generate, &args[2..]);
    if scan.positionals > 0 || scan.help {
        return Ok(args);
    }
    let dir = scan.output.clone().unwrap_or_else(|| PathBuf::from("."));
    let recipe = match manifest::read(&dir) {
        Ok(Some(m)) => m.generate,
        Ok(None) => {
            return Err(format!(
                "`mcpgen generate` needs an input (an API description, a function list, a runtime config or a \
                 multi-API file), or to run in a generated crate's folder, whose {} says what it is made from \
                 (there is none in {})",
                manifest::FILE,
                dir.display()
            ));
        }
        Err(e) => return Err(e.to_string()),
    };
    let mut out: Vec<OsString> = args[..2].to_vec();
    for input in &recipe.inputs {
        let relative = crate::load::names_a_file(input) && Path::new(input).is_relative();
        out.push(if relative { dir.join(input).into_os_string() } else { input.into() });
    }
    out.extend(recipe.options.iter().map(OsString::from));
    out.extend(args[2..].iter().cloned());
    if scan.output.is_none() {
        out.extend(["--output".into(), dir.into_os_string()]);
    }
    if !scan.force {
        out.push("--force".into());
    }
    Ok(out)
}

/// What a command line's tokens hold, by `command`'s arguments.
#[derive(Default)]
struct Scan {
    positionals: usize,
    output: Option<PathBuf>,
    force: bool,
    help: bool,
}

fn scan(command: &clap::Command, tokens: &[OsString]) -> Scan {
    let mut s = Scan::default();
    let mut tokens = tokens.iter().map(|t| t.to_string_lossy().into_owned());
    while let Some(t) = tokens.next() {
        if t == "--" {
            s.positionals += tokens.count();
            break;
        }
        let (flag, inline) = match t.split_once('=') {
            Some((f, v)) if t.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (t.clone(), None),
        };
        let arg = if let Some(long) = flag.strip_prefix("--") {
            command.get_arguments().find(|a| a.get_long() == Some(long))
        } else if let Some(short) = flag.strip_prefix('-').filter(|s| !s.is_empty()) {
            let c = short.chars().next();
            command.get_arguments().find(|a| a.get_short() == c)
        } else {
            s.positionals += 1;
            continue;
        };
        let Some(arg) = arg else {
            s.help |= flag == "--help" || flag == "-h";
            continue;
        };
        let takes_value = arg.get_action().takes_values();
        // `-oDIR` carries its value in the token.
        let attached = flag.starts_with('-') && !flag.starts_with("--") && flag.len() > 2;
        let value = match (takes_value, inline, attached) {
            (false, _, _) => None,
            (true, Some(v), _) => Some(v),
            (true, None, true) => Some(flag[2..].to_string()),
            (true, None, false) => tokens.next(),
        };
        match arg.get_id().as_str() {
            "output" => s.output = value.map(PathBuf::from),
            "force" => s.force = true,
            _ => {}
        }
    }
    s
}

/// The options `matches` (of `generate`) got from the command line, as they go into
/// `[generate] options`: each as `--long VALUE` (a flag alone), in the command's order, file
/// paths made relative to the crate folder `dir`; `implied` gives values for arguments the
/// command line left out (by id), recorded in their place.
pub(super) fn recorded_options(matches: &clap::ArgMatches, dir: &Path, implied: &[(&str, String)]) -> Vec<String> {
    let command = super::Cli::command();
    let Some(generate) = command.find_subcommand("generate") else { return Vec::new() };
    let mut out = Vec::new();
    for arg in generate.get_arguments() {
        let id = arg.get_id().as_str();
        if arg.is_positional() || NOT_RECORDED.contains(&id) {
            continue;
        }
        let Some(long) = arg.get_long() else { continue };
        let flag = format!("--{long}");
        if matches.value_source(id) != Some(ValueSource::CommandLine) {
            if let Some((_, value)) = implied.iter().find(|(i, _)| *i == id) {
                out.extend([flag, value.clone()]);
            }
            continue;
        }
        if !arg.get_action().takes_values() {
            let times = match arg.get_action() {
                clap::ArgAction::Count => usize::from(matches.get_count(id)),
                _ => 1,
            };
            out.extend(std::iter::repeat_n(flag, times));
            continue;
        }
        let is_path = arg
            .get_value_names()
            .is_some_and(|names| names.iter().any(|n| ["FILE", "PATH", "DIR"].contains(&n.as_str())));
        for occurrence in matches.get_raw_occurrences(id).into_iter().flatten() {
            for value in occurrence {
                let value = value.to_string_lossy().into_owned();
                out.push(flag.clone());
                out.push(if is_path { super::generate::spec_from(dir, &value) } else { value });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn scans_flags_and_values() {
        let command = super::super::Cli::command();
        let generate = command.find_subcommand("generate").unwrap();
        let s = scan(generate, &os(&["--exclude-op", "a", "-ocrate", "--force", "--base-url=http://x"]));
        assert_eq!((s.positionals, s.output.as_deref(), s.force), (0, Some(Path::new("crate")), true));
        let s = scan(generate, &os(&["spec.yaml", "--name", "x", "more.yaml"]));
        assert_eq!(s.positionals, 2);
    }

    #[test]
    fn a_crate_folders_recipe_is_spliced_in() {
        let dir = tempfile::tempdir().unwrap();
        let krate = dir.path().join("c");
        std::fs::create_dir(&krate).unwrap();
        let recipe = manifest::Recipe {
            inputs: vec!["../api.yaml".into(), "https://example.com/b.json".into()],
            options: vec!["--name".into(), "c-mcp".into()],
        };
        std::fs::write(krate.join(manifest::FILE), manifest::new_text(&recipe)).unwrap();
        let o = krate.display().to_string();
        let got = with_recipe(os(&["mcpgen", "generate", "-o", &o, "--exclude-op", "x"])).unwrap();
        let want = os(&[
            "mcpgen",
            "generate",
            &format!("{o}/../api.yaml"),
            "https://example.com/b.json",
            "--name",
            "c-mcp",
            "-o",
            &o,
            "--exclude-op",
            "x",
            "--force",
        ]);
        assert_eq!(got, want);
        let e = with_recipe(os(&["mcpgen", "generate", "-o", dir.path().to_str().unwrap()])).unwrap_err();
        assert!(e.contains("needs an input") && e.contains("mcpgen.toml"), "{e}");
        let given = os(&["mcpgen", "generate", "other.yaml", "-o", &o]);
        assert_eq!(with_recipe(given.clone()).unwrap(), given, "an input named: the command line as it is");
        std::fs::write(krate.join(manifest::FILE), "[generate]\n").unwrap();
        let e = with_recipe(os(&["mcpgen", "generate", "-o", &o])).unwrap_err();
        assert!(e.contains("missing field `inputs`"), "{e}");
    }
}
