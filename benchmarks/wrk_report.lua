-- wrk script of bench_serve.py: counts answers by status class and prints one JSON line at the
-- end ("wrk-report: {...}") with requests/s and the p50/p99 latency, for the benchmark to read.
--
--   wrk ... -s wrk_report.lua URL                      GET URL
--   wrk ... -s wrk_report.lua URL -- bodies.jsonl      POST each line of the file in turn
--
-- Each wrk thread runs its own copy of this script; setup() keeps the threads so that done()
-- can add up their counters.

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

local requests = {}
local next_request = 1

function init(args)
   s1, s2, s3, s4, s5 = 0, 0, 0, 0, 0
   if args[1] == nil then
      return
   end
   local file = assert(io.open(args[1], "r"))
   local headers = { ["Content-Type"] = "application/json" }
   for line in file:lines() do
      if line ~= "" then
         table.insert(requests, wrk.format("POST", nil, headers, line))
      end
   end
   file:close()
   assert(#requests > 0, "no request bodies in " .. args[1])
end

function request()
   if #requests == 0 then
      return wrk.format()
   end
   local chosen = requests[next_request]
   next_request = next_request % #requests + 1
   return chosen
end

function response(status, headers, body)
   if status < 200 then
      s1 = s1 + 1
   elseif status < 300 then
      s2 = s2 + 1
   elseif status < 400 then
      s3 = s3 + 1
   elseif status < 500 then
      s4 = s4 + 1
   else
      s5 = s5 + 1
   end
end

function done(summary, latency, _)
   local counts = { 0, 0, 0, 0, 0 }
   for _, thread in ipairs(threads) do
      for class = 1, 5 do
         counts[class] = counts[class] + (thread:get("s" .. class) or 0)
      end
   end
   local errors = summary.errors
   local seconds = summary.duration / 1e6
   io.write(string.format(
      'wrk-report: {"requests": %d, "seconds": %.3f, "per_second": %.1f, '
         .. '"p50_ms": %.3f, "p99_ms": %.3f, "max_ms": %.3f, '
         .. '"status": {"1xx": %d, "2xx": %d, "3xx": %d, "4xx": %d, "5xx": %d}, '
         .. '"socket_errors": %d}\n',
      summary.requests, seconds, summary.requests / seconds,
      latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
      counts[1], counts[2], counts[3], counts[4], counts[5],
      errors.connect + errors.read + errors.write + errors.timeout
   ))
end
