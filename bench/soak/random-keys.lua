-- wrk script: POST /orders/<n> with an API key drawn from KEYS distinct ones; counts answers by class.
local keys = tonumber(os.getenv("KEYS") or "100000")
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)
  ok, limited, errors = 0, 0, 0
end

function request()
  local n = math.random(1, keys)
  return wrk.format("POST", "/orders/" .. n, { ["X-API-Key"] = "soak-" .. n }, "")
end

function response(status, headers, body)
  if status == 429 then
    limited = limited + 1
  elseif status >= 200 and status < 300 then
    ok = ok + 1
  else
    errors = errors + 1
  end
end

function done(summary, latency, requests)
  local o, l, e = 0, 0, 0
  for _, t in ipairs(threads) do
    o, l, e = o + t:get("ok"), l + t:get("limited"), e + t:get("errors")
  end
  io.write(string.format("SOAK ok=%d limited=%d errors=%d socket_errors=%d p50_us=%d p99_us=%d\n", o, l, e,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99)))
end
