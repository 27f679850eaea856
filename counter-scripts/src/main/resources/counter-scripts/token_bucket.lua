-- token_bucket: rate = limit / period, capacity = burst; a new (or vanished) bucket starts full.
-- Stored value, one string per key: struct.pack('<c1ddd', 't', tokens, since_us, full_at_us), 25 bytes:
-- little-endian IEEE doubles, so nothing drifts, and packing is 3x cheaper than formatting text.
--   tokens      tokens held at since_us; below 0 when the bucket is in debt
--   since_us    when tokens was counted
--   full_at_us  when the bucket is full again; the key expires then, and a value read at or after
--               that moment counts as absent, so a stale key and a vanished one decide alike
-- Policy ARGV read: limit, period_ms, burst. A changed rate or burst applies from now on to what
-- the bucket holds (capped at the new burst): no free reset, no lost tokens.
-- Per-key reply: allowed, remaining, retry_after_ms, reset_ms; retry_after_ms is -1 when cost > burst
-- (that request can never pass). remaining is floor(tokens): -3 for a bucket holding -2.5.
-- Settlement of delta: tokens - delta, capped at burst; it may go below 0, and a check waits until the refill
-- brings it back to the check's cost.

-- Float noise: rate x elapsed can land a hair below a whole number (10 a second for 0.3 s gives
-- 2.9999999999999996 tokens). Tokens this close to whole count as whole, for the decision and for
-- remaining, so a client that waits exactly the refill time is allowed.
local TB_EPSILON = 1e-9

-- Beyond this many microseconds a double no longer counts them one by one (e + 1 == e).
local TB_HORIZON = 2^53

-- The smallest whole number of microseconds e >= 0 with tokens + e * rate + slack >= target. It is
-- checked with the very expression a later call evaluates, so float rounding never makes a promised
-- time short (nor, starting one below the estimate, long). Past the horizon (a debt refilled over ages)
-- the estimate stands.
local function tb_elapsed_until(tokens, target, rate, slack)
  local e = math.ceil((target - tokens) / rate) - 1
  if e < 0 then
    e = 0
  end
  while e < TB_HORIZON and tokens + e * rate + slack < target do
    e = e + 1
  end
  return e
end

ALGORITHMS.token_bucket = function(raw, limit, period_ms, burst, now, cost, settle)
  local rate = limit / (period_ms * 1000)
  local held, since, vanish = burst, now, nil
  if raw and #raw == 25 then
    local tag, t, s, f = struct.unpack('<c1ddd', raw)
    if tag == 't' and now < f then
      held, since, vanish = t, s, f
    end
  end
  -- min(burst, held + max(0, now - since) x rate), as comparisons: cheaper than math.min and math.max
  local tokens = held
  if now > since then
    tokens = held + (now - since) * rate
  end
  if tokens > burst then
    tokens = burst
  end
  if settle then
    -- cost is the delta
    local left = tokens - cost
    if left >= burst then
      -- capped at burst: full now, so no refill to wait for (tb_elapsed_until would answer 0)
      return 1, burst, 0, 0, cost ~= 0 and struct.pack('<c1ddd', 't', burst, now, now) or nil, now
    end
    local full_at = now + tb_elapsed_until(left, burst, rate, 0)
    local value = cost ~= 0 and struct.pack('<c1ddd', 't', left, now, full_at) or nil
    return 1, math.floor(left + TB_EPSILON), 0, math.ceil((full_at - now) / 1000), value, full_at
  end
  local reset_ms = 0
  if tokens < burst then
    reset_ms = math.ceil(tb_elapsed_until(tokens, burst, rate, 0) / 1000)
  end
  if cost <= tokens + TB_EPSILON then
    -- max(0, tokens - cost): a hair below cost counts as cost
    local left = tokens - cost
    if left < 0 then
      left = 0
    end
    local full_at = now + tb_elapsed_until(left, burst, rate, 0)
    return 1, math.floor(left + TB_EPSILON), 0, math.ceil((full_at - now) / 1000),
      struct.pack('<c1ddd', 't', left, now, full_at), full_at, math.floor(tokens + TB_EPSILON), reset_ms
  end
  local retry_ms = -1
  if cost <= burst then
    -- the moment the stored tokens reach cost (a debt repaid first), or the key vanishes (then it is full)
    local ready_at = math.min(vanish, since + tb_elapsed_until(held, cost, rate, TB_EPSILON))
    retry_ms = math.ceil((ready_at - now) / 1000)
  end
  local remaining = math.floor(tokens + TB_EPSILON)
  return 0, remaining, retry_ms, reset_ms, nil, nil, remaining, reset_ms
end
