-- Loaded by bench/wrk.ts for every load run (the same script for every target):
-- one JSON line with the totals and the latency percentiles in µs.
-- No `response()` hook: with one, wrk copies every answer's headers and body
-- into Lua on the generator's core, a cost that grows with the header count,
-- and the same-headers reference would then measure the generator, not Node.
-- Non-2xx is wrk's status count (>= 400): the bench sends no conditional
-- header, so no 3xx can come back.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%.0f,"durationUs":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,' ..
      '"status":%.0f,"timeout":%.0f,"p50":%.0f,"p99":%.0f,"max":%.0f}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
