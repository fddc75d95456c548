-- Loaded by bench/wrk.ts for every load run (the same script for every target).
-- Prints one JSON line with the totals and latency percentiles in µs.
--
-- No `response()` hook: with one, wrk builds a Lua table of every answer's
-- headers and copies its body into Lua, per answer, on the generator's core.
-- That cost grows with the header count, so a hook made the generator slower
-- on answers carrying the service's 13 headers than on bare node:http's two,
-- and a reference sending the same headers measured the generator rather than
-- Node. Non-2xx answers are wrk's own status count (status >= 400): the bench
-- sends no conditional header, so no 304 or other 3xx can come back, and every
-- URL is checked to answer 200 before the load.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%.0f,"durationUs":%.0f,"bytes":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,' ..
      '"status":%.0f,"timeout":%.0f,"p50":%.0f,"p90":%.0f,"p99":%.0f,"max":%.0f,"mean":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
