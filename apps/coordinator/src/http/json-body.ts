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
