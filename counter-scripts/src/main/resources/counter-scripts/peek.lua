-- peek: what each bucket holds now, without spending anything or changing any key (the gateway's explain).
-- The catalog sends a shebang with the flag no-writes (Redis refuses any write the script would try, and
-- runs it even when out of memory), the prelude, the algorithm files, arguments.lua, then this driver.
-- Each bucket is read as a check reads it (arguments.lua reads them all) and decided by its algorithm's own
-- decide, as a check of cost 1 would, and only the view of nothing spent is kept: the state the decision would
-- write is dropped.
--
-- KEYS, ARGV  as arguments.lua reads them, as for check: the bucket keys; now ("" = Redis TIME), five
--             policy arguments per key (the policy the bucket is read with; its cost or settlement is read and
--             checked, but nothing is spent, so it changes nothing), and per client its key count when several
-- Reply       a flat array of 3 x N integers, per key: exists (1 when the key is stored, 0 when it is
--             absent: it then peeks as full; a concurrency key: 1 when it holds a live lease), remaining
--             (whole units held now; negative when the bucket is in debt, -remaining being what it owes,
--             rounded up; a concurrency key: limit less its live leases, never below 0), reset_ms (as a
--             check reports it: until full; fixed window: until the current window ends; concurrency: 0)

local reply = {}
for i = 1, n do
  local r = 5 * (i - 1)
  local raw = stored[i]
  local _, _, _, _, _, _, held, reset_ms = policy[r + 1](raw, policy[r + 2], policy[r + 3], policy[r + 4], now, 1)
  local p = 3 * (i - 1)
  reply[p + 1], reply[p + 2], reply[p + 3] = raw and 1 or 0, held, reset_ms
end
return reply
