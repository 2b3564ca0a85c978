import { Writable } from 'node:stream';
import { createRootLogger } from './logging.js';
import { PinoNestLogger } from './nest-logger.js';

function capture(level: 'info' | 'debug') {
  const lines: { level: number; msg: string; context?: string }[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as (typeof lines)[number]);
      done();
    },
  });
  const logger = new PinoNestLogger(createRootLogger({ logLevel: level, logFormat: 'json' }, destination));
  return { logger, lines };
}

describe('PinoNestLogger', () => {
  it("writes Nest's route mapping and module initialisation lines at debug", () => {
    const { logger, lines } = capture('debug');
    logger.log('Mapped {/oauth2/token, POST} route', 'RouterExplorer');
    logger.log('TokensController {/oauth2}:', 'RoutesResolver');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    expect(lines.map((line) => line.level)).toEqual([20, 20, 20]);
  });

  it('leaves them out at the default level, and keeps other messages at info', () => {
    const { logger, lines } = capture('info');
    logger.log('Mapped {/oauth2/token, POST} route', 'RouterExplorer');
    logger.log('change notifications restored', 'ChangeFeed');
    expect(lines).toEqual([expect.objectContaining({ level: 30, context: 'ChangeFeed', msg: 'change notifications restored' })]);
  });
});
