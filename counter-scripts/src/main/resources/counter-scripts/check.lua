-- check: checks every bucket of one client in one atomic step, all or nothing; or the checks of several
-- clients in turn, each all or nothing on its own (a gateway's coalesced checks in one call). A key whose cost
-- is a settlement (s<delta>, see arguments.lua) is settled instead: what its request really used is charged.
-- The catalog sends the prelude, the algorithm files (each run only when its slot is marked), arguments.lua
-- (KEYS and ARGV, read and checked; then every bucket read), then this driver.
--
-- KEYS, ARGV  as arguments.lua reads them: the bucket keys; now, five policy arguments per key (its cost or
--             settlement among them), and per client its key count when several
-- Reply       a flat array of 4 x N integers, per key: allowed (1/0), remaining, retry_after_ms,
--             reset_ms. Per client, phase 1 decides each of its keys from its stored state; phase 2
--             writes all of them only if every one allowed. When another key rejected, a key that would
--             allow reports allowed = 1 with what it holds unspent (retry_after_ms 0). retry_after_ms is
--             -1 for a request that can never pass (cost above the capacity). Clients are checked in
--             order, each after the writes of the ones before it (two checks of one client in one call
--             spend one after the other, as two calls would).
--             remaining is negative when the bucket is in debt (a settlement spent more than it held, or a
--             window counts more than a lowered limit): -remaining is what it owes, rounded up (a token
--             bucket holding -2.5 tokens reports -3). A bucket in debt rejects every check until it holds the
--             check's cost again, and retry_after_ms says exactly when.
--             A settled key answers 1, remaining after the settlement, 0, reset_ms; it never makes another key
--             of its client fail, and it is written whatever the client's checked keys decide.
--             A concurrency key answers retry_after_ms 0 and reset_ms 0 (see concurrency.lua); settled by -1,
--             it gives its lease back; by 0, it renews it.
-- Nonsense arguments return an error naming the argument and its value, never a decision: every argument
-- is read before the first bucket, and every bucket before the first write, so an error writes nothing.

-- arguments.lua has read every bucket (stored) before this writes the first
-- with several clients, what this call wrote, by key: a client checked twice sees its first check's spend
local written = last and {}

-- per key at 4(i-1)+1..+4: the reply, and beside it (value, expire_at, unspent remaining, unspent
-- reset); made at their full size, as arguments.lua makes policy
local reply, pending
if n == 1 then
  reply, pending = { 0, 0, 0, 0 }, { 0, 0, 0, 0 }
elseif sized then
  reply, pending = { unpack(ARGV, 2, 1 + 4 * n) }, { unpack(ARGV, 2, 1 + 4 * n) }
else
  reply, pending = {}, {}
end

-- The latest key expiry written, in Unix ms: a debt can reach beyond what '%d' formats, and any moment this far
-- out means the same.
local FAR_MS = 2^53

local first = 1
for g = 1, last and clients or 1 do
  local stop = last and last[g] or n
  local all_allowed = true
  for i = first, stop do
    local r, p = 4 * (i - 1), 5 * (i - 1)
    reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4], pending[r + 1], pending[r + 2], pending[r + 3], pending[r + 4] =
      policy[p + 1](written and written[KEYS[i]] or stored[i], policy[p + 2], policy[p + 3], policy[p + 4], now,
        policy[p + 5], settled and settled[i])
    all_allowed = all_allowed and reply[r + 1] == 1
  end

  -- when every key allowed, all are written; else nothing is spent, and the keys that would allow report what
  -- they still hold; settled keys are written all the same (inline, not a function: one is built on every call)
  for i = first, stop do
    local r = 4 * (i - 1)
    if all_allowed or settled and settled[i] then
      local key, value = KEYS[i], pending[r + 1]
      -- nil: a settlement of 0, which writes nothing
      if value ~= nil then
        if leased and leased[i] and settled and settled[i] then
          local lease_id = string.format('%d', policy[5 * (i - 1) + 4])
          if pending[r + 2] then
            renew_lease(key, now, pending[r + 2], lease_id)
          else
            redis.call('ZREM', key, lease_id)
          end
          value = written and read_leases(key, now)
        elseif leased and leased[i] then
          value = take_lease(key, now, pending[r + 2], policy[5 * (i - 1) + 4], value)
        else
          local at = math.ceil(pending[r + 2] / 1000)
          if at > FAR_MS then
            at = FAR_MS
          end
          -- as text made by '%d': Redis formats a Lua number argument with '%.17g', about 1,300 more
          -- instructions per write (callgrind, bench/scripts/counter-scripts-instructions.sh)
          redis.call('SET', key, value, 'PXAT', string.format('%d', at))
        end
        if written then
          written[key] = value
        end
      end
    elseif reply[r + 1] == 1 then
      reply[r + 2], reply[r + 4] = pending[r + 3], pending[r + 4]
    end
  end
  first = stop + 1
end
return reply
