import { useId, useState, type ReactNode } from 'react';
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

/**
 * A table that scrolls sideways on a narrow screen: a named region that takes keyboard focus, so
 * people without a pointer can scroll it too (axe-core's scrollable-region-focusable).
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

/** Copies `text` to the clipboard; says "Copied" once done. `label` names it for screen readers when the text is not beside it. */
export function CopyButton({ text, label }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const done = copied === text;
  return (
    <button
      type="button"
      // The accessible name keeps the visible word ("Copy", then "Copied") at its start.
      aria-label={label && done ? label.replace(/^Copy\b/, 'Copied') : label}
      onClick={() => {
        void navigator.clipboard.writeText(text).then(() => setCopied(text));
      }}
    >
      {done ? 'Copied' : 'Copy'}
    </button>
  );
}

/** What a page says instead of a form the user's role may not use (the API would answer 403). */
export function ReadOnlyNote({ what, back }: { what: string; back: ReactNode }) {
  return (
    <section aria-labelledby="read-only-title">
      <h1 id="read-only-title">Read only</h1>
      <p className="note">
        Your role can read {what} but not change them. {back}
      </p>
    </section>
  );
}
