/**
 * A client generated from the served OpenAPI document with openapi-typescript's default options
 * must compile under `tsc --strict`, and must let a client send partial updates: every request
 * body the document marks as needing no field is typed with all fields optional (a `default` in
 * such a schema would make its field required), and every other one requires at least the
 * documented fields. With the default `defaultNonNullable`, fields of a create body that have a
 * `default` are required in the generated type too, although the server fills them in
 * (docs/decisions/0016-openapi-from-declarations.md).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..', '..');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The typed client: requests and answers of every operation, as openapi-fetch-like helpers derive them. */
const CLIENT_HEAD = `
import type { paths } from './schema.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
export type Body<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type Answer<O> = O extends { responses: infer R } ? R[keyof R] : never;
export type Json<P extends keyof paths, M extends Method> =
  Answer<Operation<P, M>> extends infer A ? (A extends { content: { 'application/json': infer J } } ? J : never) : never;
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];
/** The documented required fields are required (a \`default\` also makes a field required: see the header). */
export const requires = <P extends keyof paths, M extends Method, K extends string>(
  _check: [K] extends [RequiredKeys<Body<P, M>>] ? true : false,
): void => undefined;

export async function request<P extends keyof paths, M extends Method>(
  base: string,
  path: P,
  method: M,
  body?: Body<P, M>,
): Promise<Json<P, M>> {
  const init: RequestInit = { method: method.toUpperCase() };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(base + String(path), init);
  return (await response.json()) as Json<P, M>;
}
`;

describe('a client generated from the OpenAPI document (openapi-typescript, default options)', () => {
  let db: TestDatabase;
  let coordinator: RunningCoordinator;
  let dir: string;
  let doc: any;

  const deref = (node: any): any => {
    if (!node?.$ref) return node;
    let at = doc;
    for (const key of String(node.$ref).slice(2).split('/')) at = at[key.replace(/~1/g, '/').replace(/~0/g, '~')];
    return deref(at);
  };

  beforeAll(async () => {
    const kind = testDatabases()[0];
    if (!kind) throw new Error('no test database');
    db = await kind.create();
    coordinator = await startCoordinator(db.url);
    doc = (await coordinator.client().get('/api/openapi.json')).body;
    dir = await mkdtemp(join(tmpdir(), 'picket-openapi-client-'));
  });

  afterAll(async () => {
    await coordinator?.close();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('compiles, and types each request body as the document requires it', async () => {
    await writeFile(join(dir, 'openapi.json'), JSON.stringify(doc));
    const cli = join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
    await run(process.execPath, [cli, join(dir, 'openapi.json'), '--output', join(dir, 'schema.ts')]);

    const checks: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of METHODS) {
        const body = item[method]?.requestBody;
        if (!body) continue;
        const schema = deref(deref(body).content['application/json'].schema);
        const required: string[] = schema.required ?? [];
        const at = `${JSON.stringify(path)}, ${JSON.stringify(method)}`;
        checks.push(
          required.length === 0
            ? `export const empty${checks.length}: Body<${at}> = {};`
            : `requires<${at}, ${required.map((k) => JSON.stringify(k)).join(' | ')}>(true);`,
        );
      }
    }
    expect(checks.length).toBeGreaterThan(5);
    await writeFile(
      join(dir, 'client.ts'),
      `${CLIENT_HEAD}\n${checks.join('\n')}\n` +
        `export const list = (base: string) => request(base, '/api/monitors', 'get');\n`,
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const types = join(ROOT, 'node_modules', '@types');
    const options = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--typeRoots', types];
    const compiled = await run(process.execPath, [tsc, ...options, '--types', 'node', 'client.ts'], { cwd: dir }).then(
      () => '',
      (error: Error & { stdout?: string }) => error.stdout ?? error.message,
    );
    expect(compiled).toBe('');
  }, 120_000);
});
