import secureJson from 'secure-json-parse';
import { AppError } from '../errors.js';

export const MAX_BODY_BYTES = 256 * 1024;
export const MAX_JSON_DEPTH = 32;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function invalidJson(message: string): AppError {
  return new AppError('INVALID_JSON', message);
}

/**
 * Largest nesting depth of arrays and objects in a JSON text, found by one iterative pass
 * over the characters (strings skipped), so a hostile document never reaches a recursive
 * step. Stops counting as soon as `limit` is exceeded.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

/** The charsets a JSON body may be declared in: UTF-8 under its two WHATWG labels. */
const UTF8_LABELS: ReadonlySet<string> = new Set(['utf-8', 'utf8']);

/**
 * Refuses (415) a Content-Type whose `charset` parameter names anything but UTF-8 (any case,
 * quoted or not): bodies are only ever read as UTF-8, so a UTF-16 or Latin-1 body must not be
 * half-read as one (docs/decisions/0017-http-edge-hardening.md). No charset means UTF-8.
 */
export function assertUtf8ContentType(contentType: string | undefined): void {
  for (const parameter of (contentType ?? '').split(';').slice(1)) {
    const eq = parameter.indexOf('=');
    if (eq < 0 || parameter.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const value = parameter
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (!UTF8_LABELS.has(value)) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Request bodies must be JSON in UTF-8: send Content-Type: application/json (charset=utf-8 or none).',
      );
    }
  }
}

/**
 * Parses a request body: strict UTF-8, a depth limit, and no `__proto__` or
 * `constructor.prototype` keys. An empty body means "no body" (undefined).
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw invalidJson('The request body is not valid UTF-8.');
  }
  if (text.trim() === '') return undefined;
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw invalidJson(`The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (e) {
    if (e instanceof SyntaxError && e.message.startsWith('Object contains forbidden')) {
      throw invalidJson('The request body contains a forbidden key (__proto__ or constructor.prototype).');
    }
    throw invalidJson('The request body is not valid JSON.');
  }
}
