import { isDeepStrictEqual } from 'node:util';
import { query, type JsonValue } from 'jsonpath-rfc9535';
import type { JsonAssertion } from '#contracts';

/**
 * Judges `json_assertions` against a parsed response body (docs/decisions/0025-https-assertions.md).
 * An assertion holds when its path selects at least one value and every selected value passes
 * the operator (`exists`: the path selects something, or nothing when its value is false).
 * Returns null when all hold, else the first failure as the check's error: the assertion's
 * index, path, operator and expected value, and the value found.
 */
export function failedJsonAssertion(body: unknown, assertions: readonly JsonAssertion[]): string | null {
  for (const [index, assertion] of assertions.entries()) {
    const found = query(body as JsonValue, assertion.path);
    const problem = judge(assertion, found);
    if (problem !== null) {
      const expected = assertion.op === 'exists' ? '' : ` ${show(assertion.value)}`;
      return `json_assertions[${index}] ${assertion.path} ${assertion.op}${expected}: ${problem}`;
    }
  }
  return null;
}

function judge(assertion: JsonAssertion, found: readonly unknown[]): string | null {
  if (assertion.op === 'exists') {
    const wanted = assertion.value !== false;
    if (wanted === found.length > 0) return null;
    return wanted ? 'nothing at the path' : `found ${values(found)}`;
  }
  if (found.length === 0) return 'nothing at the path';
  const failing = found.filter((value) => !passes(assertion, value));
  return failing.length === 0 ? null : `got ${values(failing)}`;
}

function passes({ op, value: expected }: JsonAssertion, actual: unknown): boolean {
  switch (op) {
    case 'eq':
      return isDeepStrictEqual(actual, expected);
    case 'ne':
      return !isDeepStrictEqual(actual, expected);
    case 'lt':
      return typeof actual === 'number' && typeof expected === 'number' && actual < expected;
    case 'gt':
      return typeof actual === 'number' && typeof expected === 'number' && actual > expected;
    case 'contains':
      if (typeof actual === 'string') return typeof expected === 'string' && actual.includes(expected);
      return Array.isArray(actual) && actual.some((item) => isDeepStrictEqual(item, expected));
    case 'exists':
      return true;
  }
}

/** The values found, as JSON, the first three. */
function values(found: readonly unknown[]): string {
  const shown = found.slice(0, 3).map(show).join(', ');
  return found.length > 3 ? `${shown} (and ${found.length - 3} more)` : shown;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
