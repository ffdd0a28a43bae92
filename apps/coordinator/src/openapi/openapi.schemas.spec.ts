import { describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { httpStatuses, httpUrl, MONITOR_TYPE_TABLE, MONITOR_TYPES, PROBED_TYPES, requestHeaders } from '#contracts';
import { type Checker, declaredFields } from '#validation';
import {
  CHANNEL_TABLE,
  CHANNELS,
  emailAddress,
  httpOrHttpsUrl,
  httpsUrl,
  secretToken,
  webhookSecret,
} from '../contacts/channels.js';
import { componentSchemas, settingsSchemaName, type Schema } from './openapi.schemas.js';

/**
 * The settings and channel-details schemas are built from the monitor type table and the channel
 * table (docs/decisions/0016-openapi-from-declarations.md): a line added to either is documented
 * from its DTO's checkers, or this fails.
 */
const schemas = componentSchemas(['VALIDATION_ERROR']);
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const propertiesOf = (name: string): string[] => Object.keys(schemas[name]?.properties ?? {});

describe('settings schemas from MONITOR_TYPE_TABLE', () => {
  it('MonitorSettings has one key per type, each the schema of that type', () => {
    expect(schemas.MonitorSettings?.properties).toEqual(
      Object.fromEntries(MONITOR_TYPES.map((type) => [type, ref(settingsSchemaName(type))])),
    );
    expect(schemas.MonitorSettings).toMatchObject({ minProperties: 1, maxProperties: 1 });
  });

  it.each(MONITOR_TYPES.map((type) => [type]))('%s: every DTO field, each described by its checker', (type) => {
    const fields = declaredFields(MONITOR_TYPE_TABLE[type].dto);
    expect(propertiesOf(settingsSchemaName(type))).toEqual(fields.map((f) => f.name));
    for (const field of fields) expect([field.name, field.checker.schema]).toEqual([field.name, expect.any(Object)]);
    expect(schemas[settingsSchemaName(type)]?.required).toEqual(fields.filter((f) => !f.optional).map((f) => f.name));
  });
});

describe('details schemas from CHANNEL_TABLE', () => {
  it.each(CHANNELS.map((channel) => [channel]))('%s: its details class, as answered and as written', (channel) => {
    const { details, readOnly } = CHANNEL_TABLE[channel];
    const fields = declaredFields(details);
    for (const field of fields) expect([field.name, field.checker.schema]).toEqual([field.name, expect.any(Object)]);
    expect(propertiesOf(details.name)).toEqual(expect.arrayContaining(fields.map((f) => f.name)));
    const contactBranches = schemas.Contact?.oneOf as Schema[];
    expect(contactBranches).toContainEqual({
      required: ['channel', 'details'],
      properties: { channel: { enum: expect.arrayContaining([channel]) }, details: ref(details.name) },
    });
    const createBranches = schemas.ContactCreate?.oneOf as Schema[];
    const written = { channel: { enum: expect.arrayContaining([channel]) }, details: ref(`${details.name}Input`) };
    if (readOnly) {
      expect(schemas[`${details.name}Input`]).toBeUndefined();
      expect(createBranches).not.toContainEqual(expect.objectContaining({ properties: written }));
      return;
    }
    expect(propertiesOf(`${details.name}Input`)).toEqual(fields.map((f) => f.name));
    expect(propertiesOf(`${details.name}Patch`)).toEqual(fields.map((f) => f.name));
    expect(createBranches).toContainEqual({ required: ['channel', 'details'], properties: written });
    expect((schemas.ContactUpdate?.properties as any).details.anyOf).toContainEqual(ref(`${details.name}Patch`));
  });
});

describe('the schemas the custom checkers carry', () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  /** Whatever the checker accepts, its schema accepts too (a schema may say less, never refuse more). */
  const cases: [name: string, checker: Checker, values: unknown[]][] = [
    ['httpStatuses', httpStatuses, ['200', '200-399', ' 200 - 299 , 301,404 ', '100-599', '200-199', '600', '', 'x']],
    ['requestHeaders', requestHeaders, ['', 'X-A: 1', 'Host: example.com\nAccept: */*', 'Connection: close']],
    ['httpUrl', httpUrl, ['https://example.com/', 'HTTP://example.com', 'ftp://x', 'https://user@x.com']],
    ['httpsUrl', httpsUrl, ['https://example.com/hook', 'http://example.com']],
    ['httpOrHttpsUrl', httpOrHttpsUrl, ['http://example.com/hook', 'Https://example.com']],
    ['emailAddress', emailAddress, ['a@example.com', 'nope']],
    ['secretToken', secretToken, ['abc', 'a b']],
    ['webhookSecret', webhookSecret, [`whsec_${Buffer.alloc(32, 7).toString('base64')}`, 'whsec_x']],
    ...PROBED_TYPES.filter((type) => type !== 'https').map((type): [string, Checker, unknown[]] => [
      `${type} url`,
      declaredFields(MONITOR_TYPE_TABLE[type].dto).find((f) => f.name === 'url')!.checker,
      [`${type}://example.com:443`, `${type.toUpperCase()}://192.0.2.1`, 'https://example.com'],
    ]),
  ];
  it.each(cases)('%s', (_name, checker, values) => {
    expect(checker.schema).toBeDefined();
    const validate = ajv.compile(checker.schema!);
    const refusedBySchemaOnly = values.filter((value) => checker(value) === null && !validate(value));
    expect(refusedBySchemaOnly).toEqual([]);
  });

  it('httpStatuses: the pattern refuses what is no list of codes', () => {
    const validate = ajv.compile(httpStatuses.schema!);
    for (const value of ['', 'x', '2000', '200-', '99', '600-700', '200,,301']) {
      expect([value, validate(value), httpStatuses(value) === null]).toEqual([value, false, false]);
    }
  });

  it('requestHeaders names the headers it refuses', () => {
    expect(requestHeaders.schema?.description).toEqual(expect.stringContaining('transfer-encoding'));
  });
});
