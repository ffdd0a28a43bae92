/**
 * The dashboard's only way to the server: the same REST API as every client, with the session
 * cookie (same origin) instead of a key, and the session's CSRF token on every write.
 */

export interface FieldDetail {
  field: string;
  message: string;
}

/** An answer in the API's error envelope (or a network failure, status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly FieldDetail[] = [],
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;
let onUnauthorized: (() => void) | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when a request answers 401 (the session ended): the app shows the sign-in page. */
export function setUnauthorizedHandler(handler: (() => void) | null): void {
  onUnauthorized = handler;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface Envelope {
  status?: string;
  error?: { code?: string; message?: string; details?: FieldDetail[] };
}

/** Sends one request; resolves with the parsed body (null for 204), rejects with ApiError. */
export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (WRITES.has(method) && csrfToken !== null) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The server could not be reached. Check the connection and try again.');
  }
  if (response.status === 204) return null as T;
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (response.ok) return parsed as T;
  const error = (parsed as Envelope | null)?.error;
  const retry = Number(response.headers.get('retry-after'));
  const failure = new ApiError(
    response.status,
    error?.code ?? `HTTP_${response.status}`,
    error?.message ?? `The server answered ${response.status}.`,
    error?.details ?? [],
    Number.isFinite(retry) && retry > 0 ? retry : null,
  );
  if (response.status === 401 && !path.startsWith('/auth/')) onUnauthorized?.();
  throw failure;
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  put: <T>(path: string, body: unknown) => request<T>('PUT', path, body),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
  delete: (path: string) => request<null>('DELETE', path),
};

/** A query string of the given parameters (undefined and '' left out). */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const parts = Object.entries(params)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}
