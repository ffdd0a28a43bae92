import { Body, Controller, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/auth.guard.js';
import { CoordinatorConfig } from '../config.js';
import { ApiOperation, errorEnvelope } from '../openapi/api-operation.js';
import { socketAddress } from '../rate-limit/client-address.js';
import { headerOf, secureCookie } from '../sessions/request-origin.js';
import { clearedSessionCookie, sessionCookie, sessionTokenFrom } from '../sessions/session-rules.js';
import { SessionsService } from '../sessions/sessions.service.js';
import { SameOriginGuard } from './same-origin.guard.js';
import { SetPasswordDto, SetupDto, SignInDto } from './users.dto.js';
import { UsersService } from './users.service.js';

/** The 401 of these routes: a mismatch, without the WWW-Authenticate of the API's own 401. */
const refused = (description: string) => ({
  401: { description, content: { 'application/json': { schema: errorEnvelope(['UNAUTHORIZED']) } } },
});

const COOKIE_NOTE = 'On success the `picket_session` cookie is set (HttpOnly, SameSite=Lax, Secure over HTTPS).';

/**
 * The dashboard's sign-in routes (docs/decisions/0022-users-and-sessions.md): no key, no session
 * needed; a foreign Origin is refused (SameOriginGuard). Each success answers 204 with the cookie.
 */
@Controller('auth')
@Public()
@UseGuards(SameOriginGuard)
export class SignInController {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly config: CoordinatorConfig,
  ) {}

  @Post('login')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'signIn',
    tag: 'Sessions',
    summary: 'Sign in',
    description:
      `${COOKIE_NOTE} Any mismatch is the same 401, whether the email exists or not. Failures are throttled per ` +
      'client address and per email (AUTH_FAILURES_PER_HOUR each): 429 with Retry-After.',
    body: { schema: 'SignIn', required: true, description: 'The email and password.' },
    success: { description: 'Signed in: the session cookie is set.' },
    errors: ['FORBIDDEN', 'RATE_LIMIT_EXCEEDED'],
    responses: refused(
      'UNAUTHORIZED: the email or password is wrong (or the user is disabled or has no password yet).',
    ),
  })
  async login(
    @Body() body: SignInDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const user = await this.users.signIn(body.email, body.password, socketAddress(request));
    await this.startSession(user.id, request, reply);
  }

  @Post('logout')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'signOut',
    tag: 'Sessions',
    summary: 'Sign out',
    description: 'Ends the session of the cookie (if any) and clears the cookie.',
    success: { description: 'Signed out.' },
    errors: ['FORBIDDEN'],
  })
  async logout(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const token = sessionTokenFrom(headerOf(request, 'cookie'));
    if (token !== undefined) await this.sessions.revoke(token);
    void reply.header('set-cookie', clearedSessionCookie(secureCookie(request, this.config.PUBLIC_URL)));
  }

  @Post('setup')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'setUpFirstAdmin',
    tag: 'Sessions',
    summary: 'Create the first admin',
    description:
      `With the one-time token of the setup URL printed at first start (valid 24 h): creates the first admin of the ` +
      `\`default\` account and signs them in. ${COOKIE_NOTE} A bad, used or expired token is 401.`,
    body: { schema: 'Setup', required: true, description: 'The token and the first admin.' },
    success: { description: 'The admin exists and is signed in.' },
    errors: ['FORBIDDEN'],
    responses: refused('UNAUTHORIZED: the token is unknown, used or expired, or a user exists already.'),
  })
  async setup(@Body() body: SetupDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const user = await this.users.setup(body);
    await this.startSession(user.id, request, reply);
  }

  @Post('set-password')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'setPassword',
    tag: 'Sessions',
    summary: 'Set a password with an invitation or reset token',
    description:
      `With the one-time token of a set-password URL (valid 24 h): sets the password, ends the user's other ` +
      `sessions and signs them in. ${COOKIE_NOTE} A bad, used or expired token is 401.`,
    body: { schema: 'SetPassword', required: true, description: 'The token and the new password.' },
    success: { description: 'The password is set and the user signed in.' },
    errors: ['FORBIDDEN'],
    responses: refused('UNAUTHORIZED: the token is unknown, used or expired, or its user is disabled.'),
  })
  async setPassword(
    @Body() body: SetPasswordDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const user = await this.users.setPassword(body);
    await this.startSession(user.id, request, reply);
  }

  /** A new session, its cookie, and the end of the session the browser held before (if any). */
  private async startSession(userId: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const previous = sessionTokenFrom(headerOf(request, 'cookie'));
    if (previous !== undefined) await this.sessions.revoke(previous);
    const token = await this.sessions.create(userId);
    void reply.header('set-cookie', sessionCookie(token, secureCookie(request, this.config.PUBLIC_URL)));
  }
}
