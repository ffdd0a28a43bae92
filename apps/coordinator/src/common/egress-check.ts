import { literalAddressOf, parseResolver } from '#contracts';
import { EGRESS_MESSAGE, EGRESS_REASON, egressProblem, type Egress } from '#runtime';
import type { FieldProblem } from '../errors.js';

/**
 * When a monitor or contact is saved: a target written as an IP literal that the egress policy
 * forbids is refused at once (422), instead of failing at every check. Names are judged at
 * connect time only (their addresses change).
 */
export function literalEgressProblem(field: string, url: unknown, policy: Egress): FieldProblem[] {
  return typeof url === 'string' ? addressEgressProblem(field, literalAddressOf(url), policy) : [];
}

/**
 * A DNS monitor's own resolver (docs/decisions/0024-dns-monitors.md) is an address Picket's
 * agents send queries to: refused on save like a target, with the same detail.
 */
export function resolverEgressProblem(field: string, resolver: unknown, policy: Egress): FieldProblem[] {
  return typeof resolver === 'string'
    ? addressEgressProblem(field, parseResolver(resolver)?.address ?? null, policy)
    : [];
}

function addressEgressProblem(field: string, address: string | null, policy: Egress): FieldProblem[] {
  const problem = address === null ? null : egressProblem(address, policy);
  return problem === null ? [] : [{ field, message: `is ${EGRESS_MESSAGE} (${EGRESS_REASON}): ${problem}` }];
}

/** The URL fields of contact details that Picket connects to. */
const CONTACT_URL_FIELDS = ['url', 'webhook_url', 'endpoint'] as const;

export function contactEgressProblems(details: Record<string, unknown>, policy: Egress): FieldProblem[] {
  return CONTACT_URL_FIELDS.flatMap((key) => literalEgressProblem(`details.${key}`, details[key], policy));
}
