import type { FieldDetail } from './api.ts';

/**
 * The API's 422 `details` as messages by form field. A field the form shows is matched exactly
 * or by its nearest shown ancestor (`regions[2]` → `regions`, `settings.https.url` stays
 * itself when shown); what no field shows is returned apart, for a message above the form.
 */
export function fieldErrors(
  details: readonly FieldDetail[],
  shown: readonly string[],
): { byField: Record<string, string>; unplaced: string[] } {
  const byField: Record<string, string> = {};
  const unplaced: string[] = [];
  const known = new Set(shown);
  for (const { field, message } of details) {
    let target: string | null = field;
    while (target !== null && !known.has(target)) target = parentField(target);
    if (target === null) {
      unplaced.push(field === '' ? message : `${field}: ${message}`);
      continue;
    }
    byField[target] = byField[target] === undefined ? message : `${byField[target]} ${message}`;
  }
  return { byField, unplaced };
}

/** `a.b[2].c` → `a.b[2]` → `a.b` → `a` → null. */
export function parentField(field: string): string | null {
  const index = field.endsWith(']') ? field.lastIndexOf('[') : -1;
  const dot = field.lastIndexOf('.');
  const cut = Math.max(index, dot);
  return cut <= 0 ? null : field.slice(0, cut);
}
