# shellcheck shell=bash disable=SC2034  # (the globals set here are for the sourcing scripts)
# Sourced by the bench scripts that measure (in place of lib/common.sh, which it brings in): one measured run of
# a command, with what every process involved spent on it.
#
#   measure_setup                  finds the MariaDB and Redis server pids (exits 2 when either is unknown)
#   measure NAME ROWS COMMAND...   runs COMMAND once; stdin from $run_stdin, stdout to $run_stdout
#                                  (both /dev/null unless set), and appends one line to
#                                  $private_dir/NAME.times:
#
#     wall_s peak_rss_kb client_cpu_s mariadb_cpu_s redis_cpu_s floor_s rows
#
# wall is taken around the command with a nanosecond clock (GNU time's %e has centiseconds, too coarse for a
# small run); the client's user+sys CPU and peak RSS come from GNU time, and they cover the command and the
# children it waited for; each server's CPU is utime + stime of its /proc/PID/stat, every thread, read before
# and after ($redis_pid may list several pids, space-separated: a cluster's nodes, summed). floor = (client +
# MariaDB + Redis CPU) / cores: no run can finish sooner on this machine, even
# with perfect parallelism. The servers' counters also count what other sessions made them do meanwhile.

# shellcheck source=bench/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

measure_setup() {
  time_bin=/usr/bin/time
  [[ -x "$time_bin" ]] || { log "$time_bin is missing: install the Debian package time (scripts/setup.sh --bench)"; exit 2; }
  mariadb_pid="$(server_pid mariadb)"
  redis_pid="$(server_pid redis)"
  if [[ -z "$mariadb_pid" || -z "$redis_pid" ]]; then
    log "the pid of the local ${mariadb_pid:+Redis}${mariadb_pid:-MariaDB} server is not known, so its CPU cannot be read:"
    log "set BENCH_MARIADB_PID and BENCH_REDIS_PID (or ROWPUMP_STATE_DIR, where scripts/services.sh keeps them)"
    exit 2
  fi
  clock_ticks="$(getconf CLK_TCK)"
  cores="$(nproc)"
  run_stdin=/dev/null
  run_stdout=/dev/null
}

measure() {
  local name="$1" rows="$2" mariadb_before redis_before mariadb_after redis_after started ended rss user sys
  shift 2
  mariadb_before="$(cpu_ticks "$mariadb_pid")"
  # shellcheck disable=SC2086  # $redis_pid may name several servers (a cluster's nodes): split, summed
  redis_before="$(cpu_ticks $redis_pid)"
  started="$(date +%s.%N)"
  if ! "$time_bin" -o "$private_dir/time" -f '%M %U %S' "$@" <"$run_stdin" >"$run_stdout" 2>"$private_dir/stderr"; then
    log "$name failed:"
    sed 's/^/  /' "$private_dir/stderr" >&2
    exit 1
  fi
  ended="$(date +%s.%N)"
  mariadb_after="$(cpu_ticks "$mariadb_pid")"
  # shellcheck disable=SC2086
  redis_after="$(cpu_ticks $redis_pid)"
  read -r rss user sys <"$private_dir/time"
  awk -v a="$started" -v b="$ended" -v rss="$rss" -v u="$user" -v s="$sys" -v hz="$clock_ticks" -v n="$rows" \
      -v m="$((mariadb_after - mariadb_before))" -v r="$((redis_after - redis_before))" -v cores="$cores" \
      'BEGIN { c = u + s; printf "%.3f %d %.2f %.2f %.2f %.3f %d\n", b - a, rss, c, m / hz, r / hz, (c + m / hz + r / hz) / cores, n }' \
      >>"$private_dir/$name.times"
}

# rotating_rounds LABEL WARM_UP RUNNER NAME...: a warm-up run of each NAME (WARM_UP NAME; not counted: its
# times are dropped), then $runs rounds of RUNNER NAME, the order rotating each round, a log line a round with
# each NAME's last_run. A LABEL that is not empty starts those log lines. Sets $uptime_after, the load as
# the last round ended.
rotating_rounds() {
  local label="$1" warm_up="$2" runner="$3" round i name line
  shift 3
  local names=("$@")
  log "${label:+$label: }warm-up run of $*"
  for name in "${names[@]}"; do "$warm_up" "$name"; rm -f "$private_dir/$name.times"; done
  # shellcheck disable=SC2154  # runs: the sourcing script's BENCH_RUNS
  for ((round = 0; round < runs; ++round)); do
    line="${label:+$label }round $((round + 1)):"
    for ((i = 0; i < ${#names[@]}; ++i)); do
      name="${names[(round + i) % ${#names[@]}]}"
      "$runner" "$name"
      line+=" $name $(last_run "$name");"
    done
    log "${line%;}"
  done
  uptime_after="$(uptime_line)"
}

# last_wall NAME: the wall time of NAME's latest run.
last_wall() { tail -n1 "$private_dir/$1.times" | cut -d' ' -f1; }
# last_run NAME: NAME's latest run for a progress line: its wall and the CPU of each process, so that the
# spread of the CPU figures shows in the log as well as their medians in the results.
last_run() {
  tail -n1 "$private_dir/$1.times" | awk '{ printf "%s s (CPU: client %s, MariaDB %s, Redis %s)", $1, $3, $4, $5 }'
}

# The figures of NAME's runs for a results table: median_of NAME COLUMN, column_max NAME COLUMN, rows_per_s
# NAME (over the median wall; $rows rows a run unless NAME's lines say otherwise).
median_of() { column_median "$1" "$2"; }
column_max() { cut -d' ' -f"$2" "$private_dir/$1.times" | sort -n | tail -n1; }
rows_of() { head -n1 "$private_dir/$1.times" | cut -d' ' -f7; }
rows_per_s() { awk -v n="$(rows_of "$1")" -v w="$(median_of "$1" 1)" 'BEGIN { printf "%.0f", n / w }'; }

# ratio_verdict A B GOAL: $ratio, the median rows/s of A over B's (two decimals), and $verdict, "met" when
# it is at least GOAL, else "**not met**".
ratio_verdict() {
  ratio="$(awk -v a="$(rows_per_s "$1")" -v b="$(rows_per_s "$2")" 'BEGIN { printf "%.2f", a / b }')"
  verdict="met"
  awk -v s="$ratio" -v g="$3" 'BEGIN { exit !(s >= g) }' || verdict="**not met**"
}

# measured_row LABEL NAME: one row of the usual table, | label | rows | wall s | rows/s | client, MariaDB,
# Redis CPU s | floor s | peak RSS MB | every run's wall |.
measured_row() {
  awk -v l="$1" -v n="$(rows_of "$2")" -v w="$(median_of "$2" 1)" -v c="$(median_of "$2" 3)" \
      -v m="$(median_of "$2" 4)" -v r="$(median_of "$2" 5)" -v f="$(median_of "$2" 6)" \
      -v rss="$(column_max "$2" 2)" -v runs="$(joined "$private_dir/$2.times")" \
      'BEGIN { printf "| %s | %d | %.3f | %.0f | %.2f | %.2f | %.2f | %.3f | %.0f | %s |\n", l, n, w, n / w, c, m, r, f, rss / 1024, runs }'
}

# The first lines of a results file: when, which build, on what. `servers_line` ends without punctuation.
build_line() {
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $("$rowpump_bin" --version 2>/dev/null || echo rowpump), repository at $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?');"
}
servers_line() {
  echo -n "$(uname -sr), $cores cores; MariaDB $(sql 'SELECT VERSION()'), Redis $(redis INFO server | tr -d '\r' | sed -n 's/^redis_version://p')"
}
