import { randomBytes } from 'node:crypto';

/**
 * 24-character lowercase hex object ids: a 4-byte big-endian seconds timestamp, 5 random
 * bytes chosen once per process, and a 3-byte counter that starts at a random value.
 * Ids made by one process sort by creation time.
 */
const processRandom = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);

export const OBJECT_ID_PATTERN = /^[0-9a-f]{24}$/;

export function newObjectId(nowMs: number): string {
  const seconds = Math.floor(nowMs / 1000) >>> 0;
  counter = (counter + 1) % 0x1000000;
  return seconds.toString(16).padStart(8, '0') + processRandom + counter.toString(16).padStart(6, '0');
}

export function isObjectId(value: unknown): value is string {
  return typeof value === 'string' && OBJECT_ID_PATTERN.test(value);
}
