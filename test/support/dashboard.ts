import type { BrowserContext } from 'playwright-core';
import type { CapturingLogger } from './coordinator.js';

/** The first-start setup token the coordinator logged (`/setup?token=…`), or an error saying it was not found. */
export function setupToken(logger: CapturingLogger): string {
  for (const line of logger.lines) {
    const match = /\/setup\?token=([A-Za-z0-9_-]+)/.exec(line);
    if (match) return match[1]!;
  }
  throw new Error('the coordinator logged no /setup?token=… URL');
}

/** Coordinators whose first admin this process has created (the setup token works once). */
const setUp = new Set<string>();

export interface DashboardUser {
  email: string;
  password: string;
}

/**
 * Signs a browser context in the way the dashboard does: the first admin through
 * `POST /auth/setup` with the logged token (once per coordinator), then `POST /auth/login`, which sets the session
 * cookie on the context. Returns the session's CSRF token (GET /api/me) for writes.
 */
export async function signIn(
  context: BrowserContext,
  baseUrl: string,
  logger: CapturingLogger,
  user: DashboardUser = { email: 'ada@example.com', password: 'correct horse battery' },
): Promise<string> {
  const request = context.request;
  if (!setUp.has(baseUrl)) {
    const setup = await request.post(`${baseUrl}/auth/setup`, {
      data: { token: setupToken(logger), email: user.email, name: 'Ada', password: user.password },
    });
    if (setup.status() !== 204) throw new Error(`setup answered ${setup.status()}: ${await setup.text()}`);
    setUp.add(baseUrl);
  }
  const login = await request.post(`${baseUrl}/auth/login`, { data: user });
  if (login.status() !== 204) throw new Error(`login answered ${login.status()}: ${await login.text()}`);
  const me = await request.get(`${baseUrl}/api/me`);
  if (me.status() !== 200) throw new Error(`/api/me answered ${me.status()}`);
  return ((await me.json()) as { data: { csrf_token: string } }).data.csrf_token;
}
