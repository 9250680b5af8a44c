// Label values come from closed sets: methods, status classes, and route classes that look like patterns.

import { describe, expect, it } from 'vitest';
import { methodLabel, requestLabels, routeClassLabel, statusClassLabel } from './metric-labels.js';

describe('metric labels', () => {
  it.each(['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'PATCH'])('keeps the served method %s', (m) => {
    expect(methodLabel(m)).toBe(m);
  });

  it.each([['PROPFIND'], ['get'], ['M-SEARCH'], [''], [undefined]])('folds %j into other', (m) => {
    expect(methodLabel(m)).toBe('other');
  });

  it.each([
    [200, '2xx'],
    [204, '2xx'],
    [206, '2xx'],
    [304, '3xx'],
    [307, '3xx'],
    [404, '4xx'],
    [429, '4xx'],
    [500, '5xx'],
    [503, '5xx'],
    [101, '1xx'],
    [999, 'other'],
    [0, 'other'],
  ])('status %d is %s', (status, label) => {
    expect(statusClassLabel(status)).toBe(label);
  });

  it('labels a request the client left before any status as aborted', () => {
    expect(statusClassLabel(undefined)).toBe('aborted');
  });

  it.each([
    'PutObject',
    'CompleteMultipartUpload',
    '/api/admin/keys/:id',
    '/admin/*',
    '/metrics',
    'unmatched',
    'Unknown',
  ])('keeps the pattern-shaped route class %s', (rc) => {
    expect(routeClassLabel(rc)).toBe(rc);
  });

  it.each([
    '/bucket/key with spaces',
    '/b/k?versionId=1',
    'a'.repeat(81),
    '',
    '/b/caf\u00e9',
    '/b/k"}injected{',
    '/b/k\nstore_fake 1',
  ])('refuses the URL-shaped value %j as a route class', (rc) => {
    expect(routeClassLabel(rc)).toBe('other');
  });

  it('builds the four labels of a request', () => {
    expect(requestLabels({ surface: 's3', method: 'BREW', routeClass: 'GetObject', status: 404 })).toEqual({
      surface: 's3',
      method: 'other',
      route_class: 'GetObject',
      status_class: '4xx',
    });
  });
});
