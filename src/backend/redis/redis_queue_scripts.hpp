#pragma once
// The Lua scripts of the Redis queue. Each is one atomic step, so a consumer that dies between two of
// them never leaves a task in two places or in none. Times come from the server (TIME): consumers on
// several machines agree on heartbeats and due times without synchronised clocks.
//
// Scripts name every key they touch in KEYS (reap() looks the expired consumers up first, then
// recovers each with its own call), so they also run on a cluster when the queue name carries a hash
// tag ({Q}).

namespace rowpump::queue::scripts {

// KEYS: processing, attempts, ready lists in priority order.  ARGV: n.
// Moves up to n tasks from the first non-empty lists to the tail of the processing list.
// Returns {task, failures, task, failures, ...}.
inline const char* const pop = R"lua(
local want = tonumber(ARGV[1])
local counted = redis.call('EXISTS', KEYS[2]) == 1
local out = {}
for i = 3, #KEYS do
  local taken = redis.call('LRANGE', KEYS[i], 0, want - 1)
  if #taken > 0 then
    redis.call('LTRIM', KEYS[i], #taken, -1)
    redis.call('RPUSH', KEYS[1], unpack(taken))
    for _, task in ipairs(taken) do
      out[#out + 1] = task
      out[#out + 1] = counted and (redis.call('HGET', KEYS[2], task) or '0') or '0'
    end
    want = want - #taken
    if want == 0 then break end
  end
end
return out
)lua";

// KEYS: processing, attempts.  ARGV: tasks.
// Removes each task from the processing list. Returns the (1-based) positions of those not there.
// A worker acknowledges its batch in the order it was popped, so the tasks are usually the head of its
// processing list: that head goes with one LTRIM, as the same LREMs one by one would take it (each would
// remove the then first element). A redis.call per task was most of Redis's CPU in a drain. The rest of
// the tasks, if any, go one LREM each.
inline const char* const ack = R"lua(
local counted = redis.call('EXISTS', KEYS[2]) == 1
local head = redis.call('LRANGE', KEYS[1], 0, #ARGV - 1)
local first = 1
while first <= #ARGV and head[first] == ARGV[first] do first = first + 1 end
if first > 1 then redis.call('LTRIM', KEYS[1], first - 1, -1) end
local stale = {}
for i = 1, #ARGV do
  if i >= first and redis.call('LREM', KEYS[1], 1, ARGV[i]) == 0 then
    stale[#stale + 1] = i
  elseif counted then
    redis.call('HDEL', KEYS[2], ARGV[i])
  end
end
return stale
)lua";

// KEYS: processing, attempts, delayed, dead.  ARGV: task, max attempts, base ms, cap ms, jitter (millionths),
// ms per score unit (1, or 1000 for a set scored in seconds).
// Counts a failure: the task waits in the delayed set for min(cap, base * 2^(failures-1)) * jitter, or
// goes dead at max attempts (as the bare payload). Returns the failure count, 0 when dead, -1 when the
// task is not held.
// The delayed member is tagged (queue/redis_delayed_member.hpp) with writer 0 and the server's time in
// microseconds as its sequence, moved on past members already there: two identical payloads failing in
// the same microsecond, or one still waiting from an earlier failure, stay two tasks.
inline const char* const fail = R"lua(
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then return -1 end
local failures = redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
if failures >= tonumber(ARGV[2]) then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('RPUSH', KEYS[4], ARGV[1])
  return 0
end
local delay = math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ math.min(failures - 1, 40))
delay = math.floor(delay * tonumber(ARGV[5]) / 1000000)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local sequence = tonumber(t[1]) * 1000000 + tonumber(t[2])
local member
repeat
  member = 'rp1:0000000000000000' .. string.format('%016x', sequence) .. ':' .. ARGV[1]
  sequence = sequence + 1
until not redis.call('ZSCORE', KEYS[3], member)
redis.call('ZADD', KEYS[3], (now + delay) / tonumber(ARGV[6]), member)
return failures
)lua";

// KEYS: processing, return list.  ARGV: tasks, in the order they were popped.
// Puts the held ones back at the head of the return list, in order. Returns how many.
inline const char* const release = R"lua(
local back = 0
for i = #ARGV, 1, -1 do
  if redis.call('LREM', KEYS[1], -1, ARGV[i]) == 1 then
    redis.call('LPUSH', KEYS[2], ARGV[i])
    back = back + 1
  end
end
return back
)lua";

// KEYS: consumers.  ARGV: consumer names.  Records a beat for each at the server's time (ms).
inline const char* const heartbeat = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, #ARGV do redis.call('ZADD', KEYS[1], now, ARGV[i]) end
return now
)lua";

