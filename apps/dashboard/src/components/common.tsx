import { useId, type ReactNode } from 'react';
import { STATUS_LABELS, type ShownStatus } from '../lib/monitors.ts';
import { localTime, utcTime } from '../lib/time.ts';

/** A time in the browser's zone; hovering shows UTC. */
export function Time({ at }: { at: number | null | undefined }) {
  if (at === null || at === undefined) return <span className="muted">never</span>;
  return (
    <time dateTime={new Date(at * 1000).toISOString()} title={utcTime(at)}>
      {localTime(at)}
    </time>
  );
}

/** A status in words and colour (the colour is never the only sign). */
export function StatusBadge({ status }: { status: ShownStatus }) {
  return (
    <span className={`badge status-${status}`} data-status={status}>
      <span className="dot" aria-hidden="true" />
      {STATUS_LABELS[status]}
    </span>
  );
}

/** A labelled form field with its error (announced, and tied to the input by aria-describedby). */
export function Field({
  label,
  error,
  hint,
  children,
}: {
  label: string;
  error?: string;
  hint?: string;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string }) => ReactNode;
}) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), ...(described ? { 'aria-describedby': described } : {}) })}
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : 'Something went wrong.';
  return (
    <p className="note error" role="alert">
      {message}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** A small line of values (oldest first), for a row: drawn in SVG, no library. */
export function Sparkline({ values, label }: { values: readonly (number | null)[]; label: string }) {
  const known = values.filter((v): v is number => v !== null);
  if (known.length < 2) return <span className="muted spark-empty">no data</span>;
  const max = Math.max(...known);
  const min = Math.min(...known);
  const span = max - min || 1;
  const step = 100 / (values.length - 1);
  let path = '';
  values.forEach((value, i) => {
    if (value === null) return;
    const y = 22 - ((value - min) / span) * 20;
    path += `${path === '' || values[i - 1] === null ? 'M' : 'L'}${(i * step).toFixed(1)},${y.toFixed(1)}`;
  });
  return (
    <svg className="spark" viewBox="0 0 100 24" preserveAspectRatio="none" role="img" aria-label={label}>
      <path d={path} />
    </svg>
  );
}
