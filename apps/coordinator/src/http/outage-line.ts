/** Characters of an outage description kept in a log line. */
const MAX_CHARS = 300;

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  name?: unknown;
  driverError?: unknown;
  errors?: unknown;
}

function codeAndMessage(error: ErrorLike): string {
  const code = typeof error.code === 'string' || typeof error.code === 'number' ? String(error.code) : '';
  const message = typeof error.message === 'string' ? error.message : '';
  const name = typeof error.name === 'string' ? error.name : 'Error';
  if (code && message && !message.includes(code)) return `${code}: ${message}`;
  return message || code || name;
}

/**
 * A dependency outage (an error isDependencyOutage accepts) for the log: one line with the
 * driver's code and message, never a stack. An outage is not a bug: where it happened in our
 * code says nothing, what the driver said is all an operator needs. TypeORM's wrapper gives way
 * to its driver error; an AggregateError (a host's several addresses refused) to its first.
 */
export function outageLine(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error).replace(/\s+/g, ' ').slice(0, MAX_CHARS);
  const e = error as ErrorLike;
  const inner =
    typeof e.driverError === 'object' && e.driverError !== null && e.driverError !== error
      ? (e.driverError as ErrorLike)
      : e;
  const first = Array.isArray(inner.errors) && inner.errors.length > 0 ? (inner.errors[0] as ErrorLike) : null;
  let text = codeAndMessage(inner);
  if (first && typeof first === 'object' && (!inner.message || inner.message === '')) {
    const detail = codeAndMessage(first);
    text = text && text !== detail && !detail.startsWith(text) ? `${text}: ${detail}` : detail;
  }
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_CHARS ? `${line.slice(0, MAX_CHARS - 1)}…` : line;
}
