import { accepts, acceptsGzip, matchesEtag } from './http-negotiation.js';

const TYPE = 'application/statuslist+jwt';

describe('accepts', () => {
  it.each([undefined, '', TYPE, 'application/*', '*/*', 'application/statuslist+cwt, application/statuslist+jwt;q=0.1', 'Application/StatusList+JWT'])(
    'allows the list for Accept %p',
    (header) => {
      expect(accepts(header, TYPE)).toBe(true);
    },
  );

  it.each(['application/statuslist+cwt', 'text/html', 'application/statuslist+jwt;q=0', 'application/json'])('refuses the list for Accept %p', (header) => {
    expect(accepts(header, TYPE)).toBe(false);
  });
});

describe('acceptsGzip', () => {
  it.each([
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['*', true],
    ['gzip;q=0', false],
    ['br', false],
    [undefined, false],
  ])('Accept-Encoding %p: %p', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});

describe('matchesEtag', () => {
  it('matches the tag, its weak form, a list holding it and *', () => {
    for (const header of ['"a"', 'W/"a"', '"b", "a"', '*']) expect(matchesEtag(header, '"a"')).toBe(true);
    for (const header of [undefined, '"b"', 'a']) expect(matchesEtag(header, '"a"')).toBe(false);
  });
});
