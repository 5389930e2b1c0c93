#!/usr/bin/env python3
# A persistent handler for `rowpump queue consume --pipe 'python3 handler.py'` (docs/consumers.md):
# one JSON task per line on stdin, one result per line on stdout, in order. Log to stderr, never stdout.
import json
import sys


def handle(task):
    payload = task["payload"]  # the task as the producer wrote it: here a row of the table
    if payload is None:
        return "dead the payload is empty"
    return "ok"


for line in sys.stdin:
    try:
        answer = handle(json.loads(line))
    except Exception as error:  # one task failing is not the handler failing
        answer = "fail " + str(error).replace("\n", " ")
    sys.stdout.write(answer + "\n")
    sys.stdout.flush()
