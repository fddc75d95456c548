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
-- The latency distribution as percentiles on a fixed grid (every 1 % to 95, then
-- every 0.05 %, and the maximum): bench/load.ts merges a target's one-second slices of a round
-- into one distribution with it (mergeQuantiles), so that a round's p99 is the
-- p99 of all its answers, not a statistic of the slices' own p99s.
local GRID = {}
for p = 1, 95 do GRID[#GRID + 1] = p end
for i = 1, 99 do GRID[#GRID + 1] = (9500 + 5 * i) / 100 end

function done(summary, latency, requests)
  local e = summary.errors
  local q = {}
  if summary.requests > 0 then
    for i, p in ipairs(GRID) do q[i] = string.format('[%.2f,%.0f]', p, latency:percentile(p)) end
    -- wrk's percentile(100) finds no rank (it rounds count + 0.5 up): the maximum is the 100th.
    q[#q + 1] = string.format('[100,%.0f]', latency.max)
  end
  io.write(string.format(
    'BENCH_JSON {"requests":%.0f,"durationUs":%.0f,"bytes":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,' ..
      '"status":%.0f,"timeout":%.0f,"p50":%.0f,"p90":%.0f,"p99":%.0f,"max":%.0f,"mean":%.1f,"quantiles":[%s]}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean,
    table.concat(q, ',')))
end
