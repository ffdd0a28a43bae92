import type { BrowserContext } from 'playwright-core';
import { UsersService } from '../../apps/coordinator/src/users/users.service.js';
import type { RunningCoordinator } from './coordinator.js';
import { tokenOfUrl } from './sessions.js';

/** A first-start setup token of the coordinator (what its setup URL carries), or an error when it has users. */
async function setupToken(c: RunningCoordinator): Promise<string> {
  const url = await c.app.get(UsersService).issueSetupUrl();
  if (url === null) throw new Error('the coordinator has users already: no setup URL');
  return tokenOfUrl(url);
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
  c: RunningCoordinator,
  user: DashboardUser = { email: 'ada@example.com', password: 'correct horse battery' },
): Promise<string> {
  const request = context.request;
  const baseUrl = c.baseUrl;
  if (!setUp.has(baseUrl)) {
    const setup = await request.post(`${baseUrl}/auth/setup`, {
      data: { token: await setupToken(c), email: user.email, name: 'Ada', password: user.password },
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
