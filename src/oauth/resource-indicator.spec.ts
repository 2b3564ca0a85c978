import { isAbsoluteUri } from './resource-indicator.js';

describe('isAbsoluteUri', () => {
  it.each(['https://glucose.example/api', 'http://127.0.0.1:8080', 'urn:example:glucose', 'https://rs.example/path?tenant=1'])('accepts %s', (uri) => {
    expect(isAbsoluteUri(uri)).toBe(true);
  });

  it.each(['/api', 'glucose.example/api', 'https://rs.example/#part', 'https://rs .example', ' https://rs.example', '', 'https://'])('refuses %j', (uri) => {
    expect(isAbsoluteUri(uri)).toBe(false);
  });
});
