import { adversityBench } from './adversity.js';
import { apiBench } from './api.js';
import { agentBench } from './agent.js';
import { clusterBench } from './cluster.js';
import { dashboardBench } from './dashboard.js';
import { detectionBench } from './detection.js';
import { ingestBench } from './ingest.js';
import { intakeBench } from './intake.js';
import { listTextBench } from './list-text.js';
import { probeBench, probeMaxBench } from './probe.js';
import { scaleBench } from './scale.js';
import { schedulingBench } from './scheduling.js';

/** `npm run bench -- <name>`: one benchmark, its table printed and appended to docs/benchmarks.md. */
const BENCHMARKS: Record<string, () => Promise<void>> = {
  scheduling: schedulingBench,
  ingest: ingestBench,
  detection: detectionBench,
  adversity: adversityBench,
  probe: probeBench,
  'probe-max': probeMaxBench,
  scale: scaleBench,
  agent: agentBench,
  intake: intakeBench,
  dashboard: dashboardBench,
  cluster: clusterBench,
  api: apiBench,
  'list-text': listTextBench,
};

const name = process.argv[2] ?? '';
const bench = BENCHMARKS[name];
if (!bench) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(BENCHMARKS).join('|')}>\n`);
  process.exit(2);
}
await bench();
process.exit(0);
