import { Writable } from 'node:stream';
import { CLIENT_AUTHENTICATION_FAILED } from '../../src/oauth/oauth-error.js';
import { eventually } from './processes.js';

/** A pino line as the tests read it. */
export type LogLine = { level: number; msg?: string; failedCheck?: string; req?: { id?: string }; res?: { statusCode: number } } & Record<string, unknown>;

/**
 * The JSON log lines of an application started with `startTestApp(env, { logs: lines.stream })`
 * (and LOG_LEVEL=info or lower), kept in memory so that a test can read what was logged for one
 * of its requests.
 */
export class LogLines {
  readonly lines: LogLine[] = [];
  readonly stream = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) this.lines.push(JSON.parse(text) as LogLine);
      done();
    },
  });

  /**
   * The request line of the response with this X-Request-Id (written once the response has
   * finished, which may be just after the client has read it).
   */
  requestLine(response: { headers: Record<string, unknown> }): Promise<LogLine> {
    const id = response.headers['x-request-id'];
    return eventually(() => Promise.resolve(this.lines.find((line) => line.req?.id === id && line.res !== undefined)), 5_000, 20);
  }

  /** The check an invalid_client's request line names (`failedCheck`). */
  async failedCheckOf(response: { headers: Record<string, unknown> }): Promise<string | undefined> {
    return (await this.requestLine(response)).failedCheck;
  }

  /**
   * A refused client authentication: the response is `invalid_client` with the one description
   * every such refusal has; answers the check its log line names.
   */
  async refusedBecause(response: { headers: Record<string, unknown>; body: unknown }): Promise<string | undefined> {
    const body: unknown = typeof response.body === 'string' ? JSON.parse(response.body) : response.body;
    expect(body).toEqual({ error: 'invalid_client', error_description: CLIENT_AUTHENTICATION_FAILED });
    return this.failedCheckOf(response);
  }
}
