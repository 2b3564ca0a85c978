import fc from 'fast-check';
import { parseBasicAuthorization } from './basic-credentials.js';

// RFC 6749 appendix A: client_id and client_secret are VSCHAR (%x20-7E).
const vschar = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength: 80 });
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');

describe('parseBasicAuthorization, properties', () => {
  it('never throws, whatever the header', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (header) => {
        parseBasicAuthorization(header);
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on Basic with arbitrary bytes inside the base64', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        parseBasicAuthorization(`Basic ${Buffer.from(bytes).toString('base64')}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips any VSCHAR id and secret encoded as RFC 6749 §2.3.1 says', () => {
    fc.assert(
      fc.property(vschar, vschar, (clientId, clientSecret) => {
        const header = `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString('base64')}`;
        expect(parseBasicAuthorization(header)).toEqual({ clientId, clientSecret });
      }),
      { numRuns: 1000 },
    );
  });
});
