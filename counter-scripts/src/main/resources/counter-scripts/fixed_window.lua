-- fixed_window: at most limit per window of period_ms; windows are aligned to multiples of the period.
-- Stored value, one string per key: struct.pack('<c1dd', 'f', window_end_us, count), 17 bytes:
--   window_end_us  the end of the window counted; the key expires then; a value for any other
--                  window end counts as absent (count 0)
--   count          cost spent in that window; above limit when a settlement put the window in debt
-- Policy ARGV read: limit, period_ms (burst is ignored). A changed limit applies to the count so far;
-- a changed period starts a fresh count unless the window ends at the same moment.
-- Per-key reply: allowed, remaining (limit - count: negative in debt), retry_after_ms, reset_ms (the end of
-- the window); retry_after_ms is -1 when cost > limit.
-- Settlement of delta: the window's count grows by delta (beyond limit, if so), or shrinks, never below 0; a
-- debt ends with its window.

ALGORITHMS.fixed_window = function(raw, limit, period_ms, burst, now, cost, settle)
  local period = period_ms * 1000
  local window_end = now - now % period + period
  local count = 0
  if raw and #raw == 17 then
    local tag, e, c = struct.unpack('<c1dd', raw)
    if tag == 'f' and e == window_end then
      count = c
    end
  end
  local reset_ms = math.ceil((window_end - now) / 1000)
  if settle then
    -- cost is the delta
    count = math.max(0, count + cost)
    return 1, limit - count, 0, reset_ms, cost ~= 0 and struct.pack('<c1dd', 'f', window_end, count) or nil,
      window_end
  end
  local left_unspent = limit - count
  if count + cost <= limit then
    return 1, limit - count - cost, 0, reset_ms,
      struct.pack('<c1dd', 'f', window_end, count + cost), window_end, left_unspent, reset_ms
  end
  local retry_ms = reset_ms
  if cost > limit then
    retry_ms = -1
  end
  return 0, left_unspent, retry_ms, reset_ms, nil, nil, left_unspent, reset_ms
end
