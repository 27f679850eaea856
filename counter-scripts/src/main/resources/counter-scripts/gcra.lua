-- gcra: generic cell rate algorithm; emission interval = period / limit, capacity = burst requests.
-- Stored value, one string per key: struct.pack('<c1ddd', 'g', tat_us, interval_us, burst), 25 bytes
-- of little-endian IEEE doubles (exact, and cheaper than text):
--   tat_us       theoretical arrival time: the bucket is full again then, and the key expires then;
--                a value whose tat has passed counts as absent (full), like a vanished key
--   interval_us  the emission interval it was written with, and
--   burst        the capacity it was written with: when either changed, the bucket's holding is
--                converted, so it keeps what it holds, capped at the new burst
-- Policy ARGV read: limit, period_ms, burst.
-- Per-key reply: allowed, remaining, retry_after_ms, reset_ms; retry_after_ms is -1 when cost > burst.

-- The tat at time now from a stored value, converting it when the policy changed.
local function gcra_tat(tat, old_interval, old_burst, now, interval, burst)
  if not tat or tat <= now then
    return now
  end
  if old_interval == interval and old_burst == burst then
    return tat
  end
  local held = math.min(burst, old_burst - (tat - now) / old_interval)
  return now + (burst - held) * interval
end

ALGORITHMS.gcra = function(raw, limit, period_ms, burst, now, cost)
  local interval = period_ms * 1000 / limit
  local cap = burst * interval
  local a, i, b
  if raw and #raw == 25 then
    local tag
    tag, a, i, b = struct.unpack('<c1ddd', raw)
    if tag ~= 'g' then
      a = nil
    end
  end
  local tat = gcra_tat(a, i, b, now, interval, burst)
  local new_tat = tat + cost * interval
  local allow_at = new_tat - cap
  local left_unspent = math.floor((cap - (tat - now)) / interval)
  local reset_ms = math.ceil((tat - now) / 1000)
  if now >= allow_at then
    return 1, math.max(0, math.floor((cap - (new_tat - now)) / interval)), 0, math.ceil((new_tat - now) / 1000),
      struct.pack('<c1ddd', 'g', new_tat, interval, burst), new_tat, left_unspent, reset_ms
  end
  local retry_ms = -1
  if cost <= burst then
    retry_ms = math.ceil((allow_at - now) / 1000)
    -- a converted tat depends on now: confirm the promised moment with the very same arithmetic
    local later = now + retry_ms * 1000
    while later < gcra_tat(a, i, b, later, interval, burst) + cost * interval - cap do
      retry_ms = retry_ms + 1
      later = now + retry_ms * 1000
    end
  end
  return 0, math.max(0, left_unspent), retry_ms, reset_ms, nil, nil, math.max(0, left_unspent), reset_ms
end
