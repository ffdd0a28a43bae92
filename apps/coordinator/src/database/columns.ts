import type { ValueTransformer } from 'typeorm';

/**
 * Unix seconds in a BIGINT column. PostgreSQL's driver returns BIGINT as a string; this
 * hands numbers to the code on both databases.
 */
export const epochSeconds: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};

/** Any other BIGINT column (milliseconds, sums) read as a number: the same conversion. */
export const bigintNumber: ValueTransformer = epochSeconds;

/** A JSON document in a TEXT column (portable across SQLite and PostgreSQL). */
export const jsonText: ValueTransformer = {
  to: (value: unknown) => (value === undefined ? undefined : JSON.stringify(value)),
  from: (value: string | null) => (value === null ? null : (JSON.parse(value) as unknown)),
};
