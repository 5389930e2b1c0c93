#!/usr/bin/env bash
# The URLs that `scripts/services.sh env` exports carry no password: every documented command passes them
# on its command line, where each local user can read them (and rowpump would warn every time). The
# password travels in ROWPUMP_MYSQL_PASSWORD instead.
set -euo pipefail
root="$1"
env_lines="$(ROWPUMP_STATE_DIR="$(mktemp -d)" bash "$root/scripts/services.sh" env)"
if grep -E '^export ROWPUMP_[A-Z_]*URL=[a-z+]+://[^@/]*:[^@/]*@' <<<"$env_lines"; then
  echo "services.sh env exports a URL with a password in it (above)" >&2
  exit 1
fi
grep -q '^export ROWPUMP_MYSQL_PASSWORD=' <<<"$env_lines" || { echo "services.sh env exports no ROWPUMP_MYSQL_PASSWORD" >&2; exit 1; }
echo "services.sh env: no URL holds a password; ROWPUMP_MYSQL_PASSWORD carries it"
