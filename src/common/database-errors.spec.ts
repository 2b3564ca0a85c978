import { isDatabaseUnavailable, isForeignKeyViolation, isReadOnlyDatabase, isUniqueViolation } from './database-errors.js';

// Errors shaped as pg and TypeORM make them: a code (SQLSTATE or errno), a severity, a wrapped driverError.
const pgError = (code: string, severity = 'ERROR', message = 'error') => Object.assign(new Error(message), { code, severity });
const typeormError = (driverError: Error) => Object.assign(new Error('Query failed'), { driverError });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a connection exception (class 08)', pgError('08006')],
    ['a connection refused by the server (08004)', pgError('08004', 'FATAL')],
    ['admin shutdown (57P01)', pgError('57P01', 'FATAL')],
    ['crash shutdown (57P02)', pgError('57P02', 'FATAL')],
    ['cannot connect now (57P03)', pgError('57P03', 'FATAL')],
    ['too many connections (53300)', pgError('53300', 'FATAL')],
    ['a database taking no new sessions (FATAL 55000)', pgError('55000', 'FATAL', 'database "x" is not currently accepting connections')],
    ['a read-only transaction (25006, a node being demoted)', pgError('25006', 'ERROR', 'cannot execute INSERT in a read-only transaction')],
    ['a serialization failure or a conflict with recovery (40001)', pgError('40001')],
    ['a client used after its connection failed', new Error('Client has encountered a connection error and is not queryable')],
    ['a group commit past its deadline', new Error('the database did not commit in time')],
    ['connection refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['connection reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ["pg's pool timeout", new Error('timeout exceeded when trying to connect')],
    ['a connection ended under a query', new Error('Connection terminated unexpectedly')],
    ['any of them wrapped by TypeORM', typeormError(pgError('57P01', 'FATAL'))],
    ['any of them as a cause', new Error('lookup failed', { cause: pgError('53300', 'FATAL') })],
    ['any of them inside an AggregateError', new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })])],
  ])('is true for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', pgError('23505')],
    ['a syntax error', pgError('42601')],
    ['55000 raised by a statement', pgError('55000')],
    ['a wrong password (28P01)', pgError('28P01', 'FATAL')],
    ['a plain bug', new TypeError('undefined is not a function')],
    ['not an error', undefined],
  ])('is false for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('isReadOnlyDatabase', () => {
  it('is true for SQLSTATE 25006, also inside a TypeORM error, and false for other codes', () => {
    expect(isReadOnlyDatabase(pgError('25006'))).toBe(true);
    expect(isReadOnlyDatabase(typeormError(pgError('25006')))).toBe(true);
    expect(isReadOnlyDatabase(pgError('57P01', 'FATAL'))).toBe(false);
    expect(isReadOnlyDatabase(new Error('no code'))).toBe(false);
  });
});

describe('constraint violations', () => {
  it('tells a unique violation from a foreign key violation, also inside a TypeORM error', () => {
    expect(isUniqueViolation(pgError('23505'))).toBe(true);
    expect(isUniqueViolation(typeormError(pgError('23505')))).toBe(true);
    expect(isUniqueViolation(pgError('23503'))).toBe(false);
    expect(isForeignKeyViolation(pgError('23503'))).toBe(true);
    expect(isForeignKeyViolation(pgError('23505'))).toBe(false);
    expect(isForeignKeyViolation(new Error('no code'))).toBe(false);
  });
});
