import { describe, expect, it } from '@jest/globals';
import { within } from './within.js';

describe('within', () => {
  it('answers with the work when it settles first', async () => {
    await expect(within(Promise.resolve('done'), 1000, 'late')).resolves.toBe('done');
  });

  it('answers with the fallback when the bound passes first, and leaves the work running', async () => {
    let finish!: (value: string) => void;
    const work = new Promise<string>((resolve) => (finish = resolve));
    await expect(within(work, 5, 'late')).resolves.toBe('late');
    finish('done');
    await expect(work).resolves.toBe('done');
  });

  it('passes a rejection of the work on', async () => {
    await expect(within(Promise.reject(new Error('boom')), 1000, 'late')).rejects.toThrow('boom');
  });
});
