/**
 * The Lua scripts Redis runs atomically: no other replica's command runs between their reads and
 * writes, so two replicas never both take the last slot of a rate limit or of max_active_faults.
 * Time is Redis's own clock (TIME), the one clock every replica shares, so retry_after_ms is the
 * true time to the next slot fleet-wide.
 */

/**
 * The rule walk of one request. KEYS: per step a counter hash and a window sorted set, then the
 * session's slot set. ARGV: step count, max active (-1: none), slot lease ms, token, counter TTL ms,
 * then nine numbers per step (see WalkStep). Returns [holds slot, then verdict and retry per step].
 * Verdicts: 0 not fired, 1 fired, 2 skipped by max_active_faults.
 */
export const WALK_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local n = tonumber(ARGV[1])
local maxActive = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
local token = ARGV[4]
local ttl = tonumber(ARGV[5])
local activeKey = KEYS[2 * n + 1]
local holds = false
if maxActive >= 0 then redis.call('ZREMRANGEBYSCORE', activeKey, '-inf', now) end
local out = {0}
for i = 1, n do
  local b = 5 + (i - 1) * 9
  local stateful = tonumber(ARGV[b + 1]) == 1
  local after = tonumber(ARGV[b + 2])
  local every = tonumber(ARGV[b + 3])
  local times = tonumber(ARGV[b + 4])
  local localOk = tonumber(ARGV[b + 5]) == 1
  local rlLimit = tonumber(ARGV[b + 6])
  local rlWindow = tonumber(ARGV[b + 7])
  local answers = tonumber(ARGV[b + 8]) == 1
  local mods = tonumber(ARGV[b + 9]) == 1
  local ck = KEYS[2 * i - 1]
  local wk = KEYS[2 * i]
  local seen, fired = 1, 0
  if stateful then
    seen = redis.call('HINCRBY', ck, 'seen', 1)
    fired = tonumber(redis.call('HGET', ck, 'fired') or '0')
    redis.call('PEXPIRE', ck, ttl)
  end
  local ok = localOk and seen > after and (every == 0 or (seen - after) % every == 0) and (times < 0 or fired < times)
  local verdict, retry = 0, 0
  if ok and rlLimit > 0 then
    -- A hit with less than a millisecond left counts as gone, as buyers' timers may fire that early.
    redis.call('ZREMRANGEBYSCORE', wk, '-inf', now - rlWindow + 1)
    if redis.call('ZCARD', wk) < rlLimit then
      redis.call('ZADD', wk, now, token .. ':' .. i)
      redis.call('PEXPIRE', wk, rlWindow + 1000)
      answers = false
    else
      local oldest = redis.call('ZRANGE', wk, 0, 0, 'WITHSCORES')
      retry = math.max(1, math.ceil(tonumber(oldest[2]) + rlWindow - now))
      answers = true
    end
  end
  if ok and not answers and not mods then ok = false end
  if ok and maxActive >= 0 and not holds then
    if redis.call('ZCARD', activeKey) >= maxActive then
      ok = false
      verdict = 2
    else
      redis.call('ZADD', activeKey, now + lease, token)
      redis.call('PEXPIRE', activeKey, lease)
      holds = true
    end
  end
  if ok then
    if stateful then redis.call('HINCRBY', ck, 'fired', 1) end
    verdict = 1
  end
  out[#out + 1] = verdict
  out[#out + 1] = retry
  if ok and answers then break end
end
if holds then out[1] = 1 end
return out
`;

/**
 * Publishes a scenario: KEYS[1] the scenario hash, ARGV[1] its JSON, ARGV[2] the channel,
 * ARGV[3] 1 to publish only when none is published yet, ARGV[4] the newest version the
 * publisher has seen (a Redis that lost its data must not hand out an old version number again).
 * Returns [version, JSON in force].
 */
export const PUBLISH_SCRIPT = `
if ARGV[3] == '1' then
  local cur = redis.call('HMGET', KEYS[1], 'version', 'json')
  if cur[1] then return {tonumber(cur[1]), cur[2]} end
end
local v = redis.call('HINCRBY', KEYS[1], 'version', 1)
local floor = tonumber(ARGV[4])
if v <= floor then
  v = floor + 1
  redis.call('HSET', KEYS[1], 'version', v)
end
redis.call('HSET', KEYS[1], 'json', ARGV[1])
redis.call('PUBLISH', ARGV[2], tostring(v))
return {v, ARGV[1]}
`;
