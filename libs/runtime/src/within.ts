/**
 * `work`'s value, or `fallback` once `ms` have passed without it: a wait that is bounded, for
 * shutdown graces, health probes and scrapes that must not hang on a dependency. The timer is
 * cleared when `work` wins and never keeps the process alive; `work` itself goes on either way.
 */
export async function within<T, F>(work: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, bound]);
  } finally {
    clearTimeout(timer);
  }
}
