import { describe, expect, it } from '@jest/globals';
import { isObjectId, newObjectId } from './object-id.js';

describe('object ids', () => {
  it('are 24 lowercase hex characters starting with the seconds timestamp', () => {
    const id = newObjectId(Date.UTC(2026, 10, 22, 12, 0, 0));
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(parseInt(id.slice(0, 8), 16)).toBe(Date.UTC(2026, 10, 22, 12, 0, 0) / 1000);
  });

  it('are unique: the 3-byte counter advances by one per id (mod 2^24) under one process prefix', () => {
    const ids = Array.from({ length: 1000 }, () => newObjectId(1_800_000_000_000));
    expect(new Set(ids).size).toBe(1000);
    expect(new Set(ids.map((id) => id.slice(8, 18))).size).toBe(1);
    const counters = ids.map((id) => parseInt(id.slice(18), 16));
    for (let i = 1; i < counters.length; i++) {
      expect((counters[i]! - counters[i - 1]! + 0x1000000) % 0x1000000).toBe(1);
    }
  });

  it.each([
    ['6b0263b0aed78dd82a402afe', true],
    ['6B0263B0AED78DD82A402AFE', false],
    ['6b0263b0aed78dd82a402af', false],
    ['6b0263b0aed78dd82a402afeX', false],
    ['zzzzzzzzzzzzzzzzzzzzzzzz', false],
    [123, false],
  ])('isObjectId(%j) = %s', (value, expected) => {
    expect(isObjectId(value)).toBe(expected);
  });
});
