#!/usr/bin/env bash
# examples/cursor_http.cpp's page in headless Chromium: Next, Previous, page links and a jump, each
# checked against the list's ids (tests/browser/cursor_example_webdriver.py drives chromedriver).
#
#   tests/install/cursor_example_browser.sh EXAMPLES_DIR
set -euo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
for program in /usr/bin/chromium /usr/bin/chromedriver; do
  [[ -x "$program" ]] || { echo "$program is missing (scripts/setup.sh installs chromium and chromium-driver)" >&2; exit 1; }
done
source "$here/cursor_example_env.sh" "$1"
# Debian's python3 (scripts/setup.sh), not a version manager's shim earlier on PATH (half a second a start).
/usr/bin/python3 "$here/../browser/cursor_example_webdriver.py" "$base_url" "$work/expected"
