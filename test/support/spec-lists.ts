/**
 * The lists the API spec and our decision records (docs/decisions/) spell out, written here
 * once for the tests and deliberately not imported from the code under test: a test comparing
 * the code with itself could not catch a region, permission or channel gone missing.
 */

/** The fifteen regions, in the spec's order. */
export const SPEC_REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'eu-west-1',
  'eu-central-1',
  'eu-central-2',
  'eu-north-1',
  'ap-east-1',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-southeast-1',
  'ap-southeast-2',
  'sa-east-1',
  'af-south-1',
] as const;

/** The permissions of docs/decisions/0003-auth-permissions-rate-limit.md, 0026-maintenance-windows.md and 0030-private-regions.md. */
export const SPEC_PERMISSIONS = [
  'monitors:read',
  'monitors:write',
  'contacts:read',
  'contacts:write',
  'incidents:read',
  'incidents:write',
  'status_pages:read',
  'status_pages:write',
  'account:read',
  'maintenance:read',
  'maintenance:write',
  'regions:read',
  'regions:write',
] as const;

/** The channels a contact can be created with through the API (push is read-only). */
export const SPEC_WRITABLE_CHANNELS = [
  'email',
  'webhook',
  'chatone',
  'chattwo',
  'chatthree',
  'paging',
  'incidentmgmt',
  'alerting',
  'ticketing',
] as const;
