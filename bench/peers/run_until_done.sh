#!/usr/bin/env bash
# bench/consumer_vs_peers.sh's wrapper for a worker that runs until it is stopped (Sidekiq, Celery):
# starts COMMAND, waits until the Redis key $BENCH_DONE_KEY exists (the worker sets it at its last task),
# then stops the worker with SIGTERM and waits for it, so GNU time around this script counts its CPU.
#
#   run_until_done.sh REDIS_CLI_ARGS -- COMMAND...
set -euo pipefail
cli=()
while [[ "$1" != -- ]]; do cli+=("$1"); shift; done
shift
"$@" >/dev/null 2>&1 &
worker=$!
limit=$((SECONDS + ${BENCH_TIMEOUT:-600}))
until [[ "$(redis-cli "${cli[@]}" EXISTS "$BENCH_DONE_KEY")" == 1 ]]; do
  kill -0 "$worker" 2>/dev/null || { echo "run_until_done.sh: the worker ended before its last task" >&2; exit 1; }
  ((SECONDS < limit)) || { kill -KILL "$worker"; echo "run_until_done.sh: not done within ${BENCH_TIMEOUT:-600} s" >&2; exit 1; }
  sleep 0.01
done
kill -TERM "$worker"
wait "$worker" || true
