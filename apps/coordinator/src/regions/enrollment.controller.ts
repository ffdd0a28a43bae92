import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { EnrollRequestDto, type EnrollReply } from '#contracts';
import { checkInput } from '#validation';
import { EnrollmentService } from './enrollment.service.js';

/** The pattern agents' enrollment requests are routed to (probing/nats-routes.ts). */
export const ENROLL_PATTERN = 'agent-enroll';

/**
 * Agents' enrollment requests over NATS (docs/decisions/0030-private-regions.md): only holders of
 * an enrollment token may publish them (the server checks the token's JWT); the token itself is
 * then judged by its stored hash. A malformed request gets its reason back.
 */
@Controller()
export class EnrollmentController {
  constructor(private readonly enrollment: EnrollmentService) {}

  @MessagePattern(ENROLL_PATTERN)
  async enroll(@Payload() payload: unknown): Promise<EnrollReply> {
    const { value, problems } = checkInput(EnrollRequestDto, payload);
    if (!value) {
      return {
        ok: false,
        error: `malformed enrollment request: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
      };
    }
    return this.enrollment.exchange(value);
  }
}
