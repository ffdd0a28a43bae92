import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '#runtime';
import { loadCoordinatorConfig } from '../config.js';

describe('PROBE_BATCH_WINDOW_MS', () => {
  it('defaults to 20 ms and takes 0 (no batches) to 50 (the coalescing bound)', () => {
    expect(loadCoordinatorConfig({}).PROBE_BATCH_WINDOW_MS).toBe(20);
    expect(loadCoordinatorConfig({ PROBE_BATCH_WINDOW_MS: '0' }).PROBE_BATCH_WINDOW_MS).toBe(0);
    expect(loadCoordinatorConfig({ PROBE_BATCH_WINDOW_MS: '50' }).PROBE_BATCH_WINDOW_MS).toBe(50);
  });

  it.each(['51', '-1', '2.5', 'soon'])('refuses %s at start, naming the variable', (value) => {
    let error: unknown;
    try {
      loadCoordinatorConfig({ PROBE_BATCH_WINDOW_MS: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(String((error as ConfigError).message)).toContain('PROBE_BATCH_WINDOW_MS');
  });
});
