import { listenersOfRoute } from './listener-routes.js';

describe('listenersOfRoute', () => {
  it.each([
    ['/admin', 'admin'],
    ['/admin/:type/:id', 'admin'],
    ['admin/explain', 'admin'],
    ['/ADMIN', 'admin'],
    ['/metrics', 'admin'],
    ['/docs', 'admin'],
    ['/docs/swagger-ui-init.js', 'admin'],
    ['/docs-json', 'admin'],
    ['/docs-yaml', 'admin'],
    ['/console', 'admin'],
    ['/console/:name', 'admin'],
    ['/health/live', 'both'],
    ['/health/ready', 'both'],
    ['/oauth2/token', 'public'],
    ['/.well-known/oauth-authorization-server', 'public'],
    ['/', 'public'],
    ['/administrator', 'public'],
    ['/metrics-extra', 'public'],
    ['/docsx', 'public'],
  ])('puts %s on %s', (path, expected) => {
    expect(listenersOfRoute(path)).toBe(expected);
  });

  it('runs a middleware without a path on both listeners', () => {
    expect(listenersOfRoute(() => undefined)).toBe('both');
  });

  it('refuses a path it cannot classify', () => {
    expect(() => listenersOfRoute(/admin/)).toThrow(/not a string/);
    expect(() => listenersOfRoute(['/admin', '/oauth2'])).toThrow(/not a string/);
  });
});
