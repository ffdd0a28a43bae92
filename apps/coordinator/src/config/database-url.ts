/**
 * DATABASE_URL, read. Its own file without imports: the configuration (loaded first thing at
 * start) needs it, and database/data-source.ts would bring TypeORM along (~0.2 s of a start-up
 * whose first log line is due within a second).
 */

export type DatabaseTarget = { dialect: 'sqlite'; path: string } | { dialect: 'postgres'; url: string };

export function parseDatabaseUrl(url: string): DatabaseTarget | null {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    return path === '' ? null : { dialect: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\/./.test(url)) return { dialect: 'postgres', url };
  return null;
}
