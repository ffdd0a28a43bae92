import { useQuery } from '@tanstack/react-query';
import { ApiError, api, setCsrfToken } from './api.ts';

export interface User {
  id: string;
  email: string;
  name: string;
  role: 'admin' | 'editor' | 'viewer';
  created_at: number;
  last_login_at: number | null;
}

export interface Me {
  user: User;
  account_id: string;
  permissions: string[];
  csrf_token: string;
}

/** The signed-in user (GET /api/me); null when not signed in (401). */
export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async (): Promise<Me | null> => {
      try {
        const { data } = await api.get<{ data: Me }>('/api/me');
        setCsrfToken(data.csrf_token);
        return data;
      } catch (error) {
        if (error instanceof ApiError && (error.status === 401 || error.status === 404)) {
          setCsrfToken(null);
          return null;
        }
        throw error;
      }
    },
    staleTime: 60_000,
    retry: false,
  });
}

export const can = (me: Me | null | undefined, permission: string) => me?.permissions.includes(permission) ?? false;

/** Whether the signed-in user holds `permission`: pages show their write buttons only then (a viewer reads). */
export function useCan(permission: string): boolean {
  return can(useMe().data, permission);
}
