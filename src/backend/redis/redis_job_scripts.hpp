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

// KEYS: range, then the destination keys (the lists, then the delayed set).  ARGV: lease ms, last_key,
// rows, then optionally the type each destination key must have (BullMQ's keys are not only lists). The last command of a page's MULTI, after its pushes; WATCH on the range made sure the lease and
// the checkpoint were as expected. Moves the checkpoint (and the time of the range's last page, which
// `rowpump job list` shows), unless a destination is not of its type (one of
// the pushes before it failed): then it answers an error and the page is not counted as written.
inline const char* const move_checkpoint = R"lua(
for i = 2, #KEYS do
  local want = ARGV[i + 2] or (i == #KEYS and 'zset' or 'list')
  local t = redis.call('TYPE', KEYS[i]).ok
  if t ~= want and t ~= 'none' then
    return redis.error_reply('ROWPUMP ' .. KEYS[i] .. ' is a ' .. t .. ', not a ' .. want .. ': checkpoint not moved')
  end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'last_key', ARGV[2], 'lease_until', now + tonumber(ARGV[1]), 'written_at', now)
redis.call('HINCRBY', KEYS[1], 'rows_written', ARGV[3])
return 1
)lua";

// KEYS: range.  ARGV: owner.  Marks the range done when this owner still holds it. Returns 1 or 0.
inline const char* const complete_range = R"lua(
local status, owner = unpack(redis.call('HMGET', KEYS[1], 'status', 'owner'))
if status ~= 'pending' or owner ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'status', 'done', 'owner', 0, 'lease_until', 0)
return 1
)lua";

// KEYS: meta, victim range, new range.  ARGV: range count, victim's owner, checkpoint and upper bound as
// read, split key, moved rows, thief, lease ms. Work stealing: when the job still has that many ranges and
// the victim is still as read, its upper bound becomes the split key and the new range [split, old upper
// bound) is added, leased to the thief. Owners' pages WATCH their range, so a page fenced before the split
// is aborted by it. Returns 1, or 0 when anything moved (the thief reads again).
inline const char* const split_range = R"lua(
if redis.call('HGET', KEYS[1], 'ranges') ~= ARGV[1] or redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local status, owner, last_key, hi, estimated =
  unpack(redis.call('HMGET', KEYS[2], 'status', 'owner', 'last_key', 'hi', 'estimated_rows'))
if status ~= 'pending' or owner ~= ARGV[2] or last_key ~= ARGV[3] or hi ~= ARGV[4] then return 0 end
local moved = tonumber(ARGV[6])
local left = tonumber(estimated) - moved
if left < 0 then left = 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[2], 'hi', ARGV[5], 'estimated_rows', left)
redis.call('HSET', KEYS[3], 'lo', ARGV[5], 'hi', hi, 'estimated_rows', moved, 'last_key', '', 'rows_written', 0,
           'status', 'pending', 'owner', ARGV[7], 'lease_until', now + tonumber(ARGV[8]))
redis.call('HSET', KEYS[1], 'ranges', tonumber(ARGV[1]) + 1)
return 1
)lua";

}  // namespace rowpump::redis_scripts
