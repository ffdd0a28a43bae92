/**
 * `pkt_` + 64 lowercase hex characters: 256 random bits (docs/decisions/0003-auth-permissions-rate-limit.md).
 * Here because BOOTSTRAP_API_KEY is validated with it; auth/api-key.ts makes and checks keys of this form.
 */
export const API_KEY_PATTERN = /^pkt_[0-9a-f]{64}$/;