// KEYS: consumers, processing.  ARGV: consumer.  Forgets the consumer when it holds nothing.
inline const char* const leave = R"lua(
if redis.call('LLEN', KEYS[2]) > 0 then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
)lua";

// KEYS: consumers.  ARGV: timeout ms.  The consumers whose last beat is older than the timeout.
inline const char* const expired = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - tonumber(ARGV[1])))
)lua";

// KEYS: consumers, processing, return list, attempts, dead.  ARGV: consumer, timeout ms, max attempts.
// When the consumer's beat is still too old, moves its processing list to the head of the return list
// in order (each task's crash counts as a failure; those that reach max attempts go dead) and forgets
// the consumer. Returns {released, dead}.
inline const char* const recover = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local beat = redis.call('ZSCORE', KEYS[1], ARGV[1])
if beat and tonumber(beat) >= now - tonumber(ARGV[2]) then return {0, 0} end
local max_attempts = tonumber(ARGV[3])
local released, dead = 0, 0
while true do
  local task = redis.call('RPOP', KEYS[2])
  if not task then break end
  if redis.call('HINCRBY', KEYS[4], task, 1) >= max_attempts then
    redis.call('HDEL', KEYS[4], task)
    redis.call('RPUSH', KEYS[5], task)
    dead = dead + 1
  else
    redis.call('LPUSH', KEYS[3], task)
    released = released + 1
  end
end
redis.call('ZREM', KEYS[1], ARGV[1])
return {released, dead}
)lua";

// KEYS: delayed, return list.  ARGV: batch, ms per score unit.
// Moves up to `batch` tasks due by the server's clock to the tail of the return list, earliest first,
// each without its tag: a member that starts with a well-formed 37-byte tag (queue/redis_delayed_member.hpp,
// the same test as delayed_payload) loses exactly those bytes, any other member moves as it is.
// Returns how many.
inline const char* const promote = R"lua(
local t = redis.call('TIME')
local now = (tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)) / tonumber(ARGV[2])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
if #due > 0 then
  local tag = '^rp1:' .. string.rep('[0-9a-f]', 32) .. ':'
  local payloads = {}
  for i, member in ipairs(due) do
    payloads[i] = string.find(member, tag) and string.sub(member, 38) or member
  end
  redis.call('RPUSH', KEYS[2], unpack(payloads))
  redis.call('ZREM', KEYS[1], unpack(due))
end
return #due
)lua";

// KEYS: delayed, ready lists.  ARGV: horizon ms, scan limit, ms per score unit.
// Returns {ready, due, retries, ms until the first retry is due (-1: none), later}: tasks in the ready
// lists, members due now, retries (writer-0 tags) among the first `scan limit` members due within the
// horizon, and the other members.
inline const char* const backlog = R"lua(
local ready = 0
for i = 2, #KEYS do ready = ready + redis.call('LLEN', KEYS[i]) end
local unit = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = (tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)) / unit
local due = redis.call('ZCOUNT', KEYS[1], '-inf', now)
local soon = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, now + tonumber(ARGV[1]) / unit, 'WITHSCORES',
                        'LIMIT', 0, tonumber(ARGV[2]))
local retries, first = 0, -1
for i = 1, #soon, 2 do
  if string.sub(soon[i], 1, 20) == 'rp1:0000000000000000' then
    if retries == 0 then first = math.ceil((tonumber(soon[i + 1]) - now) * unit) end
    retries = retries + 1
  end
end
return {ready, due, retries, first, redis.call('ZCARD', KEYS[1]) - due - retries}
)lua";

// KEYS: dead, return list, attempts.  ARGV: batch.
// Moves up to `batch` dead tasks to the tail of the return list with their failure counts cleared.
inline const char* const requeue_dead = R"lua(
local items = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
if #items > 0 then
  redis.call('LTRIM', KEYS[1], #items, -1)
  redis.call('RPUSH', KEYS[2], unpack(items))
  redis.call('HDEL', KEYS[3], unpack(items))
end
return #items
)lua";

}  // namespace rowpump::queue::scripts
