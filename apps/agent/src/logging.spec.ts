import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { createAgentApp } from './app.js';
import { loadAgentConfig } from './config.js';

/**
 * LOG_LEVEL decides what the agent prints: the agent is built as main.ts builds it (no logger
 * given), boots against a NATS server that is not there, and everything written to stdout and
 * stderr meanwhile is kept.
 */
async function bootOutput(level: string, env: Record<string, string> = {}): Promise<string> {
  let output = '';
  const keep = (chunk: string | Uint8Array) => {
    output += String(chunk);
    return true;
  };
  jest.spyOn(process.stdout, 'write').mockImplementation(keep);
  jest.spyOn(process.stderr, 'write').mockImplementation(keep);
  const app = await createAgentApp(
    loadAgentConfig({
      NATS_URL: 'nats://127.0.0.1:1',
      AGENT_ID: 'log-level-test',
      AGENT_DRAIN_SECONDS: '0',
      LOG_LEVEL: level,
      ...env,
    }),
  );
  try {
    new Logger('Agent').warn('a warning of the test');
    new Logger('Agent').debug('a debug line of the test');
  } finally {
    await app.close();
  }
  return output;
}

describe('agent logging (LOG_LEVEL)', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('info (the default): what the agent does, without Nest boot chatter or debug lines', async () => {
    const output = await bootOutput('info');
    expect(output).toContain('connecting to NATS nats://127.0.0.1:1');
    expect(output).toContain('Nest application successfully started');
    expect(output).toContain('a warning of the test');
    expect(output).not.toContain('InstanceLoader');
    expect(output).not.toContain('a debug line of the test');
  });

  it('debug: everything, Nest boot chatter included', async () => {
    const output = await bootOutput('debug');
    expect(output).toContain('InstanceLoader');
    expect(output).toContain('a debug line of the test');
  });

  it('warn: warnings and errors only', async () => {
    const output = await bootOutput('warn');
    expect(output).toContain('a warning of the test');
    expect(output).not.toContain('connecting to NATS');
    expect(output).not.toContain('Nest application successfully started');
  });

  it('error: not even warnings', async () => {
    const output = await bootOutput('error');
    expect(output).not.toContain('a warning of the test');
    expect(output).not.toContain('connecting to NATS');
  });
});

describe('agent logging (LOG_FORMAT)', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('json: every line is one JSON object with level, context and message', async () => {
    const output = await bootOutput('info', { LOG_FORMAT: 'json' });
    const records = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: string; context?: string; message: string });
    expect(records).toContainEqual(
      expect.objectContaining({ level: 'warn', context: 'Agent', message: 'a warning of the test' }),
    );
    expect(records).toContainEqual(expect.objectContaining({ level: 'info', context: 'NATS' }));
  });

  it('refuses a format it does not know, naming LOG_FORMAT', () => {
    expect(() => loadAgentConfig({ NATS_URL: 'nats://127.0.0.1:1', LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });
});
