/**
 * What a route adds to its own metadata for the OpenAPI document: a summary, the schemas of
 * what it answers, the errors of its own. Path, method, permission (or public), success status
 * and query parameters come from the route itself (docs/decisions/0016-openapi-from-declarations.md).
 */
import type { JsonSchema } from '#validation';
import type { ErrorCode } from '../errors.js';

export type Schema = JsonSchema;

export type Tag =
  | 'Monitors'
  | 'Heartbeats'
  | 'Contacts'
  | 'Incidents'
  | 'Status pages'
  | 'Maintenance windows'
  | 'Regions'
  | 'Public status pages'
  | 'Account'
  | 'Sessions'
  | 'Users'
  | 'API keys'
  | 'Dashboard'
  | 'Meta';

/** Path parameters of components.parameters, by the resource whose id they are. */
export type PathParameter =
  | 'MonitorId'
  | 'ContactId'
  | 'IncidentId'
  | 'StatusPageId'
  | 'MaintenanceWindowId'
  | 'RegionId'
  | 'RegionAgentId'
  | 'PublicStatusPageId'
  | 'UserId'
  | 'ApiKeyId'
  | 'DashboardAsset'
  | 'DashboardRef'
  | 'PingToken';

export interface OperationDeclaration {
  /** The documented path when it is not the route's own (`/status/{id}.json` of `status/:page`). */
  path?: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  /** The parameter of the path's `{id}`. */
  id?: PathParameter;
  /** The path's other parameters, after `{id}` (`{agentId}` of a region's agent). */
  alsoIds?: readonly PathParameter[];
  /** What no checker knows about the query DTO's fields: descriptions, the defaults the service applies. */
  query?: Readonly<Record<string, Schema>>;
  /** A JSON body: the components.schemas name (bodies typed `unknown` are judged by the service). */
  body?: { schema: string; required: boolean; description: string };
  success: { description: string; schema?: string; text?: 'text/plain' | 'text/html' | 'text/event-stream' };
  /** An answer that streams until the client leaves (`x-stream` in the document). */
  stream?: boolean;
  /** The operation's own errors; those every operation of its kind has are added. */
  errors?: readonly ErrorCode[];
  /** Answers outside the error table (the public pages' own 401 and 404), by status. */
  responses?: Readonly<Record<number, Schema>>;
}

const OPERATIONS = Symbol('picket:openapi-operations');

/** Documents the route (more than once when one route serves several documented paths). */
export function ApiOperation(declaration: OperationDeclaration): MethodDecorator {
  return (_target, _key, descriptor) => {
    const handler = descriptor.value as object;
    const declared = (Reflect.getMetadata(OPERATIONS, handler) as OperationDeclaration[] | undefined) ?? [];
    Reflect.defineMetadata(OPERATIONS, [declaration, ...declared], handler);
  };
}

/** The declarations of a handler, in the order written. */
export function operationDeclarations(handler: object): readonly OperationDeclaration[] {
  return (Reflect.getMetadata(OPERATIONS, handler) as OperationDeclaration[] | undefined) ?? [];
}

/**
 * The error envelope with one of these codes (`details` with VALIDATION_ERROR only; another code
 * of the same status, CONTACT_TEST_FAILED beside it, is a branch of its own without `details`).
 */
export function errorEnvelope(codes: readonly ErrorCode[]): Schema {
  const others = codes.filter((code) => code !== 'VALIDATION_ERROR');
  if (others.length > 0 && others.length < codes.length) {
    return { oneOf: [errorEnvelope(['VALIDATION_ERROR']), errorEnvelope(others)] };
  }
  const validation = codes.includes('VALIDATION_ERROR');
  const error: Schema = {
    properties: {
      code: codes.length === 1 ? { const: codes[0] } : { enum: codes },
      ...(validation ? {} : { details: false }),
    },
    ...(validation ? { required: ['details'] } : {}),
  };
  return { allOf: [{ $ref: '#/components/schemas/Error' }], properties: { error } };
}

/** The documentation of the page fields every list shares. */
export function pageQuery(defaultPerPage: number, order = 'Sort direction.'): Record<string, Schema> {
  return {
    page: { default: 1, description: 'Page number; past the end gives an empty page.' },
    per_page: { default: defaultPerPage, description: 'Page size.' },
    order: { default: 'desc', description: order },
  };
}
