"""Celery's side of bench/consumer_vs_peers.sh: a task that does nothing. The worker counts its tasks in
memory and, at the BENCH_TASKS-th, sets the Redis key BENCH_DONE_KEY once: no Redis call per task beyond
Celery's own. With BENCH_COUNT=redis (the prefork pool, whose child processes share no memory) each task
counts itself with one INCR of BENCH_DONE_KEY:count instead: one Redis round trip per task more."""
import os
import threading

import redis
from celery import Celery

app = Celery("noop_celery_tasks", broker=os.environ["BENCH_BROKER"])
app.conf.accept_content = ["json"]
app.conf.worker_enable_remote_control = False

_lock = threading.Lock()
_count = 0


_redis = None


def _counted_in_redis():
    global _redis
    if _redis is None:
        _redis = redis.Redis.from_url(os.environ["BENCH_BROKER"])
    return _redis.incr(os.environ["BENCH_DONE_KEY"] + ":count") == int(os.environ["BENCH_TASKS"])


@app.task(name="rowpump_bench.noop", ignore_result=True)
def noop(*args, **kwargs):
    global _count
    if os.environ.get("BENCH_COUNT") == "redis":
        if _counted_in_redis():
            _redis.set(os.environ["BENCH_DONE_KEY"], "1")
        return
    with _lock:
        _count += 1
        finished = _count == int(os.environ["BENCH_TASKS"])
    if finished:
        redis.Redis.from_url(os.environ["BENCH_BROKER"]).set(os.environ["BENCH_DONE_KEY"], "1")
