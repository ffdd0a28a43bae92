import { describe, expect, it } from '@jest/globals';
import { parseCorsOrigins } from './cors-origins.js';

describe('parseCorsOrigins', () => {
  it.each([
    ['', []],
    [' , ', []],
    ['https://dash.example.com', ['https://dash.example.com']],
    [
      'https://Dash.Example.com, http://localhost:3000,https://dash.example.com',
      ['https://dash.example.com', 'http://localhost:3000'],
    ],
    ['https://a.example:443,http://b.example:80', ['https://a.example', 'http://b.example']],
    ['http://[::1]:8080', ['http://[::1]:8080']],
  ])('%j', (text, expected) => {
    const parsed = parseCorsOrigins(text);
    expect(typeof parsed === 'string' ? parsed : [...parsed]).toEqual(expected);
  });

  it.each([
    'dash.example.com',
    '*',
    'https://dash.example.com/',
    'https://dash.example.com/app',
    'https://dash.example.com?x=1',
    'https://user@dash.example.com',
    'ftp://dash.example.com',
    'null',
  ])('refuses %j', (text) => {
    expect(typeof parseCorsOrigins(text)).toBe('string');
  });
});
