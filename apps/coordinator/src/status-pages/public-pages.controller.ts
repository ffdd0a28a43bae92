import { Controller, Get, Headers, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.guard.js';
import { DashboardFiles } from '../dashboard/dashboard-files.js';
import { OverviewPreload } from '../dashboard/overview-preload.js';
import { acceptsGzip } from '../http/gzip.js';
import { ApiOperation, errorEnvelope, type Schema } from '../openapi/api-operation.js';
import { ClientAddress } from '../rate-limit/client-address.js';
import { rateLimitHeaders } from '../rate-limit/rate-limiter.js';
import { basicAuthChallenge, escapeHtml } from './public-page.js';
import { PUBLIC_PAGE_CACHE_MS, PublicPagesService, type PublicAnswer } from './public-pages.service.js';

/** No script, no outside resources: the page's inline style is all it may use. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const smallPage = (title: string) =>
  '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light dark">' +
  `<title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1></main></body></html>`;

const HTML_BODY: Schema = { 'text/html': { schema: { type: 'string' } } };

/** The OpenAPI operation of a public page: HTML or JSON, by id or by the custom domain. */
const WHOLE_SECONDS = { type: 'string', pattern: '^\\d+$' } as const;

/** The headers of a throttled basic-auth attempt (the failure budget's, docs/decisions/0018-abuse-limits-and-quotas.md). */
const PAGE_THROTTLE_HEADERS = {
  'Retry-After': {
    required: true,
    description: 'Whole seconds until the next attempt is taken.',
    schema: WHOLE_SECONDS,
  },
  'X-RateLimit-Limit': { required: true, description: 'Failed attempts allowed per address.', schema: WHOLE_SECONDS },
  'X-RateLimit-Remaining': { required: true, description: 'Failed attempts left (0).', schema: WHOLE_SECONDS },
  'X-RateLimit-Reset': {
    required: true,
    description: 'Unix seconds when the budget is full again.',
    schema: WHOLE_SECONDS,
  },
};

function pageOperation(path: string, operationId: string, json: boolean): MethodDecorator {
  const byId = path.includes('{id}');
  return ApiOperation({
    path,
    operationId,
    tag: 'Public status pages',
    summary: `${byId ? 'A status page' : "The status page of this host's custom domain"} (${json ? 'JSON' : 'HTML'})`,
    description:
      (byId
        ? 'The public page with this id.'
        : 'The page whose `custom_domain` is the `Host` of the request (any case, any port).' +
          (json ? '' : " On any other host, the web dashboard's index.html (`Cache-Control: no-cache`).")) +
      (json
        ? ' The figures the HTML page shows, as JSON.'
        : ' HTML for people: no script, no outside resources; gzip when accepted.') +
      ' A page with `basic_auth` needs `Authorization: Basic`. Answers are cached for 15 s.',
    id: byId ? 'PublicStatusPageId' : undefined,
    success: json
      ? { description: 'The page.', schema: 'PublicStatusPageResponse' }
      : { description: 'The page.', text: 'text/html' },
    responses: {
      401: {
        description: `The page has \`basic_auth\` and the request did not give its user name and password${json ? ' (UNAUTHORIZED)' : ''}.`,
        headers: {
          'WWW-Authenticate': {
            required: true,
            description: "Basic, with the page's name as the realm.",
            schema: { type: 'string', pattern: '^Basic realm="' },
          },
        },
        content: json ? { 'application/json': { schema: errorEnvelope(['UNAUTHORIZED']) } } : HTML_BODY,
      },
      429: {
        description:
          'Too many wrong basic-auth credentials from this client address: every attempt is refused, the right one ' +
          `too, until the budget is earned back${json ? ' (RATE_LIMIT_EXCEEDED)' : ''}.`,
        headers: PAGE_THROTTLE_HEADERS,
        content: json ? { 'application/json': { schema: errorEnvelope(['RATE_LIMIT_EXCEEDED']) } } : HTML_BODY,
      },
      ...(path === '/' ? DASHBOARD_RESPONSES : { 404: notFound(byId, json) }),
    },
  });
}

/** `/` of a host that is no page's custom domain is the web dashboard (docs/decisions/0023-dashboard.md). */
const DASHBOARD_RESPONSES: Record<number, Schema> = {
  503: {
    description: 'Not a custom domain, and the dashboard has not been built on this server (the page says how).',
    content: HTML_BODY,
  },
};

function notFound(byId: boolean, json: boolean): Schema {
  return {
    description:
      (byId ? 'No status page with this id' : 'No status page on this host') +
      (json ? ' (STATUS_PAGE_NOT_FOUND).' : '.') +
      (byId ? ' A URL that cannot be decoded gets the JSON NOT_FOUND envelope.' : ''),
    content: {
      ...(json ? {} : HTML_BODY),
      ...(json || byId
        ? {
            'application/json': {
              schema: errorEnvelope(
                json ? ['STATUS_PAGE_NOT_FOUND', ...(byId ? ['NOT_FOUND' as const] : [])] : ['NOT_FOUND'],
              ),
            },
          }
        : {}),
    },
  };
}

interface RequestFacts {
  authorization: string | undefined;
  acceptEncoding: string | undefined;
}

/**
 * Public status pages (no API key, so no rate-limit charge either): `/status/{id}` (HTML) and
 * `/status/{id}.json`; on a page's custom domain (the `Host` header), `/` and `/index.json`.
 * Thin: lookup, basic auth, model and cache are the service's.
 */
@Controller()
export class PublicPagesController {
  constructor(
    private readonly pages: PublicPagesService,
    private readonly dashboard: DashboardFiles,
    private readonly preload: OverviewPreload,
  ) {}

  @Get('status/:page')
  @Public()
  @pageOperation('/status/{id}', 'getPublicStatusPage', false)
  @pageOperation('/status/{id}.json', 'getPublicStatusPageJson', true)
  async byId(
    @Param('page') param: string,
    @Headers('authorization') authorization: string | undefined,
    @Headers('accept-encoding') acceptEncoding: string | undefined,
    @ClientAddress() address: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const json = param.endsWith('.json');
    const id = json ? param.slice(0, -'.json'.length) : param;
    send(reply, await this.pages.byId(id, authorization, address), json, { authorization, acceptEncoding });
  }

  @Get()
  @Public()
  @pageOperation('/', 'getCustomDomainStatusPage', false)
  async domainHtml(
    @Headers('host') host: string | undefined,
    @Headers('authorization') authorization: string | undefined,
    @Headers('accept-encoding') acceptEncoding: string | undefined,
    @ClientAddress() address: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const answer = await this.pages.byHost(host, authorization, address);
    // Not a page's custom domain: `/` is the dashboard's.
    if (answer.kind === 'missing') {
      return this.dashboard.sendIndex(reply, await this.preload.forCookie(reply.request.headers.cookie));
    }
    send(reply, answer, false, { authorization, acceptEncoding });
  }

  @Get('index.json')
  @Public()
  @pageOperation('/index.json', 'getCustomDomainStatusPageJson', true)
  async domainJson(
    @Headers('host') host: string | undefined,
    @Headers('authorization') authorization: string | undefined,
    @ClientAddress() address: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const answer = await this.pages.byHost(host, authorization, address);
    send(reply, answer, true, { authorization, acceptEncoding: undefined });
  }
}

function send(reply: FastifyReply, answer: PublicAnswer, json: boolean, request: RequestFacts): void {
  void reply.headers(SECURITY_HEADERS);
  if (answer.kind === 'throttled') {
    // Too many wrong credentials from this address (docs/decisions/0018-abuse-limits-and-quotas.md).
    const message = 'Too many failed sign-ins from this address; retry later.';
    void reply.status(429).header('cache-control', 'no-store').headers(rateLimitHeaders(answer.decision));
    if (json) {
      const error = { code: 'RATE_LIMIT_EXCEEDED', message };
      void reply.type('application/json; charset=utf-8').send({ status: 'error', error });
    } else {
      void reply.type('text/html; charset=utf-8').send(smallPage(message));
    }
    return;
  }
  if (answer.kind !== 'ok') {
    const missing = answer.kind === 'missing';
    void reply.status(missing ? 404 : 401).header('cache-control', 'no-store');
    if (!missing) void reply.header('www-authenticate', basicAuthChallenge(answer.realm));
    const message = missing ? 'Status page not found.' : 'This status page needs a user name and password.';
    if (json) {
      const code = missing ? 'STATUS_PAGE_NOT_FOUND' : 'UNAUTHORIZED';
      void reply.type('application/json; charset=utf-8').send({ status: 'error', error: { code, message } });
    } else {
      void reply.type('text/html; charset=utf-8').send(smallPage(message));
    }
    return;
  }
  const { page, json: body, html, htmlGzip } = answer.rendered;
  // A page behind basic auth must not be kept by shared caches.
  const scope = page.basicAuth === null && request.authorization === undefined ? 'public' : 'private';
  void reply.header('cache-control', `${scope}, max-age=${PUBLIC_PAGE_CACHE_MS / 1000}`);
  if (json) {
    // Serialised once per render: Fastify sends a string typed as JSON as it is.
    void reply.type('application/json; charset=utf-8').send(body);
    return;
  }
  void reply.type('text/html; charset=utf-8').header('vary', 'Accept-Encoding');
  if (acceptsGzip(request.acceptEncoding)) void reply.header('content-encoding', 'gzip').send(htmlGzip);
  else void reply.send(html);
}
