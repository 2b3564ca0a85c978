import { formatDuration, joinWords, ticketSentence } from './ticket-sentence.js';

describe('ticketSentence', () => {
  it('reads the seed example as docs/guides/console.md writes it', () => {
    expect(
      ticketSentence({
        clientId: 'glucose-app',
        definition: 'blood-glucose-level',
        scopes: ['read'],
        purpose: 'Your doctor follows your blood glucose level',
        maxPermissionDuration: 1800,
        ticketId: 'T-1',
      }),
    ).toBe("glucose-app may read blood-glucose-level for 'Your doctor follows your blood glucose level', at most 30 min, ticket T-1");
  });

  it('joins several scopes with commas and "and"', () => {
    expect(
      ticketSentence({ clientId: 'c', definition: 'd', scopes: ['read', 'write', 'delete'], purpose: 'p', maxPermissionDuration: 60, ticketId: 't' }),
    ).toBe("c may read, write and delete d for 'p', at most 1 min, ticket t");
  });

  it('says so when a ticket binds no scope', () => {
    expect(ticketSentence({ clientId: 'c', definition: 'd', scopes: [], purpose: 'p', maxPermissionDuration: 5, ticketId: 't' })).toBe(
      "c may use no scope of d for 'p', at most 5 s, ticket t",
    );
  });
});

describe('joinWords', () => {
  it.each([
    [[], ''],
    [['read'], 'read'],
    [['read', 'write'], 'read and write'],
  ])('joins %j as "%s"', (words, expected) => {
    expect(joinWords(words)).toBe(expected);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0 s'],
    [45, '45 s'],
    [90, '1 min 30 s'],
    [1800, '30 min'],
    [3600, '1 h'],
    [5400, '1 h 30 min'],
    [86_400 + 3_600 + 61, '1 d 1 h'],
  ])('writes %i seconds as "%s"', (seconds, expected) => {
    expect(formatDuration(seconds)).toBe(expected);
  });
});
