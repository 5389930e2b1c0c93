#!/usr/bin/env bash
# examples/cursor_http.cpp driven by curl: the first page, the next, the previous, a jump to page 5
# (exact, and approximate from the bookmarks the example placed at startup), and a refused token: a token
# with one character changed, and nonsense, get a 400 with the reason and no page.
#
#   tests/install/cursor_example_http.sh EXAMPLES_DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cursor_example_env.sh" "$1"

status=""
# GET /items?QUERY into $work/body; the HTTP status into $status.
get() { status="$(curl -sS -o "$work/body" -w '%{http_code}' "$base_url/items?$1")"; }
ids() { jq -r '.items[].id' "$work/body"; }
field() { jq -r "$1" "$work/body"; }
check() {  # check LABEL EXPECTED ACTUAL
  if [[ "$2" != "$3" ]]; then
    echo "$1: expected [$2], got [$3]; body: $(head -c 400 "$work/body")" >&2
    exit 1
  fi
}

get "first=20"
check "first page status" 200 "$status"
check "first page rows" "$(expected_ids 1 20)" "$(ids)"
check "first page info" "true false 1 keyset" "$(field '"\(.pageInfo.hasNextPage) \(.pageInfo.hasPreviousPage) \(.pageNumber) \(.method)"')"
end_cursor="$(field .pageInfo.endCursor)"

get "first=20&after=$end_cursor"
check "next page rows" "$(expected_ids 21 40)" "$(ids)"
check "next page info" "true true 2" "$(field '"\(.pageInfo.hasNextPage) \(.pageInfo.hasPreviousPage) \(.pageNumber)"')"
check "next page links" "1 3 4 5 6" "$(field '[.links[].page | tostring] | join(" ")')"
start_cursor="$(field .pageInfo.startCursor)"

get "last=20&before=$start_cursor"
check "previous page rows" "$(expected_ids 1 20)" "$(ids)"
check "previous page info" "true false 1" "$(field '"\(.pageInfo.hasNextPage) \(.pageInfo.hasPreviousPage) \(.pageNumber)"')"

get "first=20&page=5"
check "exact jump rows" "$(expected_ids 81 100)" "$(ids)"
check "exact jump info" "5 exact" "$(field '"\(.pageNumber) \(.method)"')"
# 200 rows are one bookmark's span: the approximate jump walks from the list's start, exactly.
get "first=20&page=5&approximate=1"
check "approximate jump rows" "$(expected_ids 81 100)" "$(ids)"
check "approximate jump info" "5 approximate" "$(field '"\(.pageNumber) \(.method)"')"
# The example placed the jumps' bookmarks at startup: the first jump did not pay for them.
[[ "$(field .how)" == *"bookmarks placed earlier by this Cursor"* ]] ||
  check "approximate jump's bookmarks" "...placed earlier by this Cursor..." "$(field .how)"

get "first=20&page=10"
check "last page by jump" "$(expected_ids 181 200)" "$(ids)"
check "last page has no next" false "$(field .pageInfo.hasNextPage)"

# One character of the signature changed: refused as altered, with no page in the answer.
at=$((${#end_cursor} - 5))
original="${end_cursor:$at:1}"
replacement=A
[[ "$original" == A ]] && replacement=B
tampered="${end_cursor:0:$at}$replacement${end_cursor:$((at + 1))}"
get "first=20&after=$tampered"
check "altered token status" 400 "$status"
check "altered token answer" "the cursor was altered (its signature does not match) null" "$(field '"\(.error) \(.items)"')"
get "first=20&after=not-a-token"
check "nonsense token status" 400 "$status"
[[ "$(field .error)" == *"not a rowpump token"* ]] || check "nonsense token message" "...not a rowpump token..." "$(field .error)"
get "first=abc"
check "bad size status" 400 "$status"
check "bad size message" "first must be a whole number from 1, not 'abc'" "$(field .error)"
get "first=20&before=$end_cursor"
check "before with first" 400 "$status"
echo "cursor_http: first, next, previous, exact and approximate jumps served; altered and nonsense tokens and bad sizes refused with 400"
