#pragma once
// Lua scripts that make each step of a job atomic in Redis. The server's own clock (TIME) decides
// lease expiry, so processes on several machines agree without synchronised clocks.

namespace rowpump::redis_scripts {

// KEYS: meta, range:0 .. range:n-1.  ARGV: fingerprint, definition, then lo, hi, estimated per range.
// Creates the job unless it exists. Returns 1 when created, 0 when it existed.
inline const char* const create_job = R"lua(
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'fingerprint', ARGV[1], 'definition', ARGV[2], 'ranges', #KEYS - 1)
for i = 2, #KEYS do
  local a = 3 + (i - 2) * 3
  redis.call('HSET', KEYS[i], 'lo', ARGV[a], 'hi', ARGV[a + 1], 'estimated_rows', ARGV[a + 2],
             'last_key', '', 'rows_written', 0, 'status', 'pending', 'owner', 0, 'lease_until', 0)
end
return 1
)lua";

// KEYS: range.  ARGV: expected owner, new owner, lease ms, owner_is_gone (1/0).
// Takes the range when it is pending and still held by `expected owner`, and that owner is gone, has no
// lease, or let it expire. Returns {lo, hi, last_key, rows_written, estimated_rows} or nil.
inline const char* const lease_range = R"lua(
local r = KEYS[1]
local status, owner, lease_until = unpack(redis.call('HMGET', r, 'status', 'owner', 'lease_until'))
if status ~= 'pending' or owner ~= ARGV[1] then return nil end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if owner ~= '0' and ARGV[4] ~= '1' and tonumber(lease_until) > now then return nil end
redis.call('HSET', r, 'owner', ARGV[2], 'lease_until', now + tonumber(ARGV[3]))
return redis.call('HMGET', r, 'lo', 'hi', 'last_key', 'rows_written', 'estimated_rows')
)lua";

// KEYS: range, then the destination keys.  ARGV: owner, last_key, rows, lease ms, push command
// (RPUSH/LPUSH), previous last_key, then per message: destination index into KEYS (2-based), score
// ('' for a list), payload. Pushes every message and moves the checkpoint, or (lease lost) does nothing
// and returns 0. A retry of a call whose reply was lost finds the checkpoint already moved and returns 1
// without pushing again.
inline const char* const write_page = R"lua(
local r = KEYS[1]
local status, owner, last = unpack(redis.call('HMGET', r, 'status', 'owner', 'last_key'))
if status ~= 'pending' or owner ~= ARGV[1] then return 0 end
if last ~= ARGV[6] then
  if last == ARGV[2] then return 1 end
  return 0
end
local push = ARGV[5]
local batch, dest, scored = {}, nil, false
local function flush()
  if #batch == 0 then return end
  if scored then redis.call('ZADD', KEYS[dest], unpack(batch)) else redis.call(push, KEYS[dest], unpack(batch)) end
  batch = {}
end
for i = 7, #ARGV, 3 do
  local d, score, payload = tonumber(ARGV[i]), ARGV[i + 1], ARGV[i + 2]
  local is_scored = score ~= ''
  if d ~= dest or is_scored ~= scored or #batch >= 1000 then
    flush()
    dest, scored = d, is_scored
  end
  if is_scored then batch[#batch + 1] = score end
  batch[#batch + 1] = payload
end
flush()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', r, 'last_key', ARGV[2], 'lease_until', now + tonumber(ARGV[4]))
redis.call('HINCRBY', r, 'rows_written', ARGV[3])
return 1
)lua";

// KEYS: range.  ARGV: owner.  Marks the range done when this owner still holds it. Returns 1 or 0.
inline const char* const complete_range = R"lua(
local status, owner = unpack(redis.call('HMGET', KEYS[1], 'status', 'owner'))
if status ~= 'pending' or owner ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'status', 'done', 'owner', 0, 'lease_until', 0)
return 1
)lua";

}  // namespace rowpump::redis_scripts
