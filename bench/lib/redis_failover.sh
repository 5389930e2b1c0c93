# shellcheck shell=bash disable=SC2034,SC2154  # (globals shared with bench/redis_setups.sh)
# Sourced by bench/redis_setups.sh: its failover section. One `rowpump backfill --job-id` through the
# Sentinel URL; the master is SIGKILLed once a third of the rows are in, and its replica is polled every
# 50 ms (ROLE and LLEN in one round trip) until, promoted, it holds more rows than it had as a replica: the
# pause is the seconds from the kill to then. The job must end with every row once (a run that ends
# non-zero, the retry budget spent before the sentinels had a master, is resumed once, and says so). Then
# the setup is put back as scripts/services.sh keeps it: the killed server started again from its own
# config file and made the new master's replica (what the sentinels would tell it within their 10 s INFO
# period), until the master's replica is in step and every sentinel lists it as a healthy replica.

failover_backfill() {
  "$rowpump_bin" backfill --mysql "$mysql_sink" --table "$table" --page-size "$page_size" --workers "$workers" \
    --sink "$ROWPUMP_REDIS_SENTINEL_URL" --queue "$queue" --job-id "$job_id" --lease-timeout 5
}

# The sentinels' flags for the replica at PORT, one line per sentinel ("slave" when all is well).
replica_flags() {
  local address
  for address in ${sentinel_addresses//,/ }; do
    rcli "${address%:*}" "${address##*:}" SENTINEL replicas "$sentinel_name" 2>/dev/null |
      awk -v p="$1" 'key == "port" { port = $0 } key == "flags" && port == p { print; found = 1 }
                     { key = (NR % 2) ? $0 : "" } END { if (!found) print "missing" }'
  done
}

# Puts the setup back (60 s at most): the killed server started again from its own config file unless it
# answers (something else may have restarted it), and made the replica of whichever server the sentinels
# now call the master (what they would tell it within their 10 s INFO period); when they still name the
# killed server (no failover happened), the other server is made its replica instead. Then waits until the
# master's replica is in step and every sentinel lists the replica as healthy.
failover_restore() {
  local started=$SECONDS master_host master_port replica_host replica_port
  failover_needs_restore=0
  if ! rcli "$failover_old_host" "$failover_old_port" PING >/dev/null 2>&1; then
    log "restoring: redis-server $failover_config"
    start_detached "$failover_config" || { log "redis-server $failover_config failed to start"; exit 1; }
  fi
  read -r master_host master_port < <(sentinel_master)
  if [[ "$master_port" == "$failover_old_port" ]]; then
    replica_host="$failover_new_host" replica_port="$failover_new_port"
  else
    replica_host="$failover_old_host" replica_port="$failover_old_port"
  fi
  # No failover: the killed server, back, is still the master (a replica set loose would point at it anyway).
  until [[ "$master_port" != "$failover_old_port" ]] || rcli "$master_host" "$master_port" REPLICAOF NO ONE >/dev/null 2>&1; do
    ((SECONDS - started < 10)) || { log "$master_host:$master_port did not come back"; exit 1; }
    sleep 0.2
  done
  log "restoring: $replica_host:$replica_port REPLICAOF $master_host $master_port (the sentinels' master)"
  until rcli "$replica_host" "$replica_port" REPLICAOF "$master_host" "$master_port" >/dev/null 2>&1; do
    ((SECONDS - started < 10)) || { log "$replica_host:$replica_port did not come back"; exit 1; }
    sleep 0.2
  done
  synced_replica "$master_host" "$master_port" || exit 1
  until [[ "$(replica_flags "$replica_port" | sort -u)" == slave ]]; do
    ((SECONDS - started < 60)) ||
      { log "the sentinels do not all list $replica_port as a healthy replica: $(replica_flags "$replica_port" | paste -sd,)"; exit 1; }
    sleep 0.5
  done
  failover_restored_s=$((SECONDS - started))
  log "restored in $failover_restored_s s: master $master_host:$master_port, replica $replica_host:$replica_port"
}

# Polls the replica until it is the master and holds more rows than as a replica; sets failover_first.
wait_for_first_page() {
  local answer role length base=-1 deadline
  deadline="$(awk -v k="$failover_killed" 'BEGIN { printf "%.3f", k + 90 }')"
  while :; do
    answer="$(printf 'ROLE\nLLEN %s\n' "$queue" | rcli "$failover_new_host" "$failover_new_port" 2>/dev/null || true)"
    role="$(head -n1 <<<"$answer")"
    length="$(tail -n1 <<<"$answer")"
    failover_first="$(date +%s.%N)"
    if [[ "$role" == slave ]]; then
      base="$length"
    elif [[ "$role" == master && "$length" =~ ^[0-9]+$ ]] && ((base >= 0 && length > base)); then
      failover_base="$base"
      return 0
    fi
    awk -v n="$failover_first" -v d="$deadline" 'BEGIN { exit !(n > d) }' &&
      { log "no new row on $failover_new_host:$failover_new_port within 90 s of the kill (the sentinels' master: $(sentinel_master))"; exit 1; }
    sleep 0.05
  done
}

failover_run() {
  failover_ran=0
  # A ctest process, not a `flock LOCK ctest` queued for the build lock this script should run under.
  if pgrep -x ctest >/dev/null; then
    log "a ctest runs: the failover section would kill the Sentinel master its tests use; skipped"
    return 0
  fi
  local master info job length third=$((rows / 3)) ended distinct
  read -r failover_old_host failover_old_port < <(sentinel_master)
  read -r failover_new_host failover_new_port < <(replica_of "$failover_old_host" "$failover_old_port")
  [[ -n "${failover_new_port:-}" ]] || { log "the Sentinel master has no replica online"; exit 1; }
  synced_replica "$failover_old_host" "$failover_old_port" || exit 1
  info="$(rcli "$failover_old_host" "$failover_old_port" INFO server | tr -d '\r')"
  failover_pid="$(sed -n 's/^process_id://p' <<<"$info")"
  failover_config="$(sed -n 's/^config_file://p' <<<"$info")"
  [[ "$(cat "/proc/$failover_pid/comm" 2>/dev/null)" == redis-server && -n "$failover_config" ]] ||
    { log "the master's pid ($failover_pid) or config file ($failover_config) is not usable"; exit 1; }
  rcli "$failover_old_host" "$failover_old_port" DEL "$queue" >/dev/null
  log "failover: master $failover_old_host:$failover_old_port (pid $failover_pid), replica $failover_new_host:$failover_new_port"
  failover_started="$(date +%s.%N)"
  failover_backfill >"$private_dir/failover.out" 2>"$private_dir/failover.err" &
  job=$!
  failover_job=$job
  length=0
  while ((length < third)); do
    kill -0 "$job" 2>/dev/null || { log "the job ended before a third of the rows were in; try more rows"; exit 1; }
    sleep 0.05
    length="$(rcli "$failover_old_host" "$failover_old_port" LLEN "$queue")"
  done
  kill -KILL "$failover_pid"
  failover_killed="$(date +%s.%N)"
  failover_killed_at="$length"
  failover_needs_restore=1  # from here on, the script's exit puts the setup back whatever happens
  log "killed the master at $length rows"
  wait_for_first_page
  failover_rc=0
  wait "$job" || failover_rc=$?
  failover_job=""
  failover_resumed=0
  if ((failover_rc != 0)); then
    log "the job ended with $failover_rc: $(tail -n1 "$private_dir/failover.err"); resuming it once"
    failover_resumed=1
    failover_backfill >"$private_dir/failover.out" 2>"$private_dir/failover.err2" ||
      { log "the resumed job failed too:"; sed 's/^/  /' "$private_dir/failover.err2" >&2; exit 1; }
  fi
  ended="$(date +%s.%N)"
  failover_pause="$(awk -v a="$failover_killed" -v b="$failover_first" 'BEGIN { printf "%.2f", b - a }')"
  failover_wall="$(awk -v a="$failover_started" -v b="$ended" 'BEGIN { printf "%.2f", b - a }')"
  failover_summary="$(cat "$private_dir/failover.err" "$private_dir/failover.err2" 2>/dev/null | grep '^rowpump: done' | tail -n1 |
    sed 's/^rowpump: //' || true)"
  length="$(rcli "$failover_new_host" "$failover_new_port" LLEN "$queue")"
  distinct="$(distinct_ids rcli "$failover_new_host" "$failover_new_port" -- "$queue")"
  log "pause $failover_pause s, job $failover_wall s; $length rows, $distinct distinct ids"
  [[ "$length" == "$rows" && "$distinct" == "$rows" ]] ||
    { log "the failover run left $length rows ($distinct distinct ids) on the new master, expected $rows"; exit 1; }
  failover_clean
  failover_restore
  failover_ran=1
}

# Removes the run's queue and job state from the new master (also at the script's exit).
failover_clean() {
  [[ -n "${failover_new_port:-}" ]] || return 0
  rcli "$failover_new_host" "$failover_new_port" DEL "$queue" >/dev/null 2>&1 || true
  delete_keys rcli "$failover_new_host" "$failover_new_port" -- "rowpump:job:$job_id:*" 2>/dev/null || true
}
