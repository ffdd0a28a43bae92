import { CHANNEL_TABLE, REDACTED, type Channel } from './channels.js';

/**
 * Which of a contact's details are sealed at rest: exactly those CHANNEL_TABLE marks as secrets
 * (the fields the API shows as [REDACTED]), so there is one list (docs/decisions/0020-secrets-at-rest.md).
 * Pure: the repository seals and opens what this splits and joins.
 */

/** Whether contacts of `channel` have any field to seal. */
export function hasSecretFields(channel: Channel): boolean {
  return CHANNEL_TABLE[channel].secrets.length > 0;
}

/** The channels whose contacts have secret fields (for queries over stored rows). */
export function channelsWithSecrets(): Channel[] {
  return (Object.keys(CHANNEL_TABLE) as Channel[]).filter(hasSecretFields);
}

/**
 * Details split for storage: `stored` is the details with each set secret replaced by
 * [REDACTED] (in place, so the field order stays), `secrets` the secret values by field.
 */
export function splitSecrets(
  channel: Channel,
  details: Record<string, unknown>,
): { stored: Record<string, unknown>; secrets: Record<string, unknown> } {
  const { secrets: fields } = CHANNEL_TABLE[channel];
  const stored: Record<string, unknown> = {};
  const secrets: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) {
    if (fields.includes(key) && value !== null && value !== undefined) {
      stored[key] = REDACTED;
      secrets[key] = value;
    } else {
      stored[key] = value;
    }
  }
  return { stored, secrets };
}

/**
 * The details again from their stored form and the opened secrets. A [REDACTED] without its
 * secret is an error, never a value: it would be sent to the receiver as the credential.
 */
export function joinSecrets(
  channel: Channel,
  stored: Record<string, unknown>,
  secrets: Record<string, unknown>,
): Record<string, unknown> {
  const { secrets: fields } = CHANNEL_TABLE[channel];
  const details: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored)) {
    if (fields.includes(key) && value === REDACTED) {
      if (!Object.hasOwn(secrets, key)) throw new Error(`the sealed secrets of a ${channel} contact lack "${key}"`);
      details[key] = secrets[key];
    } else {
      details[key] = value;
    }
  }
  return details;
}
