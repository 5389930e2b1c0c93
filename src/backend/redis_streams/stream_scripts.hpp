#pragma once
// Lua scripts of the stream backend: the fenced page's checkpoint move, and the consumer group's acts that
// must see and change an entry's pending state in one step. A page's entries are plain XADDs
// (stream_commands.hpp).

namespace rowpump::stream_scripts {

// KEYS: range, stream.  ARGV: lease ms, last_key, rows (the lists' move_checkpoint's ARGV). The last
// command of a page's MULTI, after its XADDs: when the stream key holds something else, those XADDs failed
// (WRONGTYPE), and the checkpoint must not move.
inline const char* const move_checkpoint = R"lua(
local t = redis.call('TYPE', KEYS[2]).ok
if t ~= 'stream' and t ~= 'none' then
  return redis.error_reply('ROWPUMP ' .. KEYS[2] .. ' is a ' .. t .. ', not a stream: checkpoint not moved')
end
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('HSET', KEYS[1], 'last_key', ARGV[2], 'lease_until', ms + tonumber(ARGV[1]))
redis.call('HINCRBY', KEYS[1], 'rows_written', ARGV[3])
return 1
)lua";

// KEYS: stream.  ARGV: group, consumer, id...  Acknowledges each entry this consumer still holds (XPENDING
// names its owner: XACK alone would acknowledge an entry another consumer has claimed since). Returns the
// positions (0-based) of the others.
inline const char* const ack = R"lua(
local stale = {}
for i = 3, #ARGV do
  local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if p[1] and p[1][2] == ARGV[2] then
    redis.call('XACK', KEYS[1], ARGV[1], ARGV[i])
  else
    stale[#stale + 1] = i - 3
  end
end
return stale
)lua";

// KEYS: stream, dead stream.  ARGV: group, consumer, id, reason.  Buries an entry this consumer holds:
// its fields, with `source_id` and `reason`, go to the dead stream, and it is acknowledged. Returns 1, or
// 0 when the consumer no longer holds it.
inline const char* const bury = R"lua(
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
if not (p[1] and p[1][2] == ARGV[2]) then return 0 end
local e = redis.call('XRANGE', KEYS[1], ARGV[3], ARGV[3])
local fields = e[1] and e[1][2] or {}
fields[#fields + 1] = 'source_id'
fields[#fields + 1] = ARGV[3]
fields[#fields + 1] = 'reason'
fields[#fields + 1] = ARGV[4]
redis.call('XADD', KEYS[2], '*', unpack(fields))
redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
return 1
)lua";

// KEYS: stream, dead stream.  ARGV: group, consumer, min idle ms, count, max deliveries.  XAUTOCLAIM of up
// to `count` entries idle past `min idle` (their consumer died or stalled) to this consumer; an entry whose
// delivery count (this delivery included) passes `max deliveries` goes to the dead stream instead (with
// `source_id` and `reason`) and is acknowledged. Returns {dead, {id, deliveries, fields}...}.
inline const char* const reclaim = R"lua(
local r = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], '0-0', 'COUNT', ARGV[4])
local dead, taken = 0, {}
for _, e in ipairs(r[2]) do
  local id, fields = e[1], e[2]
  local p = redis.call('XPENDING', KEYS[1], ARGV[1], id, id, 1)
  local deliveries = p[1] and p[1][4] or 1
  if deliveries > tonumber(ARGV[5]) then
    fields[#fields + 1] = 'source_id'
    fields[#fields + 1] = id
    fields[#fields + 1] = 'reason'
    fields[#fields + 1] = 'delivered ' .. deliveries .. ' times (its consumers died or stalled)'
    redis.call('XADD', KEYS[2], '*', unpack(fields))
    redis.call('XACK', KEYS[1], ARGV[1], id)
    dead = dead + 1
  else
    taken[#taken + 1] = {id, deliveries, fields}
  end
end
return {dead, taken}
)lua";

// KEYS: stream.  ARGV: group, consumer, idle ms, retry count ('' to keep it), id...  Each entry this
// consumer still holds is XCLAIMed to it again, JUSTID (no delivery counted), made `idle` ms idle: 0 renews a
// long task's entry; the claim timeout less a delay brings a failed entry back after that delay. Returns how
// many it held.
inline const char* const touch = R"lua(
local held = 0
for i = 5, #ARGV do
  local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if p[1] and p[1][2] == ARGV[2] then
    if ARGV[4] ~= '' then
      redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'IDLE', ARGV[3], 'RETRYCOUNT', ARGV[4], 'JUSTID')
    else
      redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'IDLE', ARGV[3], 'JUSTID')
    end
    held = held + 1
  end
end
return held
)lua";

}  // namespace rowpump::stream_scripts
