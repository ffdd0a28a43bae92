/**
 * The scrypt cost of the coordinators the tests start: N = 2^14 instead of the product's 2^17
 * (docs/decisions/0032-password-hash-cost.md). A sign-in then costs ~50 ms instead of
 * 0.4-1 s, which made the sign-in suites most of their run time. What is tested is unchanged:
 * hashes carry their cost, the decoy uses the configured one, and passwords.spec.ts checks the
 * product's default cost itself. A test's own env wins over this.
 */
export const TEST_PASSWORD_COST: Readonly<Record<string, string>> = { PASSWORD_SCRYPT_LOG_N: '14' };
