/**
 * DATABASE_URL, read. Its own file without imports: the configuration (loaded first thing at
 * start) needs it, and database/data-source.ts would bring TypeORM along (~0.2 s of a start-up
 * whose first log line is due within a second).
 */

export type DatabaseTarget =
  | {
      dialect: 'sqlite';
      path: string;
      /** SQLite's page cache in MiB (SQLITE_CACHE_MB); SQLITE_CACHE_MB_DEFAULT when not given. */
      cacheMb?: number;
    }
  | { dialect: 'postgres'; url: string };

/**
 * SQLite's page cache, in MiB, unless SQLITE_CACHE_MB says otherwise: 4 instead of the 16 the
 * better-sqlite3 build sets, about 12 MB less RSS at 100k monitors
 * (docs/decisions/0045-a-smaller-sqlite-page-cache.md).
 */
export const SQLITE_CACHE_MB_DEFAULT = 4;

export function parseDatabaseUrl(url: string): DatabaseTarget | null {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    return path === '' ? null : { dialect: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\/./.test(url)) return { dialect: 'postgres', url };
  return null;
}
