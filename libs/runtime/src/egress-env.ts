import { Expose, Transform } from 'class-transformer';
import { IsIn, ValidateBy } from 'class-validator';
import { cidrList, EGRESS_POLICIES, type EgressPolicy, type EgressRules } from './egress.js';
import { commaList } from './env.js';

/** A comma-separated list of addresses or CIDRs (`10.1.0.0/16,2001:db8::/32,192.0.2.7`). */
function IsCidrList(): PropertyDecorator {
  return ValidateBy({
    name: 'isCidrList',
    validator: {
      validate: (value: unknown) => {
        if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string')) return false;
        try {
          cidrList(value);
          return true;
        } catch {
          return false;
        }
      },
      defaultMessage: () => 'must be comma-separated IP addresses or CIDRs (10.0.0.0/8,2001:db8::/32)',
    },
  });
}

/**
 * The egress variables, the same for the coordinator (its embedded checks and every
 * notification) and the agent (its checks): both configurations extend this class.
 */
export class EgressEnv {
  /** Which addresses checks and notifications may connect to (docs/decisions/0010-egress-policy.md). */
  @Expose()
  @IsIn(EGRESS_POLICIES, { message: `must be one of ${EGRESS_POLICIES.join(', ')}` })
  EGRESS_POLICY: EgressPolicy = 'private-allowed';

  /** Addresses allowed whatever the policy says (but the deny list): an internal relay under `strict`. */
  @Expose()
  @Transform(commaList)
  @IsCidrList()
  EGRESS_ALLOW_CIDRS: string[] = [];

  /** Addresses always refused (unless the policy is `off`). */
  @Expose()
  @Transform(commaList)
  @IsCidrList()
  EGRESS_DENY_CIDRS: string[] = [];

  /** `true`: under `private-allowed`, cloud metadata and link-local addresses may be reached too. */
  @Expose()
  @IsIn(['true', 'false'], { message: 'must be true or false' })
  EGRESS_ALLOW_METADATA: 'true' | 'false' = 'false';

  private rules?: EgressRules;

  /** The rules every guarded connection of this process is judged by (one object, built once). */
  egress(): EgressRules {
    this.rules ??= {
      policy: this.EGRESS_POLICY,
      allow: this.EGRESS_ALLOW_CIDRS,
      deny: this.EGRESS_DENY_CIDRS,
      allowMetadata: this.EGRESS_ALLOW_METADATA === 'true',
    };
    return this.rules;
  }
}
