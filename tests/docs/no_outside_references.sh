#!/usr/bin/env bash
# Every file of the repository must make sense in a clean clone: it may not point at a path outside the
# repository (another checkout, a machine's home or work folder), and every document it cites must be in
# the repository, down to the section it names. A failure lists each offending line as FILE:LINE: text.
#
#   tests/docs/no_outside_references.sh [ROOT]    ROOT: the tree to check (default: this repository)
#
# The files are those git tracks; a tree without .git (an unpacked archive) is checked file by file.
set -euo pipefail

root="$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd -P)"
cd "$root"
self="tests/docs/no_outside_references.sh"

if git rev-parse --show-toplevel >/dev/null 2>&1 && [[ "$(git rev-parse --show-toplevel)" == "$root" ]]; then
  mapfile -t files < <(git ls-files)
else
  mapfile -t files < <(find . -type f -not -path './.git/*' -not -path './build*' -not -path './.state/*' |
                         sed 's|^\./||' | sort)
fi
# Text files only (grep -I), and not this script, whose patterns would match themselves.
# One grep lists them all (a grep a file would fork hundreds of times).
candidates=()
for file in "${files[@]}"; do
  [[ "$file" == "$self" || ! -f "$file" ]] || candidates+=("$file")
done
texts=()
((${#candidates[@]} == 0)) || mapfile -t texts < <(printf '%s\0' "${candidates[@]}" | xargs -0 grep -Il . -- 2>/dev/null || true)
((${#texts[@]} > 0)) || { echo "no files to check under $root" >&2; exit 1; }

failures=0
report() {  # report WHAT FILE:LINE:TEXT
  echo "$2" | cut -c1-220 | sed "s|^|$1: |" >&2
  failures=$((failures + 1))
}

# 1. Paths on some machine, or into a checkout beside this one. Examples the project makes itself use
#    /tmp, /etc, /opt, /usr or /var, which are not matched.
while IFS= read -r hit; do report "path outside the repository" "$hit"
done < <(grep -n -H -E '(^|[^[:alnum:]_.$}~-])/(work|home|root|Users)/|(\.\./)+shared/|(^|[^[:alnum:]_/.-])shared/[[:alnum:]_-]+\.md' "${texts[@]}" || true)

# 2. The design document is docs/DESIGN.md: a bare "DESIGN" or "DESIGN.md" makes the reader guess where.
while IFS= read -r hit; do
  text="${hit#*:*:}"
  stripped="${text//docs\/DESIGN.md/}"
  [[ "$stripped" =~ (^|[^[:alnum:]_])DESIGN([^[:alnum:]_]|$) ]] && report "design cited without its path docs/DESIGN.md" "$hit"
done < <(grep -n -H -w 'DESIGN' "${texts[@]}" || true)

# 3. Documents named by their path from the top of the repository (docs/X.md, bench/results/Y.md, ...)
#    must exist. A path after "/" or "$" is a variable's or a generated one (such as $dir/results.md).
folders='docs|bench|jobs|tests|src|include|configs|scripts|examples|cmake'
while IFS= read -r hit; do
  rest="${hit#*:}"; location="${hit%%:*}:${rest%%:*}"
  path="${hit#*:*:}"
  [[ "$path" =~ ([[:alnum:]_/.\$-]*)$ ]] && path="${BASH_REMATCH[1]}"
  [[ -e "$path" ]] || report "cites a file the repository does not have ($path)" "$location"
done < <(grep -n -H -o -E "(^|[^[:alnum:]_/.\$-])($folders)/[[:alnum:]_./-]*[[:alnum:]_-]\.md\b" "${texts[@]}" || true)

# 4. A section cited as docs/DESIGN.md, "Name" (or ("Name"), : "Name") must be a heading there.
design="docs/DESIGN.md"
declare -A headings
if [[ -f "$design" ]]; then
  while IFS= read -r heading; do
    [[ "$heading" =~ ^#{2,4}\ (.*)$ ]] && headings["${BASH_REMATCH[1]}"]=1
  done < <(grep -E '^#{2,4} ' "$design")
fi
while IFS= read -r hit; do
  rest="${hit#*:}"; location="${hit%%:*}:${rest%%:*}"
  [[ "${hit#*:*:}" =~ \"([^\"]+)\" ]] && section="${BASH_REMATCH[1]}"
  if [[ -z "${headings["$section"]+x}" ]]; then
    report "cites a section $design does not have (\"$section\")" "$location"
  fi
done < <(grep -n -H -o -E 'docs/DESIGN\.md[,:]?[[:space:]]*\(?"[^"]+"' "${texts[@]}" || true)

# 5. Relative links in Markdown ([text](target), ![alt](target)) must lead to a file inside the repository.
while IFS= read -r hit; do
  file="${hit%%:*}"
  target="$(sed -E 's/^.*\]\(([^) #]+).*$/\1/' <<<"${hit#*:*:}")"
  [[ "$target" =~ ^[a-z]+: || "$target" == /* ]] && continue
  resolved="$(realpath -m "$(dirname "$file")/$target")"
  if [[ "$resolved" != "$root"/* || ! -e "$resolved" ]]; then
    report "links to $target, which is not a file of the repository" "${hit%%:*}:$(cut -d: -f2 <<<"$hit")"
  fi
done < <(grep -n -H -o -E '\]\([^) #]+[^)]*\)' $(printf '%s\n' "${texts[@]}" | grep -E '\.md$') /dev/null || true)

if ((failures > 0)); then
  echo "$failures reference(s) outside the repository or to missing documents (checked ${#texts[@]} files)" >&2
  exit 1
fi
echo "checked ${#texts[@]} files: no references outside the repository, every cited document present"
