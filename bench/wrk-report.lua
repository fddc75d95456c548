-- Loaded by bench/wrk.ts for every load run (the same script for every target).
-- Counts answers outside 2xx per thread (wrk itself counts only status >= 400)
-- and prints one JSON line with the totals and latency percentiles in µs.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  non2xx = 0
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  end
end

function done(summary, latency, requests)
  local n = 0
  for _, t in ipairs(threads) do
    n = n + (t:get("non2xx") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%.0f,"durationUs":%.0f,"bytes":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,' ..
      '"status":%.0f,"timeout":%.0f,"non2xx":%.0f,"p50":%.0f,"p90":%.0f,"p99":%.0f,"max":%.0f,"mean":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout, n,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
