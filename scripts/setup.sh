#!/usr/bin/env bash
# Installs the Debian packages that rowpump needs to build, test and run its local servers.
# Idempotent: installs only what is missing, and refreshes the package lists only then. Then the npm
# packages of the BullMQ worker and bench peer (tests/workers/bullmq, pinned in its package-lock.json) with
# `npm ci`, only when they are missing or the lock file changed since.
#
#   scripts/setup.sh            build, test and server packages
#   scripts/setup.sh --bench    also the peers the benchmarks compare against (or ROWPUMP_SETUP_BENCH=1)
#
# Runs as root, or through sudo otherwise.
set -euo pipefail

packages=(
  build-essential cmake pkg-config g++
  libmysqlcppconn-dev libmariadb-dev libtbb-dev libcli11-dev libyaml-cpp-dev libhiredis-dev
  libgtest-dev libgmock-dev libbenchmark-dev rapidjson-dev libspdlog-dev libfmt-dev
  mariadb-server mariadb-client redis-server redis-tools
  sysbench procps
  ruby-sidekiq ruby-activejob celery python3-celery python3-redis python3-yaml
  openssl
  php-cli php-redis php-mysql
  prometheus
  libcpp-httplib-dev chromium chromium-driver
)
bench_packages=(mydumper gnuplot-nox hyperfine time ruby-mysql2)
# Node for the BullMQ worker (tests/workers/bullmq): Debian's, unless a node is already installed.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

with_bench="${ROWPUMP_SETUP_BENCH:-0}"
for arg in "$@"; do
  case "$arg" in
    --bench) with_bench=1 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: unknown argument: $arg (expected --bench)" >&2; exit 2 ;;
  esac
done
if [[ "$with_bench" == 1 ]]; then
  packages+=("${bench_packages[@]}")
fi

missing=()
for package in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$package")
  fi
done

# npm ci of tests/workers/bullmq when node_modules is missing or was installed from another lock file.
install_node_packages() {
  local dir stamp lock_sum
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/workers/bullmq"
  stamp="$dir/node_modules/.rowpump-lock.sha256"
  lock_sum="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$lock_sum" ]]; then
    echo "setup.sh: the npm packages of tests/workers/bullmq are installed"
    return
  fi
  echo "setup.sh: npm ci in tests/workers/bullmq"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$lock_sum" >"$stamp"
}

if (( ${#missing[@]} == 0 )); then
  echo "setup.sh: all ${#packages[@]} packages are installed"
  install_node_packages
  exit 0
fi

as_root=()
if (( EUID != 0 )); then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup.sh: missing packages: ${missing[*]}; run as root or install sudo" >&2
    exit 1
  fi
  as_root=(sudo)
fi

# rowpump runs its own private MariaDB and Redis (scripts/services.sh); keep the packages' install
# scripts from starting the system-wide servers, unless the machine already has a policy of its own.
policy=/usr/sbin/policy-rc.d
if [[ ! -e "$policy" ]]; then
  printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null
  "${as_root[@]}" chmod 755 "$policy"
  trap '"${as_root[@]}" rm -f "$policy"' EXIT
fi

echo "setup.sh: installing ${missing[*]}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${missing[@]}"
install_node_packages
