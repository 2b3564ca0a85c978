import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { StatusIndexAllocator } from './status-index-allocator.js';

const config = { statusList: true, statusListSize: 1024, issuer: 'https://as.example' } as AppConfig;

describe('StatusIndexAllocator', () => {
  beforeAll(() => {
    Logger.overrideLogger(false);
  });
  afterAll(() => {
    Logger.overrideLogger(new Logger());
  });

  it('refuses with 503 temporarily_unavailable and Retry-After when no block can be reserved, handing out no index', async () => {
    const unreachable = { transaction: () => Promise.reject(new Error('connect ECONNREFUSED')) } as unknown as DataSource;
    const allocator = new StatusIndexAllocator(config, unreachable);
    const taken = allocator.take();
    await expect(taken).rejects.toBeInstanceOf(OAuthError);
    await expect(allocator.take()).rejects.toMatchObject({
      code: 'temporarily_unavailable',
      status: 503,
      headers: { 'Retry-After': expect.stringMatching(/^\d+$/) as string },
    });
  });
});
