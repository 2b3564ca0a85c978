import { OAuthError } from '../oauth/oauth-error.js';
import { parseResourceDescription } from './resource-description.js';

function refusal(body: unknown): OAuthError {
  try {
    parseResourceDescription(body);
  } catch (error) {
    if (error instanceof OAuthError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('parseResourceDescription', () => {
  it('keeps the known members and drops the rest', () => {
    expect(
      parseResourceDescription({
        type: 'glucose',
        resource_scopes: ['read', 'write'],
        name: 'G',
        description: 'D',
        icon_uri: 'https://i.example/x.png',
        extra: 1,
      }),
    ).toEqual({ type: 'glucose', resource_scopes: ['read', 'write'], name: 'G', description: 'D', icon_uri: 'https://i.example/x.png' });
  });

  it('leaves out the optional members that are absent', () => {
    expect(parseResourceDescription({ type: 'glucose', resource_scopes: ['read'] })).toEqual({ type: 'glucose', resource_scopes: ['read'] });
  });

  it.each([
    [[], 'object'],
    [null, 'object'],
    ['text', 'object'],
    [{ type: 'g' }, 'resource_scopes is required'],
    [{ type: 'g', resource_scopes: [] }, 'resource_scopes must not be empty'],
    [{ type: 'g', resource_scopes: [1] }, 'resource_scopes'],
    [{ type: 'g', resource_scopes: [''] }, 'resource_scopes'],
    [{ type: 'g', resource_scopes: ['a', 'a'] }, 'repeats "a"'],
    [{ resource_scopes: ['a'] }, 'type is required'],
    [{ type: ' ', resource_scopes: ['a'] }, 'type must not be empty'],
    [{ type: 'g', resource_scopes: ['a'], name: 5 }, 'name must be a string'],
    [{ type: 'g', resource_scopes: ['a'], description: 'd'.repeat(2001) }, 'description must be at most 2000'],
    [{ type: 'g', resource_scopes: ['a'], icon_uri: 'javascript:alert(1)' }, 'icon_uri'],
    [{ type: 'g', resource_scopes: ['a'], icon_uri: 'icon.png' }, 'icon_uri'],
  ])('refuses %j: invalid_request naming the member', (body, named) => {
    const error = refusal(body);
    expect(error.code).toBe('invalid_request');
    expect(error.description).toContain(named);
  });
});
