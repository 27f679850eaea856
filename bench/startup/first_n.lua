-- wrk script of bench/startup/warmup.sh: GET /items/<n> with one of 50 API keys, and the thread stops after
-- COUNT answers (wrk -t1 -cC -dD -s first_n.lua URL -- COUNT; wrk itself still runs for D seconds, idle).
-- Prints one line: "<answers> <non-2xx answers> <p50 µs> <p99 µs> <max µs>".
local count, answers, n = 1000, 0, 0

function init(args)
  count = tonumber(args[1]) or count
end

function request()
  n = n + 1
  return wrk.format("GET", "/items/" .. n, { ["X-API-Key"] = "bench-" .. (n % 50) })
end

function response(status)
  answers = answers + 1
  if answers >= count then
    wrk.thread:stop()
  end
end

function done(summary, latency)
  io.write(string.format("%d %d %.0f %.0f %.0f\n", summary.requests, summary.errors.status,
    latency:percentile(50), latency:percentile(99), latency.max))
end
