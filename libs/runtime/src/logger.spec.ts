import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { createLevelLogger, LOG_LEVELS } from './logger.js';

function printed(write: () => void): string {
  let output = '';
  const keep = (chunk: string | Uint8Array) => {
    output += String(chunk);
    return true;
  };
  jest.spyOn(process.stdout, 'write').mockImplementation(keep);
  jest.spyOn(process.stderr, 'write').mockImplementation(keep);
  try {
    write();
  } finally {
    jest.restoreAllMocks();
  }
  return output;
}

describe('createLevelLogger', () => {
  it.each([
    ['debug', ['error', 'warn', 'info', 'debug']],
    ['info', ['error', 'warn', 'info']],
    ['warn', ['error', 'warn']],
    ['error', ['error']],
  ] as const)('%s prints %j', (level, shown) => {
    const logger = createLevelLogger(level, { json: true });
    const output = printed(() => {
      logger.error('an error', 'Test');
      logger.warn('a warning', 'Test');
      logger.log('a line', 'Test');
      logger.debug?.('a debug line', 'Test');
    });
    const levels = output
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { level: string }).level);
    expect(levels).toEqual(shown);
  });

  it("shows Nest's boot chatter at debug only", () => {
    for (const level of LOG_LEVELS) {
      const output = printed(() =>
        createLevelLogger(level).log('AppModule dependencies initialized', 'InstanceLoader'),
      );
      expect(`${level}: ${output.includes('AppModule dependencies initialized')}`).toBe(
        `${level}: ${level === 'debug'}`,
      );
    }
  });

  it('names JSON levels as LOG_LEVEL does: info for log lines, debug for verbose ones, fatal and error kept', () => {
    const logger = createLevelLogger('debug', { json: true });
    const output = printed(() => {
      logger.fatal?.('a fatal line', 'Test');
      logger.error('an error', 'Test');
      logger.warn('a warning', 'Test');
      logger.log('a line', 'Test');
      logger.debug?.('a debug line', 'Test');
      logger.verbose?.('a verbose line', 'Test');
    });
    const records = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: string; message: string });
    expect(records.map((r) => [r.level, r.message])).toEqual([
      ['fatal', 'a fatal line'],
      ['error', 'an error'],
      ['warn', 'a warning'],
      ['info', 'a line'],
      ['debug', 'a debug line'],
      ['debug', 'a verbose line'],
    ]);
  });

  describe('colours', () => {
    const ANSI = new RegExp(String.fromCharCode(27) + '\\[');
    const everyLevel = (logger: ReturnType<typeof createLevelLogger>) =>
      printed(() => {
        logger.error('an error', 'Test');
        logger.warn('a warning', 'Test');
        logger.log('a line', 'Test');
      });
    let noColor: string | undefined;
    beforeEach(() => {
      noColor = process.env['NO_COLOR'];
      delete process.env['NO_COLOR'];
    });
    afterEach(() => {
      if (noColor === undefined) delete process.env['NO_COLOR'];
      else process.env['NO_COLOR'] = noColor;
    });

    it('text into a file or pipe (stdout not a TTY) carries no escape codes', () => {
      expect(everyLevel(createLevelLogger('info', { isTTY: false }))).not.toMatch(ANSI);
    });

    it('decides from process.stdout when not told', () => {
      const descriptor = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
      Object.defineProperty(process.stdout, 'isTTY', { value: false, configurable: true, writable: true });
      try {
        expect(everyLevel(createLevelLogger('info'))).not.toMatch(ANSI);
      } finally {
        if (descriptor) Object.defineProperty(process.stdout, 'isTTY', descriptor);
        else delete (process.stdout as { isTTY?: boolean }).isTTY;
      }
    });

    it('text on a terminal is coloured, unless NO_COLOR is set', () => {
      expect(everyLevel(createLevelLogger('info', { isTTY: true }))).toMatch(ANSI);
      process.env['NO_COLOR'] = '1';
      expect(everyLevel(createLevelLogger('info', { isTTY: true }))).not.toMatch(ANSI);
    });

    it('JSON is never coloured, on a terminal either', () => {
      const output = everyLevel(createLevelLogger('info', { json: true, isTTY: true }));
      expect(output).not.toMatch(ANSI);
      for (const line of output.trim().split('\n')) expect(() => JSON.parse(line) as unknown).not.toThrow();
    });
  });
});
