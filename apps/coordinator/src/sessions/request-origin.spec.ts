import { describe, expect, it } from '@jest/globals';
import type { FastifyRequest } from 'fastify';
import { ownOrigins, secureCookie } from './request-origin.js';

const request = (protocol: 'http' | 'https', host: string) => ({ protocol, host }) as unknown as FastifyRequest;

describe('the origins a session may write from, and when its cookie is Secure', () => {
  it.each([
    ['http', '127.0.0.1:8080', undefined, ['http://127.0.0.1:8080'], false],
    ['https', 'picket.example.com', undefined, ['https://picket.example.com'], true],
    ['https', 'picket.example.com:443', undefined, ['https://picket.example.com'], true],
    [
      'http',
      '10.0.0.5:8080',
      'https://status.example.com/',
      ['http://10.0.0.5:8080', 'https://status.example.com'],
      true,
    ],
    [
      'http',
      '10.0.0.5:8080',
      'http://picket.internal:8080',
      ['http://10.0.0.5:8080', 'http://picket.internal:8080'],
      false,
    ],
    ['http', 'Picket.Example.COM', undefined, ['http://picket.example.com'], false],
  ] as const)('%s://%s with PUBLIC_URL %p', (protocol, host, publicUrl, origins, secure) => {
    expect(ownOrigins(request(protocol, host), publicUrl)).toEqual(origins);
    expect(secureCookie(request(protocol, host), publicUrl)).toBe(secure);
  });
});
