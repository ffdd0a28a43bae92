import { describe, expect, it } from '@jest/globals';
import { parseCheckerAddresses } from './checker-addresses.js';

describe('parseCheckerAddresses', () => {
  it.each([
    ['', {}],
    ['eu-west-1=203.0.113.5', { 'eu-west-1': ['203.0.113.5'] }],
    [
      ' eu-west-1 = 203.0.113.5, 2001:db8::5 ; us-east-1=198.51.100.7;',
      { 'eu-west-1': ['203.0.113.5', '2001:db8::5'], 'us-east-1': ['198.51.100.7'] },
    ],
    ['eu-west-1=203.0.113.5;eu-west-1=203.0.113.6', { 'eu-west-1': ['203.0.113.5', '203.0.113.6'] }],
    ['mars-1=203.0.113.5', '"mars-1" is not a region'],
    ['eu-west-1=example.com', '"example.com" is not an IP address'],
    ['eu-west-1', '"eu-west-1" is not region=address,address'],
    ['eu-west-1=1.2.3.4=5', '"eu-west-1=1.2.3.4=5" is not region=address,address'],
  ])('%j', (text, expected) => {
    expect(parseCheckerAddresses(text)).toEqual(expected);
  });
});
