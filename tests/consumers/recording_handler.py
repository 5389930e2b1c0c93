#!/usr/bin/env python3
# A --pipe handler for the tests: appends "<pid> <payload>" to $RECORD for every task it answers ok, and
# misbehaves on request through the payload's "do" field (attempt 1 only): "crash" exits before
# answering, "babble" answers a line that is not a result, "hang" sleeps past any task timeout.
# With $CRASH_EVERY=N it also exits before answering every Nth task it is given.
import json
import os
import sys
import time

record = open(os.environ["RECORD"], "a", buffering=1)
crash_every = int(os.environ.get("CRASH_EVERY", "0"))
seen = 0
for line in sys.stdin:
    task = json.loads(line)
    seen += 1
    if crash_every and seen % crash_every == 0:
        os._exit(3)
    payload = task["payload"]
    act = payload.get("do") if isinstance(payload, dict) and task["attempt"] == 1 else None
    if act == "crash":
        os._exit(3)
    if act == "babble":
        sys.stdout.write("maybe later\n")
        sys.stdout.flush()
        continue
    if act == "hang":
        time.sleep(3600)
    if os.environ.get("TASK_SECONDS"):
        time.sleep(float(os.environ["TASK_SECONDS"]))
    record.write("%d %s\n" % (os.getpid(), json.dumps(payload, separators=(",", ":"))))
    sys.stdout.write("ok\n")
    sys.stdout.flush()
