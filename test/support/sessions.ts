import { ApiClient, type ApiResponse } from './api-client.js';

/** The `picket_session` value a response sets, or undefined. */
export function sessionCookieOf(res: ApiResponse): string | undefined {
  const header = res.headers.getSetCookie().find((c) => c.startsWith('picket_session='));
  const value = header?.split(';')[0]?.slice('picket_session='.length);
  return value === undefined || value === '' ? undefined : value;
}

/** A signed-in dashboard client: the cookie and, from GET /api/me, the CSRF token on every request. */
export interface Session {
  client: ApiClient;
  token: string;
  csrf: string;
  me: any;
}

/** The session a 204 with Set-Cookie started: asks /api/me for its CSRF token. */
export async function sessionFrom(baseUrl: string, res: ApiResponse): Promise<Session> {
  const token = sessionCookieOf(res);
  if (res.status !== 204 || token === undefined) {
    throw new Error(`no session started: ${res.status} ${res.text}`);
  }
  const bare = new ApiClient(baseUrl, undefined, { cookie: `picket_session=${token}` });
  const me = await bare.get('/api/me');
  if (me.status !== 200) throw new Error(`GET /api/me answered ${me.status} ${me.text}`);
  const csrf = me.body.data.csrf_token as string;
  return {
    client: new ApiClient(baseUrl, undefined, { cookie: `picket_session=${token}`, 'x-csrf-token': csrf }),
    token,
    csrf,
    me: me.body.data,
  };
}

/** Signs in with email and password. */
export async function signIn(baseUrl: string, email: string, password: string): Promise<Session> {
  return sessionFrom(baseUrl, await new ApiClient(baseUrl).post('/auth/login', { email, password }));
}

/** The token of a setup or set-password URL. */
export function tokenOfUrl(url: string): string {
  const token = new URL(url).searchParams.get('token');
  if (!token) throw new Error(`no token in ${url}`);
  return token;
}
