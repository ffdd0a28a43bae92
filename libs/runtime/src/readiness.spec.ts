import { describe, expect, it } from '@jest/globals';
import { summarize, type PartReport } from './readiness.js';

const ok = (name: string, required = true): PartReport => ({ name, problem: null, required });
const bad = (name: string, problem: string, required = true): PartReport => ({ name, problem, required });

describe('summarize (GET /readyz)', () => {
  it.each<[string, PartReport[], number, string, string[]]>([
    ['nothing to report', [], 200, 'ready', []],
    ['every part fine', [ok('database'), ok('nats'), ok('buffers', false)], 200, 'ready', []],
    ['a required part down', [bad('database', 'unreachable'), ok('nats')], 503, 'unavailable', ['database']],
    [
      'two required parts down, in order',
      [bad('nats', 'connecting'), ok('database'), bad('shutdown', 'shutting down')],
      503,
      'unavailable',
      ['nats', 'shutdown'],
    ],
    [
      'only an optional part with a problem',
      [ok('database'), bad('buffers', '12 results held', false)],
      200,
      'degraded',
      [],
    ],
    [
      'required and optional problems: unavailable wins',
      [bad('database', 'unreachable'), bad('buffers', '3 held', false)],
      503,
      'unavailable',
      ['database'],
    ],
  ])('%s', (_, parts, httpStatus, status, failing) => {
    const answer = summarize(parts);
    expect(answer.httpStatus).toBe(httpStatus);
    expect(answer.body.status).toBe(status);
    expect(answer.body.failing).toEqual(failing);
    expect(answer.body.checks).toEqual(Object.fromEntries(parts.map((p) => [p.name, p.problem ?? 'ok'])));
  });
});
