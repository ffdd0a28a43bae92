import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

/** Whether the client takes gzip (`Accept-Encoding`, a `q=0` refusal respected). */
export function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** gzip off the event loop's thread (libuv's pool): for answers of megabytes. */
export const gzipAsync = promisify(gzip);
