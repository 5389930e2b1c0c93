"""A Celery task for rowpump's tests.

Each run appends the task's id, its argument, its eta and the time it ran to the Redis list named by
RP_RECORD_KEY, so a test sees every run of every task. Started by
tests/integration/worker_formats_test.cpp as `celery -A rowpump_test_tasks worker`.
"""
import json
import os
import time

import redis
from celery import Celery
from celery.signals import task_revoked

app = Celery("rowpump_test_tasks", broker=os.environ["RP_BROKER"])
app.conf.accept_content = ["json"]
# No control mailbox: the worker then leaves no pidbox keys behind in the test's database.
app.conf.worker_enable_remote_control = False

_records = redis.Redis.from_url(os.environ["RP_BROKER"])


@app.task(bind=True, name="rowpump_test.record")
def record(self, row=None, **kwargs):
    _records.rpush(os.environ["RP_RECORD_KEY"], json.dumps({
        "id": self.request.id,
        "row": row,
        "kwargs": kwargs,
        "eta": self.request.eta,
        "expires": self.request.expires,
        "routing_key": (self.request.delivery_info or {}).get("routing_key"),
        "priority": (self.request.delivery_info or {}).get("priority"),
        "ran_at": time.time(),
    }))


# A task the worker discards instead of running (expired, or revoked) goes to RP_RECORD_KEY:revoked.
@task_revoked.connect
def on_revoked(request=None, expired=False, **_):
    _records.rpush(os.environ["RP_RECORD_KEY"] + ":revoked", json.dumps({
        "id": request.id if request is not None else None,
        "expired": bool(expired),
    }))
