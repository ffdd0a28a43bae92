import { afterEach, describe, expect, it } from '@jest/globals';
import { Logger, type ArgumentsHost } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { CapturingLogger } from '../../../../test/support/coordinator.js';
import { ErrorFilter } from './error.filter.js';
import { outageLine } from './outage-line.js';
import { RouteTable } from './route-table.js';

/** What the pg driver throws when every address of the host refuses: no message, the code, the causes. */
function refusedEverywhere(): AggregateError {
  const causes = ['::1', '127.0.0.1'].map((host) =>
    Object.assign(new Error(`connect ECONNREFUSED ${host}:5432`), { code: 'ECONNREFUSED' }),
  );
  return Object.assign(new AggregateError(causes), { code: 'ECONNREFUSED' });
}

/** A server-side termination as TypeORM wraps it: a QueryFailedError around the driver's error. */
function terminated(): QueryFailedError {
  const driver = Object.assign(new Error('terminating connection due to administrator command\nDETAIL: x'), {
    code: '57P01',
  });
  return new QueryFailedError('SELECT 1', [], driver);
}

/** Runs the filter on one exception for `GET /api/monitors` (request `req-1`); returns the log lines. */
function logged(exception: unknown): { lines: string[]; status: number } {
  const logger = new CapturingLogger();
  Logger.overrideLogger(logger);
  let status = 0;
  const reply = {
    status(code: number) {
      status = code;
      return reply;
    },
    headers: () => reply,
    header: () => reply,
    send: () => reply,
  };
  const request = { method: 'GET', url: '/api/monitors', id: 'req-1' };
  const host = {
    switchToHttp: () => ({ getResponse: () => reply, getRequest: () => request }),
  } as unknown as ArgumentsHost;
  new ErrorFilter(new RouteTable()).catch(exception, host);
  return { lines: logger.lines, status };
}

describe('outage log lines', () => {
  afterEach(() => {
    Logger.overrideLogger(false);
  });

  it.each([
    ['a refused connection (AggregateError)', refusedEverywhere, /ECONNREFUSED: connect ECONNREFUSED ::1:5432/],
    [
      'a terminated connection (QueryFailedError)',
      terminated,
      /57P01: terminating connection due to administrator command DETAIL: x/,
    ],
  ])('%s: one warning, with the request id, the code and the message, no stack', (_what, make, text) => {
    const { lines, status } = logged(make());
    expect(status).toBe(503);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warn GET \/api\/monitors \(request req-1\): dependency unavailable: /);
    expect(lines[0]).toMatch(text);
    expect(lines[0]).not.toMatch(/\n|\bat /);
  });

  it('a bug (500) keeps its stack, with the request id', () => {
    const { lines, status } = logged(new TypeError('cannot read properties of undefined'));
    expect(status).toBe(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error GET \/api\/monitors \(request req-1\): TypeError: cannot read/);
    expect(lines[0]).toMatch(/\n\s+at /);
  });

  it('outageLine bounds what a driver says', () => {
    const line = outageLine(Object.assign(new Error('x'.repeat(1000)), { code: 'ECONNRESET' }));
    expect(line.length).toBeLessThanOrEqual(300);
    expect(line).toMatch(/^ECONNRESET: x+…$/);
  });
});
