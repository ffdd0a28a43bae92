import { describe, expect, it, jest } from '@jest/globals';
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
    ['debug', ['error', 'warn', 'log', 'debug']],
    ['info', ['error', 'warn', 'log']],
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
});
