import { Controller, Get, Inject, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { serverMetadata } from '../oauth/server-metadata.js';
import { AdminExceptionFilter } from './admin-exception.filter.js';
import { AdminTokenGuard } from './admin-token.guard.js';
import { sendJsonApi } from './json-api/send-json-api.js';

type KeyRow = { kid: string; alg: string; date_created: Date; signs_from: Date; retired_at: Date | null; verify_until: Date | null; signing: boolean };

/**
 * `GET {admin_url}/authorization-server`: the server as the console shows it, read-only. The
 * RFC 8414 metadata is on the public listener, which the console (confined to the admin
 * listener's origin) must not call: the same document is served here, with the signing keys.
 */
@ApiTags('admin')
@ApiSecurity('admin_token')
@Controller('admin')
@UseGuards(AdminTokenGuard)
@UseFilters(AdminExceptionFilter)
export class AuthorizationServerController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  @Get('authorization-server')
  @ApiOperation({ summary: 'The RFC 8414 metadata and the signing keys (current and retiring), as one JSON:API resource' })
  @ApiResponse({ status: 200, description: 'JSON:API document of type authorization-server' })
  async read(@Res() response: Response): Promise<void> {
    const metadata = serverMetadata(this.config);
    const rows: KeyRow[] = await this.dataSource.query(
      `SELECT kid, alg, date_created, signs_from, retired_at, verify_until,
              signs_from <= now() AND (retired_at IS NULL OR retired_at > now()) AS signing FROM signing_key
        WHERE verify_until IS NULL OR verify_until > now() ORDER BY id DESC`,
    );
    const keys = rows.map((row) => ({
      kid: row.kid,
      alg: row.alg,
      created: row.date_created,
      // A rotated key is published before it signs (docs/operations/secrets-and-keys.md#rotating-credentials).
      signing: row.signing,
      signsFrom: row.signs_from,
      publishedUntil: row.verify_until,
    }));
    sendJsonApi(response, 200, { data: { type: 'authorization-server', id: '1', attributes: { issuer: metadata.issuer, metadata, keys } } });
  }
}
