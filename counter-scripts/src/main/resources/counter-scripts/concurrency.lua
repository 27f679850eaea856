-- concurrency: at most limit requests in flight per key. An admitted request holds a lease until its response
-- ends, however it ends; the lease of a gateway that died ends when its time is up.
-- Stored at the key: a sorted set, one member per lease:
--   member  the lease id as decimal text
--   score   the lease's expiry in Unix µs; a lease counts while its expiry is after now
-- The key expires with its latest lease (PEXPIREAT, rounded up to the millisecond), so a client with nothing in
-- flight holds no key.
-- Policy ARGV read: limit; in period_ms's place lease_ms, how long a lease holds at most; in burst's place the
-- lease id (whole, from 1 to 1e12, fresh per request); cost must be 1 (arguments.lua checks it, and that no
-- concurrency key is settled).
-- Read (check and peek alike): ZCOUNT key (now +inf, the live leases; nothing else is read or changed. A release
-- reads nothing.
-- Write, when the client's whole check allows: ZREMRANGEBYSCORE key -inf now (the expired leases; DEL instead
-- when the read found no live lease, which also drops a key of another kind), ZADD key <now + lease_us>
-- <lease_id>, then PEXPIREAT key at the latest expiry of the leases taken since the key was made (GT once the
-- key holds more than this lease: a lease given back leaves the key's expiry). A lease id still held is renewed,
-- not doubled.
-- Release: the gateway gives a lease back when the response ends, as a settlement of the key by -1 (s-1), which
-- the write phase runs as ZREM key <lease_id> (so a release rides in the loop's coalesced call), or with a plain
-- ZREM; the last lease released deletes the key. A lease already expired or released removes nothing.
-- Renewal: while its response runs (a stream, a WebSocket), the gateway renews the lease every third of lease_ms,
-- as a settlement of the key by 0 (s0): a lease still live then ends lease_ms from now (ZADD XX GT, and the key's
-- PEXPIREAT ... GT); one expired or given back stays gone. So a live gateway's long requests keep their slots, and
-- a dead gateway's come back within lease_ms.
-- Per-key reply: allowed (live + 1 <= limit), remaining (limit - live, less this lease when allowed; never below
-- 0), retry_after_ms 0 when rejected (a slot may free at any moment), reset_ms 0. A release or a renewal answers
-- 1, 0, 0, 0: its key is not read.

-- The live leases of key at now, false when none (or the key is of another kind); an error reply as a table.
read_leases = function(key, now)
  local live = redis.pcall('ZCOUNT', key, string.format('(%d', now), '+inf')
  if live == 0 then
    return false
  end
  return live
end

-- Takes lease lease_id until expire_at on key, which held live leases (0: none live, or a key of another kind,
-- which DEL drops with the expired leases). Answers the live leases after it.
take_lease = function(key, now, expire_at, lease_id, live)
  if live == 0 then
    redis.call('DEL', key)
  else
    redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', now))
  end
  live = live + redis.call('ZADD', key, string.format('%d', expire_at), string.format('%d', lease_id))
  -- the key lives as long as its latest lease: GT keeps a later expiry a longer lease set (a key just made by ZADD
  -- has none, which GT takes for the latest of all, so it gets its expiry plainly)
  if live == 1 then
    redis.call('PEXPIREAT', key, string.format('%d', math.ceil(expire_at / 1000)))
  else
    redis.call('PEXPIREAT', key, string.format('%d', math.ceil(expire_at / 1000)), 'GT')
  end
  return live
end

-- Renews lease lease_id of key until expire_at when it is live at now (its expiry after now); a lease expired,
-- given back, or a key of another kind is left as it is.
renew_lease = function(key, now, expire_at, lease_id)
  local held = redis.pcall('ZSCORE', key, lease_id)
  if type(held) ~= 'string' or tonumber(held) <= now then
    return
  end
  redis.call('ZADD', key, 'XX', 'GT', string.format('%d', expire_at), lease_id)
  redis.call('PEXPIREAT', key, string.format('%d', math.ceil(expire_at / 1000)), 'GT')
end

ALGORITHMS.concurrency = function(live, limit, lease_ms, lease_id, now, cost, settle)
  live = live or 0
  local free = math.max(0, limit - live)
  if settle then
    -- a release (s-1) or a renewal (s0; arguments.lua lets no other through; the key was not read): the write
    -- phase gives the lease back, or renews it until lease_ms from now
    return 1, 0, 0, 0, false, cost == 0 and now + lease_ms * 1000 or nil, 0, 0
  end
  if live + 1 <= limit then
    return 1, limit - live - 1, 0, 0, live, now + lease_ms * 1000, free, 0
  end
  return 0, free, 0, 0, nil, nil, free, 0
end
