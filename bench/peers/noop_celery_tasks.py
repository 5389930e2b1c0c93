"""Celery's side of bench/consumer_vs_peers.sh: a task that does nothing. The worker counts its tasks in
memory and, at the BENCH_TASKS-th, sets the Redis key BENCH_DONE_KEY once: no Redis call per task beyond
Celery's own."""
import os
import threading

import redis
from celery import Celery

app = Celery("noop_celery_tasks", broker=os.environ["BENCH_BROKER"])
app.conf.accept_content = ["json"]
app.conf.worker_enable_remote_control = False

_lock = threading.Lock()
_count = 0


@app.task(name="rowpump_bench.noop", ignore_result=True)
def noop(*args, **kwargs):
    global _count
    with _lock:
        _count += 1
        finished = _count == int(os.environ["BENCH_TASKS"])
    if finished:
        redis.Redis.from_url(os.environ["BENCH_BROKER"]).set(os.environ["BENCH_DONE_KEY"], "1")
