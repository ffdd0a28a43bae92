/**
 * Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`
 * with `what` in the message. A bound on waiting, not a performance assertion.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? ` (last error: ${last.message})` : '';
      throw new Error(`timed out waiting for ${what}${detail}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
}
