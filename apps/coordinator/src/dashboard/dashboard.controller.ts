import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Field, text } from '#validation';
import { Public } from '../auth/auth.guard.js';
import { ApiOperation, type PathParameter } from '../openapi/api-operation.js';
import { ASSET_TYPES, DashboardFiles } from './dashboard-files.js';
import { OverviewPreload } from './overview-preload.js';

/**
 * The dashboard's own addresses (client routes): each answers index.html, and the app picks
 * the page. Listed one by one, never a catch-all, so an unknown path keeps its 404 envelope and
 * nothing here can shadow /api, /auth, /status, /healthz, /readyz or /metrics. `/` is served by
 * the public pages controller, which owns it for status pages' custom domains.
 */
export const CLIENT_ROUTES: readonly { path: string; id?: PathParameter; what: string; token?: true }[] = [
  { path: 'login', what: 'Sign-in' },
  { path: 'setup', what: 'First-start setup (the first admin)', token: true },
  { path: 'set-password', what: 'Choosing a password (invites and resets)', token: true },
  { path: 'monitors', what: 'Monitors overview' },
  { path: 'monitors/new', what: 'New monitor' },
  { path: 'monitors/:ref', id: 'DashboardRef', what: 'A monitor' },
  { path: 'monitors/:ref/edit', id: 'DashboardRef', what: 'Editing a monitor' },
  { path: 'contacts', what: 'Contacts' },
  { path: 'contacts/new', what: 'New contact' },
  { path: 'contacts/:ref', id: 'DashboardRef', what: 'A contact' },
  { path: 'incidents', what: 'Incidents' },
  { path: 'incidents/:ref', id: 'DashboardRef', what: 'An incident' },
  { path: 'status-pages', what: 'Status pages' },
  { path: 'status-pages/new', what: 'New status page' },
  { path: 'status-pages/:ref', id: 'DashboardRef', what: 'A status page' },
  { path: 'maintenance', what: 'Maintenance windows' },
  { path: 'maintenance/new', what: 'New maintenance window' },
  { path: 'maintenance/:ref', id: 'DashboardRef', what: 'A maintenance window' },
  { path: 'regions', what: 'Regions (private ones: agents, start command)' },
  { path: 'settings', what: 'Account settings' },
];

/**
 * The query of /setup and /set-password: the one-time token the app sends on. Every other page
 * takes no query (the API's strict query rule holds here too: an unknown parameter is 422).
 */
export class TokenQuery {
  @Field(text({ max: 512 }), { optional: true }) token?: string;
}

const HTML_SUCCESS = {
  description: "The dashboard's index.html (`Cache-Control: no-cache`).",
  text: 'text/html',
} as const;
const NOT_BUILT = {
  503: {
    description: 'The dashboard has not been built on this server (`npm run build`); the page says so.',
    content: { 'text/html': { schema: { type: 'string' } } },
  },
};

/** The web dashboard (docs/decisions/0023-dashboard.md): its hashed assets and its client routes. */
@Controller()
export class DashboardController {
  constructor(
    private readonly files: DashboardFiles,
    private readonly preload: OverviewPreload,
  ) {}

  @Get('assets/:file')
  @Public()
  @ApiOperation({
    operationId: 'getDashboardAsset',
    tag: 'Dashboard',
    summary: 'A file of the web dashboard',
    description:
      'A script, style sheet or image of the dashboard build. Names carry a content hash, so answers are ' +
      '`Cache-Control: public, max-age=31536000, immutable`; gzip when accepted.',
    id: 'DashboardAsset',
    success: { description: 'The file.' },
    responses: {
      200: {
        description: 'The file, typed by its extension.',
        content: Object.fromEntries(
          Object.values(ASSET_TYPES).map((type) => [type.split(';')[0]!, { schema: { type: 'string' } }]),
        ),
      },
      404: { description: 'No such file.', content: { 'text/plain': { schema: { type: 'string' } } } },
    },
  })
  async asset(
    @Param('file') file: string,
    @Headers('accept-encoding') acceptEncoding: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.files.sendAsset(file, acceptEncoding, reply);
  }
}

// One handler per client route (a handler's documented operations must all fit each of its
// routes), added to the class from the table above rather than written out once per route.
const proto = DashboardController.prototype as unknown as Record<string, unknown>;
for (const route of CLIENT_ROUTES) {
  const name = `page_${route.path.replace(/[^a-z]+/g, '_')}`;
  const overview = route.path === 'monitors';
  const handler = async function (this: DashboardController, reply: FastifyReply): Promise<void> {
    const { files, preload } = this as unknown as { files: DashboardFiles; preload: OverviewPreload };
    await files.sendIndex(reply, overview ? await preload.forCookie(reply.request.headers.cookie) : []);
  };
  // Nest and the query check find a handler's metadata by its function name.
  Object.defineProperty(handler, 'name', { value: name });
  Object.defineProperty(proto, name, { value: handler, writable: true, configurable: true, enumerable: false });
  const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
  const operationId = `getDashboard${route.path
    .split(/[/-]/)
    .filter((part) => part !== '')
    .map((part) => (part === ':ref' ? 'ByRef' : part[0]!.toUpperCase() + part.slice(1)))
    .join('')}`;
  for (const decorate of [
    ApiOperation({
      operationId,
      tag: 'Dashboard',
      summary: `${route.what} (dashboard page)`,
      description: 'The dashboard app; it reads everything it shows from this API.',
      ...(route.id ? { id: route.id } : {}),
      success: HTML_SUCCESS,
      responses: NOT_BUILT,
    }),
    Public(),
    Get(route.path),
  ]) {
    decorate(proto, name, descriptor);
  }
  Res()(proto, name, 0);
  if (route.token) {
    Query()(proto, name, 1);
    Reflect.defineMetadata('design:paramtypes', [Object, TokenQuery], proto, name);
  }
}
