import { Injectable } from '@nestjs/common';

/**
 * Whether this process still wants traffic. A shutdown flips it first, so /health/ready answers 503
 * and load balancers stop sending before the listeners stop accepting
 * (docs/operations/shutdown.md).
 */
@Injectable()
export class Readiness {
  private stopping = false;

  get shuttingDown(): boolean {
    return this.stopping;
  }

  stopServing(): void {
    this.stopping = true;
  }
}
