import { describe, expect, it } from '@jest/globals';
import { RouteTable } from './route-table.js';

describe('RouteTable', () => {
  const routes = new RouteTable();
  routes.add('GET', '/api/monitors');
  routes.add(['POST', 'HEAD'], '/api/monitors');
  routes.add('GET', '/api/monitors/:id');
  routes.add('PUT', '/api/monitors/:id');
  routes.add('POST', '/api/monitors/:id/pause');

  it.each([
    ['/api/monitors', ['GET', 'HEAD', 'POST']],
    ['/api/monitors/', ['GET', 'HEAD', 'POST']],
    ['/api/monitors/abc', ['GET', 'PUT']],
    ['/api/monitors/abc/pause', ['POST']],
    ['/api/monitors/abc/unknown', []],
    ['/api/monitorsX', []],
    ['/api', []],
  ])('%s allows %j', (path, methods) => {
    expect(routes.allowedMethods(path)).toEqual(methods);
  });
});
