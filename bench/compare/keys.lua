-- wrk script of the request comparison: GET <PATH> with an X-API-Key drawn at random from KEYS distinct
-- ones (or always FIXED_KEY), optionally paced to RATE requests/s over all threads, and one summary line.
--
-- env: PATH_TO [/x]  KEYS [10000]  KEY_PREFIX [k]  FIXED_KEY []  RATE [0 = as fast as the connections go]
--      THREADS [must equal wrk -t when RATE is set: each thread sends RATE / THREADS a second]
-- prints: RESULT requests=N duration_us=N rps=N p50_us=N p99_us=N p999_us=N max_us=N non2xx=N socket_errors=N
--
-- The requests are built once per thread (wrk.format per request would cost wrk CPU that the gateway
-- under test then lacks). Pacing: each thread keeps an absolute schedule, request k is due at
-- start + k / (RATE / THREADS) and delay() holds a connection until its request is due (millisecond
-- resolution, LuaJIT FFI clock_gettime). wrk times a request from the moment it is written, so latency
-- is service time at that offered rate, not corrected for coordinated omission as wrk2 would be.
local path = os.getenv("PATH_TO") or "/x"
local keys = tonumber(os.getenv("KEYS") or "10000")
local prefix = os.getenv("KEY_PREFIX") or "k"
local fixed = os.getenv("FIXED_KEY")
if fixed == "" then fixed = nil end
local rate = tonumber(os.getenv("RATE") or "0")
local threads = tonumber(os.getenv("THREADS") or "1")

local all = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(all, thread)
end

local requests, n
local ffi, ts, interval_ms, start_ms, sent

local function now_ms()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

function init(args)
  math.randomseed(os.time() * 1000 + (id or 0))
  requests = {}
  if fixed then
    requests[1] = wrk.format("GET", path, { ["X-API-Key"] = fixed })
  else
    for i = 1, keys do
      requests[i] = wrk.format("GET", path, { ["X-API-Key"] = prefix .. i })
    end
  end
  n = #requests
  if rate > 0 then
    ffi = require("ffi")
    ffi.cdef [[
      typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
      int clock_gettime(int clock, bench_timespec *tp);
    ]]
    ts = ffi.new("bench_timespec")
    interval_ms = 1000 / (rate / threads)
    sent = 0
  end
end

function request()
  if n == 1 then return requests[1] end
  return requests[math.random(n)]
end

if rate > 0 then
  function delay()
    local now = now_ms()
    if not start_ms then start_ms = now end
    local due = start_ms + sent * interval_ms
    sent = sent + 1
    if due <= now then return 0 end
    return math.floor(due - now)
  end
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d duration_us=%d rps=%.0f p50_us=%d p99_us=%d p999_us=%d max_us=%d non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max,
    e.status, e.connect + e.read + e.write + e.timeout))
end
