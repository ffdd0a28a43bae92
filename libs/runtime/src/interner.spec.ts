import { describe, expect, it } from '@jest/globals';
import { Interner } from './interner.js';

/**
 * Which copy of a string comes back cannot be seen from JavaScript (=== compares values), so
 * this looks at what the interner holds: each distinct value once, never more than its capacity.
 */
describe('Interner', () => {
  it('holds each distinct value once, up to its capacity, and always gives back an equal string', () => {
    const strings = new Interner(2);
    const held = (strings as unknown as { held: Map<string, string> }).held;
    for (const text of ['eu-west-1', 'eu-west-1', 'us-east-1', 'eu-west-1', 'ap-south-1', 'sa-east-1']) {
      expect(strings.intern([...text].join(''))).toBe(text);
    }
    expect([...held.keys()]).toEqual(['eu-west-1', 'us-east-1']);
  });
});
