import { describe, expect, it } from '@jest/globals';
import { maskUrlCredentials, maskUrlList } from './mask-url.js';

/** Passwords with every character that ends a URL part, or separates list entries. */
const NASTY = ['p/ss', 'p#ss', 'p,ss', 'p@ss', 'p?ss', 'a/b#c,d@e?f', '/', '#', '@', '?', ',', ':', 'p:ss', 'p%40ss'];

describe('maskUrlCredentials', () => {
  it.each([
    ['postgres://picket@db:5432/picket', 'postgres://***@db:5432/picket'],
    ['postgres://picket:secret@db:5432/picket?sslmode=require', 'postgres://picket:***@db:5432/picket?sslmode=require'],
    ['postgresql://db:5432/picket', 'postgresql://db:5432/picket'],
    ['sqlite:./data/picket.db', 'sqlite:./data/picket.db'],
    ['sqlite:/srv/a@b/picket.db', 'sqlite:/srv/a@b/picket.db'],
    ['smtp://mailer:secret@smtp.example:587', 'smtp://mailer:***@smtp.example:587'],
    ['smtps://mailer:p/ss#x@smtp.example:465', 'smtps://***@smtp.example:465'],
    ['nats://user:@host:4222', 'nats://user:***@host:4222'],
    ['user:secret@host:4222', 'user:***@host:4222'],
  ])('%s → %s', (url, masked) => {
    expect(maskUrlCredentials(url)).toBe(masked);
  });

  it.each(NASTY)('never shows any of the password %p', (password) => {
    for (const url of [
      `postgres://picket:${password}@db.internal:5432/picket`,
      `smtp://mailer:${password}@smtp.example:587`,
      `smtps://mailer:${password}@smtp.example`,
    ]) {
      const masked = maskUrlCredentials(url);
      expect(masked).not.toContain(`:${password}@`);
      expect(masked.replace(/^[a-z]+:\/\/(picket|mailer)?:?\*\*\*@/, '')).toMatch(
        /^(db\.internal:5432\/picket|smtp\.example(:587)?)$/,
      );
    }
  });
});

describe('maskUrlList', () => {
  it.each([
    ['nats://127.0.0.1:4222', 'nats://127.0.0.1:4222'],
    ['nats://user:secret@nats.example:4222', 'nats://user:***@nats.example:4222'],
    ['nats://s3cr3t-token@nats.example', 'nats://***@nats.example'],
    ['nats://user:p%40ss@host', 'nats://user:***@host'],
    ['nats://user:p@ss@host:4222', 'nats://user:***@host:4222'],
    ['tls://user:secret@host:4222', 'tls://user:***@host:4222'],
    ['nats://[::1]:4222', 'nats://[::1]:4222'],
    [
      'nats://a:1@h1:4222, nats://tok@h2:4222,nats://h3:4222',
      'nats://a:***@h1:4222, nats://***@h2:4222, nats://h3:4222',
    ],
  ])('%s → %s', (servers, masked) => {
    expect(maskUrlList(servers)).toBe(masked);
  });

  it.each(NASTY)('never shows any of the password %p', (password) => {
    for (const list of [`nats://user:${password}@h1:4222`, `nats://h0:4222,nats://user:${password}@h1:4222`]) {
      const masked = maskUrlList(list);
      expect(masked).not.toContain(`:${password}@`);
      expect(masked).toMatch(/(user:)?\*\*\*@h1:4222$/);
      // Nothing of the password is left between the scheme and the host.
      expect(masked.slice(masked.lastIndexOf('://') + 3)).toMatch(/^(user:)?\*\*\*@h1:4222$/);
    }
  });
});
