import { oauthErrorOf } from './refusal-error.js';

describe('oauthErrorOf', () => {
  it.each([
    ['not_allowed', 'invalid_scope'],
    ['not_covered', 'invalid_scope'],
    ['unknown_target', 'invalid_target'],
  ] as const)('answers a %s refusal with %s and its description', (kind, code) => {
    const error = oauthErrorOf({ kind, description: 'what is missing' });
    expect(error.code).toBe(code);
    expect(error.description).toBe('what is missing');
  });
});
