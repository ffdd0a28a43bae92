/**
 * Holds one copy of each of a few distinct strings (account ids, regions, monitor types,
 * checker addresses) that would otherwise be held once per monitor: a string read from a
 * database row or a message is a new copy every time. Bounded: past `capacity` distinct values,
 * new ones are returned as given.
 */
export class Interner {
  private readonly held = new Map<string, string>();

  constructor(private readonly capacity = 10_000) {}

  intern<T extends string>(text: T): T {
    const held = this.held.get(text);
    if (held !== undefined) return held as T;
    if (this.held.size < this.capacity) this.held.set(text, text);
    return text;
  }
}
