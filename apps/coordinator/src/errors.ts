import type { FieldProblem } from '#validation';

/**
 * Domain errors carry a code; one function maps codes to HTTP statuses (an exhaustive
 * switch, so a new code does not compile until it has a status).
 */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'INVALID_JSON'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'MONITOR_NOT_FOUND'
  | 'CONTACT_NOT_FOUND'
  | 'INCIDENT_NOT_FOUND'
  | 'STATUS_PAGE_NOT_FOUND'
  | 'MAINTENANCE_WINDOW_NOT_FOUND'
  | 'REGION_NOT_FOUND'
  | 'REGION_IN_USE'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'READONLY_CHANNEL'
  | 'CONTACT_TEST_FAILED'
  | 'QUOTA_EXCEEDED'
  | 'SUBSCRIPTION_NOT_ACTIVE'
  | 'RATE_LIMIT_EXCEEDED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export type { FieldProblem };

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldProblem[],
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export function validationError(details: FieldProblem[], message = 'The request is invalid.'): AppError {
  return new AppError('VALIDATION_ERROR', message, details);
}

export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case 'VALIDATION_ERROR':
    case 'CONTACT_TEST_FAILED':
      return 422;
    case 'INVALID_JSON':
      return 400;
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 415;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'UNAUTHORIZED':
      return 401;
    case 'FORBIDDEN':
    case 'READONLY_CHANNEL':
    case 'QUOTA_EXCEEDED':
      return 403;
    case 'MONITOR_NOT_FOUND':
    case 'CONTACT_NOT_FOUND':
    case 'INCIDENT_NOT_FOUND':
    case 'STATUS_PAGE_NOT_FOUND':
    case 'MAINTENANCE_WINDOW_NOT_FOUND':
    case 'REGION_NOT_FOUND':
    case 'NOT_FOUND':
      return 404;
    case 'REGION_IN_USE':
      return 409;
    case 'METHOD_NOT_ALLOWED':
      return 405;
    case 'SUBSCRIPTION_NOT_ACTIVE':
      return 402;
    case 'RATE_LIMIT_EXCEEDED':
      return 429;
    case 'SERVICE_UNAVAILABLE':
      return 503;
    case 'INTERNAL_ERROR':
      return 500;
  }
}

export interface ErrorBody {
  status: 'error';
  error: { code: ErrorCode; message: string; details?: FieldProblem[] };
}

export function errorBody(error: AppError): ErrorBody {
  const body: ErrorBody = { status: 'error', error: { code: error.code, message: error.message } };
  if (error.code === 'VALIDATION_ERROR') body.error.details = error.details ?? [];
  return body;
}

/** The fixed 404s: identical bytes whether an id is malformed, unknown or another account's. */
export const notFound = {
  monitor: () => new AppError('MONITOR_NOT_FOUND', 'Monitor not found.'),
  contact: () => new AppError('CONTACT_NOT_FOUND', 'Contact not found.'),
  incident: () => new AppError('INCIDENT_NOT_FOUND', 'Incident not found.'),
  statusPage: () => new AppError('STATUS_PAGE_NOT_FOUND', 'Status page not found.'),
  // Users and keys (docs/decisions/0022-users-and-sessions.md) take the generic code: no new one.
  user: () => new AppError('NOT_FOUND', 'User not found.'),
  apiKey: () => new AppError('NOT_FOUND', 'API key not found.'),
  maintenanceWindow: () => new AppError('MAINTENANCE_WINDOW_NOT_FOUND', 'Maintenance window not found.'),
  region: () => new AppError('REGION_NOT_FOUND', 'Region not found.'),
  // A private region's enrolled agent (docs/decisions/0030-private-regions.md): the generic code too.
  agent: () => new AppError('NOT_FOUND', 'Agent not found.'),
} as const;
