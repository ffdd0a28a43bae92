/**
 * MurmurHash3's 32-bit finaliser: every input bit moves about half the output bits. For hashes
 * whose inputs differ only slightly (ids that differ in their last character).
 */
export function avalanche32(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
