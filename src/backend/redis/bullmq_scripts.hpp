#pragma once
// The Lua that writes a page of BullMQ jobs, as BullMQ 5 (5.81, the version pinned in tests/workers/bullmq)
// writes each job of Queue.addBulk with its addStandardJob-9.lua and addDelayedJob-6.lua and their includes
// (storeJob, getTargetQueueList, addJobInTargetList, getOrSetMaxEvents, getDelayedScore,
// addDelayMarkerIfNeeded, handleDuplicatedJob). One script a page keeps the page atomic, and runs the same
// commands in the same order per job, so a Worker, QueueEvents and Bull Board see what addBulk leaves.
// What a rowpump job never has is left out: parents, repeat keys, deduplication, priorities, LIFO.
//
// Per job: INCR id (BullMQ counts every add, a custom id too; here one INCRBY a page); a custom id whose
// hash exists is skipped with a "duplicated" event, as BullMQ does; else HMSET <prefix>:<queue>:<id> name
// data opts timestamp delay priority, XADD events "added"; a ready job is LPUSHed to wait (paused when meta
// has "paused"; here one LPUSH of the page's ready ids, which leaves the same list), with a "waiting" event; a delayed one is ZADDed to delayed with BullMQ's score, (timestamp + delay) *
// 0x1000 plus its place among the jobs due in that millisecond, with a "delayed" event. Once a page (the
// final state is the same as once a job): meta's opts.maxLenEvents (default 10000, which every XADD
// with MAXLEN ~ trims to), marker 0 "0" when a ready job went to an unpaused, unmaxed wait, and marker
// <next due ms> "1" after delayed jobs.
namespace rowpump::redis::bullmq_scripts {

// KEYS: wait, paused, meta, id, delayed, active, events, marker.
// ARGV: the jobs' key prefix ("bull:orders:"), the page's timestamp (Unix ms), then per job: its custom id
// ("" for the counter's), name, data (JSON), delay (ms as digits, "0" for a ready job).
// A key of another type is refused before anything is written. Returns the number of jobs added.
inline const char* const add_jobs = R"lua(
local rcall = redis.call
local want = {'list', 'list', 'hash', 'string', 'zset', 'list', 'stream', 'zset'}
for i = 1, #KEYS do
  local t = rcall('TYPE', KEYS[i]).ok
  if t ~= want[i] and t ~= 'none' then
    return redis.error_reply('ROWPUMP ' .. KEYS[i] .. ' is a ' .. t .. ', not the ' .. want[i] .. ' BullMQ keeps there')
  end
end
local waitKey, pausedKey, metaKey, idKey, delayedKey, activeKey, eventsKey, markerKey = unpack(KEYS)
local maxEvents = rcall('HGET', metaKey, 'opts.maxLenEvents')
if not maxEvents then
  maxEvents = '10000'
  rcall('HSET', metaKey, 'opts.maxLenEvents', maxEvents)
end
local attributes = rcall('HMGET', metaKey, 'paused', 'concurrency')
local target, pausedOrMaxed = waitKey, false
if attributes[1] then
  target, pausedOrMaxed = pausedKey, true
elseif attributes[2] and rcall('LLEN', activeKey) >= tonumber(attributes[2]) then
  pausedOrMaxed = true
end
local prefix, timestamp = ARGV[1], ARGV[2]
local jobs = (#ARGV - 2) / 4
-- One INCRBY and one LPUSH a page leave what an INCR and an LPUSH a job leave: the same counter, the same
-- ids, the same list order.
local counter = rcall('INCRBY', idKey, jobs) - jobs
-- A counter's id is its digits, as BullMQ's `jobCounter .. ""`. Lua formats a number through the C
-- library's printf of a double, a sixth of this script's instructions a job (bench/bullmq_floor.sh): here
-- the last two digits come from a table made once a page and the rest is formatted once every 100 jobs.
-- For the same reason every number a job's commands take is given as the string Redis would store.
local twoDigits = {}
for d = 0, 99 do twoDigits[d] = string.format('%02d', d) end
local hundreds, hundredsDigits = -1, ''
local ready, readyCount = {}, 0
local added, delayed = 0, 0
for i = 3, #ARGV, 4 do
  counter = counter + 1
  local jobId, name, data, delay = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local custom = jobId ~= ''
  if not custom then
    if counter < 100 then
      jobId = counter .. ''
    else
      local last = counter % 100
      if counter - last ~= hundreds then
        hundreds = counter - last
        hundredsDigits = string.format('%d', hundreds / 100)
      end
      jobId = hundredsDigits .. twoDigits[last]
    end
  end
  local jobKey = prefix .. jobId
  if custom and rcall('EXISTS', jobKey) == 1 then
    rcall('XADD', eventsKey, 'MAXLEN', '~', maxEvents, '*', 'event', 'duplicated', 'jobId', jobId)
  else
    -- The client sends "0" for a ready job.
    local delayMs = delay ~= '0' and tonumber(delay) or 0
    local opts = '{"attempts":0}'
    if custom or delayMs > 0 then
      local fields = {attempts = 0}
      if custom then fields['jobId'] = jobId end
      if delayMs > 0 then fields['delay'] = delayMs end
      opts = cjson.encode(fields)
    end
    rcall('HSET', jobKey, 'name', name, 'data', data, 'opts', opts, 'timestamp', timestamp, 'delay', delay,
          'priority', '0')
    rcall('XADD', eventsKey, '*', 'event', 'added', 'jobId', jobId, 'name', name)
    if delayMs > 0 then
      local due = tonumber(timestamp) + delayMs
      local minScore = due * 0x1000
      local maxScore = (due + 1) * 0x1000 - 1
      local score = minScore
      local last = rcall('ZREVRANGEBYSCORE', delayedKey, maxScore, minScore, 'WITHSCORES', 'LIMIT', 0, 1)
      local lastScore = tonumber(last[2])
      if lastScore ~= nil then
        if lastScore >= maxScore then score = maxScore else score = lastScore + 1 end
      end
      rcall('ZADD', delayedKey, score, jobId)
      rcall('XADD', eventsKey, 'MAXLEN', '~', maxEvents, '*', 'event', 'delayed', 'jobId', jobId, 'delay', due)
      delayed = delayed + 1
    else
      readyCount = readyCount + 1
      ready[readyCount] = jobId
      rcall('XADD', eventsKey, 'MAXLEN', '~', maxEvents, '*', 'event', 'waiting', 'jobId', jobId)
    end
    added = added + 1
  end
end
for first = 1, #ready, 1000 do
  rcall('LPUSH', target, unpack(ready, first, math.min(first + 999, #ready)))
end
if #ready > 0 and not pausedOrMaxed then rcall('ZADD', markerKey, 0, '0') end
if delayed > 0 then
  local first = rcall('ZRANGE', delayedKey, 0, 0, 'WITHSCORES')
  local nextScore = tonumber(first[2])
  if nextScore ~= nil then rcall('ZADD', markerKey, nextScore / 0x1000, '1') end
end
return added
)lua";

}  // namespace rowpump::redis::bullmq_scripts
