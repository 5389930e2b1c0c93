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

# One line a layer; "." is the files directly in src/ (errors, logs, URLs, retries). The queue backends are
# folders of src/backend/, each its own folder here: "backend" is their interface (the files directly in
# src/backend/), the backends sit above it and beside each other (none includes another), and the registry,
# which alone knows them all, above them.
# backend/redis_cluster is a layer of its own above backend/redis: the cluster runs the Redis backend's push
# plan, key names and job store on the node that owns a queue's slot (docs/DESIGN.md, "Redis Cluster").
# backend/redis_streams sits beside it: a stream reuses the Redis backend's target, connection options,
# consumers' options and job store (over its own page writer).
# config/ is the options' schema, which every layer's errors name options by. crypto/ (hashes, a constant-time
# compare) sits beside it, below http/, whose POST guard compares tokens with it.
layers=(
  "."
  "config crypto"
  "mysql redis http metrics process"
  "table encode route"
  "paging"
  "partition queue"
  "checkpoint cursor"
  "backend"
  "backend/file backend/redis backend/mysql_queue"
  "backend/redis_cluster backend/redis_streams"
  "backend/registry"
  "throttle"
  "run enqueue"
  "job consume handler"
  "cli"
)
# Known arrows that run the wrong way, each to be removed (and then from here), FILE -> FOLDER:
known=()

declare -A rank
for i in "${!layers[@]}"; do
  for folder in ${layers[$i]}; do rank[$folder]=$i; done
done

# The folder a path of src/ counts as: its first component, or its first two under backend/. Sets $folder
# (no subshell: the check reads every include of the tree, and a fork each would take most of its time).
folder_of() {
  local dir="$1" first rest
  first="${dir%%/*}"
  if [[ "$first" == backend && "$dir" == backend/* ]]; then
    rest="${dir#backend/}"
    folder="backend/${rest%%/*}"
  else
    folder="$first"
  fi
}

# The folder a file path is in ("." for a file directly in it), as dirname says.
dir_of() { if [[ "$1" == */* ]]; then dir="${1%/*}"; else dir="."; fi; }

include_pattern='^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)"'
failures=0
while IFS= read -r hit; do
  file="${hit%%:*}"
  rest="${hit#*:}"
  line="${rest%%:*}"
  text="${rest#*:}"
  [[ "$text" =~ $include_pattern ]] || continue
  target="${BASH_REMATCH[1]}"
  [[ "$target" == rowpump/* ]] && continue
  dir_of "$target"; folder_of "$dir"; to="$folder"
  dir_of "${file#src/}"; folder_of "$dir"; from="$folder"
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
echo "folder layers: every include of src/ runs to its own folder or a lower layer (known exceptions: ${#known[@]})"
