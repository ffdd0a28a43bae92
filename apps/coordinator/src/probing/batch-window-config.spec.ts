import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '#runtime';
import { loadCoordinatorConfig } from '../config.js';
import { DEFAULT_BATCH_WINDOW_MS, MAX_COALESCING_DELAY_MS } from './batch-window.js';

describe('PROBE_BATCH_WINDOW_MS', () => {
  it('defaults to 40 ms and takes 0 (no batches) to 50 (the coalescing bound)', () => {
    expect(loadCoordinatorConfig({}).PROBE_BATCH_WINDOW_MS).toBe(40);
    expect(loadCoordinatorConfig({ PROBE_BATCH_WINDOW_MS: '0' }).PROBE_BATCH_WINDOW_MS).toBe(0);
    expect(loadCoordinatorConfig({ PROBE_BATCH_WINDOW_MS: '50' }).PROBE_BATCH_WINDOW_MS).toBe(50);
  });

  it('leaves the default room below the bound for a late scheduler tick (decision 0049)', () => {
    expect(MAX_COALESCING_DELAY_MS - DEFAULT_BATCH_WINDOW_MS).toBeGreaterThanOrEqual(10);
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
