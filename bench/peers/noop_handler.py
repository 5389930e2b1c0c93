# rowpump's side of bench/consumer_vs_peers.sh: a --pipe handler that does nothing with each task.
import json
import sys

for line in sys.stdin:
    json.loads(line)
    sys.stdout.write("ok\n")
    sys.stdout.flush()
