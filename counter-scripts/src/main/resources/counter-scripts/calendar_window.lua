-- calendar_window: at most limit per calendar window (a day, an ISO week, a month in a time zone), whose end
-- the caller works out and passes: the gateway's rule says "fixed_window" with "calendar", and its bucket key
-- names the window, so the key changes at the boundary.
-- Stored value, one string per key: struct.pack('<c1dd', 'c', window_end_us, count), 17 bytes:
--   window_end_us  the end of the window counted; the key expires then; a value for any other end, or read
--                  once that end has passed, counts as absent (count 0)
--   count          cost spent in that window; above limit when a settlement put the window in debt
-- Policy ARGV read: limit, and in period_ms's place the window's END in whole Unix seconds (burst is
-- ignored). A changed limit applies to the count so far.
-- Per-key reply: allowed, remaining (limit - count: negative in debt), retry_after_ms, reset_ms (the end of
-- the window, never below 0); retry_after_ms is -1 when cost > limit. When the caller's clock is behind
-- Redis's, the window may already be over by Redis's: the request counts in nothing, and the key is written
-- to expire a millisecond from now.
-- Settlement of delta: the window's count grows by delta (beyond limit, if so), or shrinks, never below 0; a
-- debt ends with its window.

ALGORITHMS.calendar_window = function(raw, limit, end_s, burst, now, cost, settle)
  local window_end = end_s * 1000000
  local count = 0
  if raw and #raw == 17 then
    local tag, e, c = struct.unpack('<c1dd', raw)
    if tag == 'c' and e == window_end and now < window_end then
      count = c
    end
  end
  local reset_ms = math.max(0, math.ceil((window_end - now) / 1000))
  if settle then
    -- cost is the delta
    count = math.max(0, count + cost)
    return 1, limit - count, 0, reset_ms, cost ~= 0 and struct.pack('<c1dd', 'c', window_end, count) or nil,
      math.max(window_end, now + 1000)
  end
  local left_unspent = limit - count
  if count + cost <= limit then
    return 1, limit - count - cost, 0, reset_ms,
      struct.pack('<c1dd', 'c', window_end, count + cost), math.max(window_end, now + 1000), left_unspent, reset_ms
  end
  local retry_ms = math.max(1, reset_ms)
  if cost > limit then
    retry_ms = -1
  end
  return 0, left_unspent, retry_ms, reset_ms, nil, nil, left_unspent, reset_ms
end
