-- arguments: reads and checks the KEYS and ARGV that check and peek share, then reads every bucket the one way
-- both read it.
-- The catalog sends it after its prelude (fail, which answers 'ERR tollgate <script>: <message>';
-- "local ALGORITHMS = { <one slot per algorithm> }" with the slots ARGV names marked; the locals read_leases,
-- take_lease and renew_lease, which concurrency.lua fills) and the algorithm files, and the script's driver after it.
--
-- KEYS[1..N]  bucket keys rl:<rule-id>:{<client-key>}; the keys of one client share one hash tag, so one
--             shard. Several clients in one call: on standalone Redis; on a Cluster through on_node.lua
--             (their keys are in different slots, which a script's declared keys may not be).
-- ARGV[1]     now as Unix time in microseconds, or "" to take Redis TIME (production always does;
--             tests pass it). Expiries are absolute (SET ... PXAT), so an explicit now must be a
--             real moment: a value far in the past writes keys that vanish at once.
-- then five per key i, from ARGV[1 + 5(i-1) + 1]:
--             algorithm wire name (token_bucket, gcra, sliding_window, fixed_window, calendar_window,
--             concurrency), limit, period_ms, burst, cost (what one check spends from that bucket); all whole
--             numbers from 1 to 1e12. A concurrency key carries lease_ms in period_ms's place and its lease id
--             in burst's, and its cost is 1 (one lease).
--             A cost of s<delta> (s35, s-12, s0) SETTLES the key instead of checking it: delta is a whole
--             number from -1e12 to 1e12, what the request really used less what its check spent. A positive
--             delta is spent whatever the bucket holds (it may go into debt), a negative one given back (never
--             above the capacity), 0 changes nothing. A settled key always allows and never makes another
--             key of its client fail; it is written whether or not the client's checked keys allow. A
--             concurrency key is settled only with s-1 (its lease, the id in burst's place, is given back) or s0
--             (it is renewed: see concurrency.lua).
-- then, for several clients, one per client g from ARGV[1 + 5N + 1]: how many of the keys, in order, are
--             client g's (whole numbers summing to N). Without them the N keys are one client's.
-- Leaves: n (the key count), now, policy (per key i at 5(i-1)+1..+5: its algorithm's decide, limit,
-- period_ms, burst, cost; a settled key's delta in cost's place), settled (settled[i] true for a settled key;
-- nil when the call settles none), leased (leased[i] true for a concurrency key; nil when the call has none),
-- last (the last key of each client, when several; else nil), sized (whether tables per key are made at their
-- full size, see below) and stored (per key, what its bucket holds, as read below). Nonsense arguments return an
-- error naming the argument and its value (fail): every argument is read before the first bucket.

-- as locals: a global is looked up by name at every use
local KEYS, ARGV = KEYS, ARGV
local n = #KEYS
if n == 0 then
  return fail('no KEYS given')
end
local clients = #ARGV - (1 + 5 * n)
if clients < 0 then
  return fail('ARGV count ' .. #ARGV .. ' for ' .. n .. ' keys, expected ' .. (1 + 5 * n)
    .. ' (and one key count per client when several)')
end

local now
if ARGV[1] == '' then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
else
  now = tonumber(ARGV[1])
  -- below 4e15 (the year 2096): exact, and window arithmetic keeps a whole µs of precision
  if not (now and now >= 0 and now < 4e15 and now % 1 == 0) then
    return fail('now_us must be whole microseconds since 1970, was "' .. ARGV[1] .. '"')
  end
end

-- Tables per key are made at their full size: one that grows resizes at every power of two. The common one-key
-- call's are literals; several keys' are copies of ARGV's first values (placeholders, each overwritten). unpack
-- puts those on Lua's stack, which holds a few thousand: beyond 400 keys the tables grow as they fill.
local sized = n <= 400

-- per key at 5(i-1)+1..+5: its algorithm, limit, period_ms, burst and cost, every key's read before any
-- bucket is (so nonsense for a later client spends nothing of an earlier one)
local policy = n == 1 and { false, false, false, false, false } or sized and { unpack(ARGV, 2, 1 + 5 * n) } or {}
local settled, leased
-- Limit, period_ms, burst and a check's cost are whole numbers from 1 to 1e12 (so period_ms x 1000 stays exact),
-- read with tonumber and arithmetic, inline: not patterns, and no function, which would be built on every call.
-- The previous key's four, as text and as read (settles: its cost is a settlement), are kept: the keys of one call
-- mostly repeat their neighbour's (the rules of a route, one rule's many clients), and a text the previous key
-- had is not read again.
local limit_text, period_text, burst_text, cost_text, limit, period_ms, burst, cost, settles
for i = 1, n do
  local a = 1 + 5 * (i - 1)
  local algorithm = ALGORITHMS[ARGV[a + 1]]
  if not algorithm then
    return fail('algorithm of key ' .. i .. ' is unknown: "' .. ARGV[a + 1] .. '"')
  end
  local leases = ARGV[a + 1] == 'concurrency'
  local text = ARGV[a + 2]
  if text ~= limit_text then
    limit_text, limit = text, tonumber(text)
    if not (limit and limit >= 1 and limit <= 1e12 and limit % 1 == 0) then
      return fail('limit of key ' .. i .. ' must be a whole number >= 1, was "' .. text .. '"')
    end
  end
  text = ARGV[a + 3]
  if text ~= period_text then
    period_text, period_ms = text, tonumber(text)
    if not (period_ms and period_ms >= 1 and period_ms <= 1e12 and period_ms % 1 == 0) then
      return fail((leases and 'lease_ms' or 'period_ms') .. ' of key ' .. i .. ' must be a whole number >= 1, was "'
        .. text .. '"')
    end
  end
  text = ARGV[a + 4]
  if text ~= burst_text then
    burst_text, burst = text, tonumber(text)
    if not (burst and burst >= 1 and burst <= 1e12 and burst % 1 == 0) then
      return fail((leases and 'lease_id' or 'burst') .. ' of key ' .. i .. ' must be a whole number >= 1, was "'
        .. text .. '"')
    end
  end
  text = ARGV[a + 5]
  if text ~= cost_text then
    cost_text, cost, settles = text, tonumber(text), false
    if not (cost and cost >= 1 and cost <= 1e12 and cost % 1 == 0) then
      -- a settlement: "s" and a whole number from -1e12 to 1e12
      cost = string.byte(text, 1) == 115 and tonumber(string.sub(text, 2))
      if not (cost and cost >= -1e12 and cost <= 1e12 and cost % 1 == 0) then
        return fail('cost of key ' .. i .. ' must be a whole number >= 1, or s and a whole number from -1e12 to 1e12'
          .. ' (a settlement), was "' .. text .. '"')
      end
      settles = true
    end
  end
  if settles then
    if leases and cost ~= -1 and cost ~= 0 then
      return fail('cost of key ' .. i .. ' settles a concurrency key, which holds leases, not units: only s-1 gives'
        .. ' its lease back and s0 renews it, was "' .. text .. '"')
    end
    settled = settled or {}
    settled[i] = true
  end
  if leases then
    if cost ~= 1 and not settles then
      return fail('cost of key ' .. i .. ' must be 1 for a concurrency key (one lease), was "' .. text .. '"')
    end
    leased = leased or {}
    leased[i] = true
  end
  local r = 5 * (i - 1)
  policy[r + 1], policy[r + 2], policy[r + 3], policy[r + 4], policy[r + 5] = algorithm, limit, period_ms, burst, cost
end

-- the last key of each client, when several
local last
if clients > 0 then
  -- sized as policy (more clients than keys fail below)
  last = sized and clients <= n and { unpack(ARGV, 2, 1 + clients) } or {}
  -- a key count is read as the keys' texts are: not again when it repeats the previous client's
  local counted, count_text, count = 0, nil, nil
  for g = 1, clients do
    local text = ARGV[1 + 5 * n + g]
    if text ~= count_text then
      count_text, count = text, tonumber(text)
      if not (count and count >= 1 and count <= 1e12 and count % 1 == 0) then
        count = nil
      end
    end
    if not count or counted + count > n then
      return fail('key count of client ' .. g .. ' must be a whole number >= 1 within the ' .. n
        .. ' keys, was "' .. text .. '"')
    end
    counted = counted + count
    last[g] = counted
  end
  if counted ~= n then
    return fail('key counts of the ' .. clients .. ' clients sum to ' .. counted .. ', not the ' .. n .. ' keys')
  end
end

-- every bucket as its algorithm stores it: its value (GET; false when absent), or for a concurrency key the count
-- of its live leases (read_leases; false when none); read before check writes any, so a read that fails writes
-- nothing. A key of the other kind (its rule's algorithm changed to or from concurrency) reads as absent, and the
-- write that follows replaces it: a new algorithm starts a fresh bucket. Any other error (on a Cluster node, a
-- key the node does not serve) is the script's answer.
local stored = n == 1 and { false } or sized and { unpack(ARGV, 2, 1 + n) } or {}
for i = 1, n do
  -- err: the message of an error reply (a table with the field err)
  local value, err
  if leased and leased[i] then
    -- a release (settled) needs no count: it gives its lease back whatever the others
    value = not (settled and settled[i]) and read_leases(KEYS[i], now)
    err = type(value) == 'table' and value.err
  else
    value = redis.pcall('GET', KEYS[i])
    -- text, false or an error reply: text has no field err (asked so, not with type(), a C call per key)
    err = value and value.err
  end
  if err then
    if string.sub(err, 1, 9) ~= 'WRONGTYPE' then
      return value
    end
    value = false
  end
  stored[i] = value
end
