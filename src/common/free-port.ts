import { createServer, type Server } from 'node:net';

/** `count` distinct TCP ports free on 127.0.0.1 right now (held together, so never twice the same). */
export async function freePorts(count: number): Promise<number[]> {
  const probes: Server[] = [];
  try {
    for (let index = 0; index < count; index += 1) {
      const probe = createServer();
      probes.push(probe);
      await new Promise<void>((resolve, reject) => {
        probe.once('error', reject);
        probe.listen(0, '127.0.0.1', () => resolve());
      });
    }
    return probes.map((probe) => {
      const address = probe.address();
      return typeof address === 'object' && address ? address.port : 0;
    });
  } finally {
    await Promise.all(probes.map((probe) => new Promise((resolve) => probe.close(resolve))));
  }
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port;
}
