import type { ErrorObject } from '../api/documents.js';
import type { Wording } from '../forms/form-errors.js';
import { anchorSentence } from './anchors.js';

/** Where the server's error pointers (`/0/value/attributes/<member>`) land in the community form. */
export const communityLayout = (anchorField: 'anchorFiles' | 'anchorText') => [
  {
    name: 'name',
    communityUri: 'communityUri',
    anchors: anchorField,
    scopeCeiling: 'scopeCeiling',
    purposesOfUse: 'purposesOfUse',
    revocationCheck: 'revocationCheck',
    accessTokenLifetime: 'accessTokenLifetime',
    path: 'name',
  },
];

/**
 * The console's sentences for the admin interface's refusals of a trust community (422, a broken
 * rule of docs/reference/trust-communities.md), beside the field they concern; `origins` says
 * where each anchor sent came from. Other refusals keep their words (a taken community URI has
 * its sentence in api/error-sentences.ts).
 */
export function communityWording(origins: string[]): Wording {
  return (field: string | undefined, error: ErrorObject) => {
    // A broken rule; or a lifetime typed as something else than digits (sent as typed: a wrong JSON type).
    if (error.status !== '422' && !(error.status === '400' && field === 'accessTokenLifetime')) return undefined;
    const detail = error.detail ?? '';
    switch (field) {
      case 'name':
        return 'Give the community a name: 1 to 255 characters, without control characters.';
      case 'communityUri':
        return 'The community URI must be an absolute URI, such as https://community.example/udap: no spaces, at most 2048 characters.';
      case 'anchorFiles':
      case 'anchorText':
        return anchorSentence(detail, origins);
      case 'scopeCeiling':
        return 'Give the scopes a member may register, separated by spaces (printable characters, at most 4096 in all).';
      case 'purposesOfUse': {
        const code = /code "([^"]*)"/.exec(detail)?.[1];
        if (code !== undefined) return `The purpose of use “${code}” is not a code in URI form: write codes such as urn:oid:2.16.840.1.113883.5.8#TREAT.`;
        return /at most (\d+)/.test(detail) ? `Give at most ${/at most (\d+)/.exec(detail)![1]} purposes of use.` : undefined;
      }
      case 'revocationCheck':
        return 'Choose whether certificates are checked against their revocation lists: require or off.';
      case 'accessTokenLifetime':
        return 'The access token lifetime must be a whole number of seconds from 1 to 3600.';
      default:
        return undefined;
    }
  };
}
