"""The commands bench/bullmq_floor.sh sends, as the Redis protocol (RESP), for `redis-cli --pipe`: JOBS BullMQ
jobs of queue PREFIX:QUEUE, in pages of PAGE, each with the same name, opts and timestamp and its data from
DATA_FILE (one job's data as rowpump writes it, its "id" set to the job's id, so every job has the size of
a real one). Written before a run and replayed, so that the client's work is neither timed nor mixed with
the server's.

  python3 bullmq_floor_commands.py CASE JOBS PAGE PREFIX QUEUE TIMESTAMP DATA_FILE [SHA]

CASE:
  lua      one EVALSHA SHA a page of the floor script (bench/bullmq_floor.sh), every argument precomputed:
           ARGV = name, opts, timestamp, the page's ids, their job keys, their data;
  plain    per job HSET key name data opts timestamp delay priority, XADD events * event added ..., XADD
           events MAXLEN ~ 10000 * event waiting ...; then one LPUSH wait of the page's ids;
  hset     per job the HSET only, then the LPUSH (what the job hash costs without the events entries);
  script   one EVALSHA SHA a page of rowpump's own script (bullmq_scripts::add_jobs), the arguments rowpump
           sends: KEYS wait paused meta id delayed active events marker; ARGV prefix, timestamp, then per job
           "" (the counter's id), name, data, "0" (no delay).
"""
import re
import sys

NAME = b"sync-row"
OPTS = b'{"attempts":0}'
MAX_EVENTS = b"10000"


def command(out, args):
    out.append(b"*%d\r\n" % len(args))
    for arg in args:
        out.append(b"$%d\r\n%s\r\n" % (len(arg), arg))


def main():
    case, jobs, page, prefix, queue, timestamp, data_file = sys.argv[1:8]
    sha = sys.argv[8].encode() if len(sys.argv) > 8 else b""
    jobs, page = int(jobs), int(page)
    timestamp = timestamp.encode()
    base = (prefix + ":" + queue + ":").encode()
    keys = [base + name for name in (b"wait", b"paused", b"meta", b"id", b"delayed", b"active", b"events", b"marker")]
    wait, events = keys[0], keys[6]
    with open(data_file, "rb") as f:
        sample = f.read().rstrip(b"\n")
    if not re.match(rb'^\{"id":[0-9]+,', sample):
        sys.exit("bullmq_floor_commands.py: %s does not start with {\"id\":N, (a job's data as rowpump writes it)" % data_file)
    rest = sample[sample.index(b","):]
    out = []
    write = sys.stdout.buffer.write
    for first in range(1, jobs + 1, page):
        ids = [b"%d" % n for n in range(first, min(first + page, jobs + 1))]
        data = [b'{"id":' + i + rest for i in ids]
        if case == "lua":
            command(out, [b"EVALSHA", sha, b"2", wait, events, NAME, OPTS, timestamp] + ids + [base + i for i in ids] + data)
        elif case == "script":
            args = [b"EVALSHA", sha, b"8"] + keys + [base, timestamp]
            for d in data:
                args += [b"", NAME, d, b"0"]
            command(out, args)
        elif case in ("plain", "hset"):
            for i, d in zip(ids, data):
                command(out, [b"HSET", base + i, b"name", NAME, b"data", d, b"opts", OPTS, b"timestamp", timestamp,
                              b"delay", b"0", b"priority", b"0"])
                if case == "plain":
                    command(out, [b"XADD", events, b"*", b"event", b"added", b"jobId", i, b"name", NAME])
                    command(out, [b"XADD", events, b"MAXLEN", b"~", MAX_EVENTS, b"*", b"event", b"waiting", b"jobId", i])
            command(out, [b"LPUSH", wait] + ids)
        else:
            sys.exit("bullmq_floor_commands.py: unknown case %s (lua, plain, hset or script)" % case)
        write(b"".join(out))
        out.clear()


main()
