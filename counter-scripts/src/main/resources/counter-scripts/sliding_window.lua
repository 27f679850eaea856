-- sliding_window: two weighted fixed windows, as Cloudflare counts:
--   estimate = previous * (1 - elapsed_in_window / window) + current; allowed when estimate + cost <= limit
--   (within 1e-9, float noise).
-- Stored value, one string per key: struct.pack('<c1dddd', 's', window_start_us, period_us, previous,
-- current), 33 bytes:
--   window_start_us  start of the current window (aligned to multiples of the period)
--   period_us        the window length it was counted with; a changed period starts afresh
--   previous         count of the window before it
--   current          count of this window
-- The key expires when the window after the current one ends: from then on both counts are 0.
-- Policy ARGV read: limit, period_ms (burst is ignored).
-- Per-key reply: allowed, remaining (limit - estimate, whole: negative in debt), retry_after_ms, reset_ms
-- (until the estimate is back to 0); retry_after_ms is -1 when cost > limit.
-- Settlement of delta: the current window's count grows by delta (the estimate beyond limit, if so); a
-- negative one is given back from the current window's count, then from the previous one's, neither below 0.
-- A debt weighs as long as the windows counting it do.

-- Float noise: 10 x (1 - 0.7) is 3.0000000000000004; an estimate this close to whole counts as whole.
local SW_EPSILON = 1e-9

-- The estimate at time t from the counts of the window starting at start.
local function sw_estimate(start, previous, current, period, t)
  local s = t - t % period
  if s == start then
    return previous * (1 - (t - s) / period) + current
  elseif s == start + period then
    return current * (1 - (t - s) / period) + 0
  end
  return 0
end

-- How long until the estimate is 0: the end of the last window that holds a count.
local function sw_reset_ms(start, previous, current, period, now)
  if current > 0 then
    return math.ceil((start + 2 * period - now) / 1000)
  elseif previous > 0 then
    return math.ceil((start + period - now) / 1000)
  end
  return 0
end

ALGORITHMS.sliding_window = function(raw, limit, period_ms, burst, now, cost, settle)
  local period = period_ms * 1000
  local start = now - now % period
  local previous, current = 0, 0
  if raw and #raw == 33 then
    local tag, s, p, a, b = struct.unpack('<c1dddd', raw)
    if tag == 's' and p == period then
      if s == start then
        previous, current = a, b
      elseif s == start - period then
        previous = b
      end
    end
  end
  if settle then
    -- cost is the delta
    if cost >= 0 then
      current = current + cost
    else
      local back = math.min(current, -cost)
      current = current - back
      previous = math.max(0, previous + cost + back)
    end
    return 1, math.floor(limit - sw_estimate(start, previous, current, period, now) + SW_EPSILON), 0,
      sw_reset_ms(start, previous, current, period, now),
      cost ~= 0 and struct.pack('<c1dddd', 's', start, period, previous, current) or nil, start + 2 * period
  end
  local estimate = sw_estimate(start, previous, current, period, now)
  local left_unspent = math.floor(limit - estimate + SW_EPSILON)
  local reset_ms = sw_reset_ms(start, previous, current, period, now)
  if estimate + cost <= limit + SW_EPSILON then
    return 1, math.max(0, math.floor(limit - estimate - cost + SW_EPSILON)), 0, sw_reset_ms(start, previous, current + cost, period, now),
      struct.pack('<c1dddd', 's', start, period, previous, current + cost), start + 2 * period,
      left_unspent, reset_ms
  end
  local retry_ms = -1
  if cost <= limit then
    -- solve the weighting for the first moment it allows, then confirm it with sw_estimate
    local ready_at
    if previous > 0 and current + cost <= limit then
      ready_at = start + period * (1 - (limit - current - cost) / previous)
    else
      ready_at = start + period + period * (1 - (limit - cost) / current)
    end
    retry_ms = math.max(1, math.ceil((ready_at - now) / 1000))
    while sw_estimate(start, previous, current, period, now + retry_ms * 1000) + cost > limit + SW_EPSILON do
      retry_ms = retry_ms + 1
    end
  end
  return 0, left_unspent, retry_ms, reset_ms, nil, nil, left_unspent, reset_ms
end
