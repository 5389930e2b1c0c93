#!/usr/bin/env bash
# The folders of src/ in layers, lowest first, written once here: a file may include its own folder, the
# public headers, and folders of lower layers only. An include that runs sideways (another folder of the
# same layer) or back up fails, listed as FILE:LINE: text, so that a cycle such as throttle/ <-> run/
# (the rate limiter lived in run/) cannot come back.
#
#   tests/docs/folder_layers.sh [ROOT]    ROOT: the tree to check (default: this repository)
set -euo pipefail

root="$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd -P)"
cd "$root"

# One line a layer; "." is the files directly in src/ (errors, logs, URLs, retries); config/ is the options'
# schema, which every layer's errors name options by.
layers=(
  "."
  "config"
  "mysql redis http metrics"
  "table encode route"
  "paging"
  "partition queue"
  "sink"
  "checkpoint"
  "throttle"
  "run enqueue"
  "job"
  "cli"
)
# Known arrows that run the wrong way, each to be removed (and then from here), FILE -> FOLDER:
known=(
  "src/error.cpp -> mysql"  # DbError::is_transient reads the MySQL wall's code table
)

declare -A rank
for i in "${!layers[@]}"; do
  for folder in ${layers[$i]}; do rank[$folder]=$i; done
done

failures=0
while IFS= read -r hit; do
  file="${hit%%:*}"
  rest="${hit#*:}"
  line="${rest%%:*}"
  text="${rest#*:}"
  target="$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/' <<<"$text")"
  [[ "$target" == rowpump/* ]] && continue
  to="."
  [[ "$target" == */* ]] && to="${target%%/*}"
  from="$(dirname "${file#src/}")"
  from="${from%%/*}"
  [[ "$from" == "$to" ]] && continue
  if [[ -z "${rank[$from]+x}" || -z "${rank[$to]+x}" ]]; then
    echo "$file:$line: $text   (src/$from or src/$to has no layer: add it to tests/docs/folder_layers.sh)"
    failures=$((failures + 1))
    continue
  fi
  (( rank[$to] < rank[$from] )) && continue
  for allowed in "${known[@]}"; do [[ "$allowed" == "$file -> $to" ]] && continue 2; done
  echo "$file:$line: $text   (src/$from may include only lower layers; src/$to is not lower)"
  failures=$((failures + 1))
done < <(grep -rnE --include='*.cpp' --include='*.hpp' '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' src)

if (( failures > 0 )); then
  echo "$failures include(s) run against the layers above" >&2
  exit 1
fi
echo "folder layers: every include of src/ runs to its own folder or a lower layer (${#known[@]} known exception)"
