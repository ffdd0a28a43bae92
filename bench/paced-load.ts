import { Agent, request } from 'node:http';
import { atFixedRate, percentile } from './report.js';

/**
 * An open-loop load for the scale benchmark: GET `url` at a fixed `rate` per second for
 * `seconds`, each request sent at its due time whether or not the earlier ones have been
 * answered (keep-alive connections, as many as needed), and its latency counted from that due
 * time, so a stall of the server shows up in every request it delayed instead of in one request
 * of each of wrk's 16 waiting connections (docs/decisions/0048-api-latency-at-a-fixed-rate.md).
 * The first 2 s are a warm-up at the same rate, not counted but for its slowest answer. Prints one
 * JSON line: requests answered per second, p50, p99 and max latency in ms, errors, the warm-up's max.
 * Run in its own process so the bench's own event loop (the probed target lives there) cannot
 * delay a send. Usage: [PACED_API_KEY=…] paced-load <url> <rate> <seconds>. With PACED_TRACE=1 it also
 * writes each answer slower than 40 ms to stderr as `slow <due time, ms since the epoch> <ms>`,
 * to be matched against the coordinator's own logs.
 */
const [url = '', rateText, secondsText] = process.argv.slice(2);
const apiKey = process.env.PACED_API_KEY;
const rate = Number(rateText);
const seconds = Number(secondsText);
const WARMUP_MS = 2000;
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const headers: Record<string, string> = { 'accept-encoding': 'gzip' };
if (apiKey) headers.authorization = `Bearer ${apiKey}`;

const latencies: number[] = [];
let errors = 0;
let warmupMax = 0;
// The first requests open the connections and meet code the server has not compiled yet (it has
// served no request while the benchmark waited): counted from WARMUP_MS on, after the same load.
const started = Date.now();
const counted = started + WARMUP_MS;
await atFixedRate(
  rate,
  seconds + WARMUP_MS / 1000,
  (_i, due) =>
    new Promise<void>((resolve) => {
      const req = request(url, { agent, headers }, (res) => {
        res.on('data', () => undefined);
        res.on('end', () => {
          const latency = Date.now() - due;
          if (res.statusCode !== 200) errors++;
          else if (due >= counted) latencies.push(latency);
          else warmupMax = Math.max(warmupMax, latency);
          if (process.env.PACED_TRACE && latency > 40) process.stderr.write(`slow ${due} ${latency}\n`);
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end();
    }),
);
const elapsed = (Date.now() - counted) / 1000;
agent.destroy();
latencies.sort((a, b) => a - b);
process.stdout.write(
  `${JSON.stringify({
    'requests/s': Math.round(latencies.length / elapsed),
    'p50 ms': percentile(latencies, 50),
    'p99 ms': percentile(latencies, 99),
    'max ms': latencies.at(-1) ?? 0,
    errors,
    'warm-up max ms': warmupMax,
  })}\n`,
);
