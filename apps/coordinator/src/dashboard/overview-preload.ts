import { Injectable } from '@nestjs/common';
import { sessionTokenFrom } from '../sessions/session-rules.js';
import { SessionsService } from '../sessions/sessions.service.js';

/** What the overview reads first (docs/decisions/0031-monitor-summary.md). */
export const OVERVIEW_DATA = '/api/monitor_summary';

/**
 * The API reads the dashboard's index.html asks the browser to start at once (`<link
 * rel="preload">`), before its script has even loaded: the overview's summary, for a valid
 * session allowed to read monitors. Without one nothing is preloaded, so a sign-in page never
 * holds a refused answer that the app's first request after signing in would be given.
 */
@Injectable()
export class OverviewPreload {
  constructor(private readonly sessions: SessionsService) {}

  async forCookie(cookieHeader: string | undefined): Promise<readonly string[]> {
    const token = sessionTokenFrom(cookieHeader);
    if (token === undefined) return [];
    const user = await this.sessions.authenticate(token).catch(() => null);
    return user?.permissions.has('monitors:read') ? [OVERVIEW_DATA] : [];
  }
}
