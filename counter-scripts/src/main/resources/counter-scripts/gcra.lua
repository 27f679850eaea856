-- gcra: generic cell rate algorithm; emission interval = period / limit, capacity = burst requests.
-- The theoretical arrival time (tat) is kept as since_us + debt_us: a debt relative to the last write
-- keeps float noise at the scale of the debt, not of a Unix time in µs (where one step is 0.25 µs).
-- Stored value, one string per key: struct.pack('<c1dddd', 'g', since_us, debt_us, interval_us, burst),
-- 33 bytes of little-endian IEEE doubles (exact, and cheaper than text):
--   since_us     when the value was written
--   debt_us      tat - since_us: how much of the capacity (burst x interval) was in use then, beyond it
--                when a settlement put the bucket in debt; the key expires at since_us + debt_us, when the
--                bucket is full again; a debt paid off counts as absent (full), like a vanished key
--   interval_us  the emission interval it was written with, and
--   burst        the capacity it was written with: when either changed, the bucket's holding is
--                converted, so it keeps what it holds, capped at the new burst
-- Policy ARGV read: limit, period_ms, burst.
-- Per-key reply: allowed, remaining, retry_after_ms, reset_ms; retry_after_ms is -1 when cost > burst.
-- remaining is what the capacity holds beyond the debt, in whole requests: negative in debt.
-- Settlement of delta: the debt grows by delta x interval (beyond the capacity, if so), or shrinks, never
-- below 0 (full).

-- Requests this close to whole count as whole (float noise), for the decision and for remaining.
local GCRA_EPSILON = 1e-9

-- Beyond this many milliseconds a double no longer counts them one by one (ms + 1 == ms).
local GCRA_HORIZON = 2^53

-- The debt at now from a stored value, converted when the policy changed.
local function gcra_debt(since, debt, old_interval, old_burst, now, interval, burst)
  if not since then
    return 0
  end
  local d = debt - (now - since)
  if d <= 0 then
    return 0
  end
  if old_interval == interval and old_burst == burst then
    return d
  end
  local held = math.min(burst, old_burst - d / old_interval)
  return (burst - held) * interval
end

-- Whether a check of cost fits ms milliseconds from now.
local function gcra_fits(s, d, i, b, now, ms, interval, burst, cost, cap)
  return (cap - (gcra_debt(s, d, i, b, now + ms * 1000, interval, burst) + cost * interval)) / interval
    + GCRA_EPSILON >= 0
end

-- The first whole millisecond from now at which a check of cost fits, over new_debt - cap of debt too much.
-- The debt falls a microsecond per microsecond, or as a converted one at interval / old_interval, until the
-- stored one is paid (then it is 0): the estimate is that moment, confirmed (and moved by the odd millisecond)
-- with the arithmetic a later call runs. Past the horizon (a debt repaid over ages) the estimate stands.
local function gcra_retry_ms(s, d, i, b, now, interval, burst, cost, cap, new_debt)
  local wait = new_debt - cap
  if s and not (i == interval and b == burst) then
    wait = math.min(wait * i / interval, s + d - now)
  end
  local ms = math.max(1, math.ceil(wait / 1000))
  if ms >= GCRA_HORIZON then
    return ms
  end
  while ms > 1 and gcra_fits(s, d, i, b, now, ms - 1, interval, burst, cost, cap) do
    ms = ms - 1
  end
  while not gcra_fits(s, d, i, b, now, ms, interval, burst, cost, cap) do
    ms = ms + 1
  end
  return ms
end

ALGORITHMS.gcra = function(raw, limit, period_ms, burst, now, cost, settle)
  local interval = period_ms * 1000 / limit
  local cap = burst * interval
  local s, d, i, b
  if raw and #raw == 33 then
    local tag
    tag, s, d, i, b = struct.unpack('<c1dddd', raw)
    if tag ~= 'g' then
      s = nil
    end
  end
  local debt = gcra_debt(s, d, i, b, now, interval, burst)
  if settle then
    -- cost is the delta
    local settled = math.max(0, debt + cost * interval)
    local value = cost ~= 0 and struct.pack('<c1dddd', 'g', now, settled, interval, burst) or nil
    return 1, math.floor((cap - settled) / interval + GCRA_EPSILON), 0, math.ceil(settled / 1000), value,
      now + settled
  end
  local new_debt = debt + cost * interval
  -- whole requests left after this one: negative when it does not fit
  local left = (cap - new_debt) / interval + GCRA_EPSILON
  local left_unspent = math.floor((cap - debt) / interval + GCRA_EPSILON)
  local reset_ms = math.ceil(debt / 1000)
  if left >= 0 then
    return 1, math.floor(left), 0, math.ceil(new_debt / 1000),
      struct.pack('<c1dddd', 'g', now, new_debt, interval, burst), now + new_debt, left_unspent, reset_ms
  end
  local retry_ms = -1
  if cost <= burst then
    retry_ms = gcra_retry_ms(s, d, i, b, now, interval, burst, cost, cap, new_debt)
  end
  return 0, left_unspent, retry_ms, reset_ms, nil, nil, left_unspent, reset_ms
end
