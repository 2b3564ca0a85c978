import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { splitSpaced } from '../clients/client-record.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { asResourceScope } from '../oauth/scope.js';
import { isUnsupported, parseSmartScope } from '../oauth/smart-scope.js';
import {
  decideAccess,
  type AccessFacts,
  type AccessRequest,
  type DataSourceFacts,
  type Decision,
  type DefinitionFacts,
  type MappedDefinition,
} from './access-decision.js';
import { ConsentDirectory } from './consent-directory.js';
import { DataSourceDirectory } from './data-source-directory.js';

/** The client as the decision sees it: its row id, client_id, allowed scopes and own token lifetime (null: ACCESS_TOKEN_TTL). */
export type DecidingClient = { id: number; clientId: string; allowedScopes: ReadonlySet<string>; accessTokenLifetime?: number | null };

/**
 * Gathers the facts of decideAccess: from the caches for the token endpoint, fresh from the
 * database (and counting nothing) for `explain`. Both then run the same function.
 */
@Injectable()
export class AccessDecisions {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly consents: ConsentDirectory,
    private readonly dataSources: DataSourceDirectory,
  ) {}

  async decide(client: DecidingClient, request: AccessRequest, fresh = false): Promise<Decision> {
    const facts = await this.factsFor(client, request, fresh);
    const maxLifetime = client.accessTokenLifetime ?? this.config.accessTokenTtl;
    return decideAccess(request, facts, { maxLifetime, defaultAudience: this.config.audience });
  }

  /** `explain`: the decision for the client with this client_id, read fresh; null for an unknown client. */
  async explain(clientId: string, request: AccessRequest): Promise<Decision | null> {
    const [row]: { id: number; client_id: string; allowed_scopes: string; access_token_lifetime: number | null }[] = await this.dataSource.query(
      'SELECT c.id, c.client_id, m.allowed_scopes, m.access_token_lifetime FROM client c JOIN client_metadata m ON m.id = c.metadata_id WHERE c.client_id = $1',
      [clientId],
    );
    if (!row) return null;
    const client = { id: row.id, clientId: row.client_id, allowedScopes: splitSpaced(row.allowed_scopes), accessTokenLifetime: row.access_token_lifetime };
    return this.decide(client, request, true);
  }

  private async factsFor(client: DecidingClient, request: AccessRequest, fresh: boolean): Promise<AccessFacts> {
    const smart = request.scopes.map(parseSmartScope).filter((scope) => scope !== undefined && !isUnsupported(scope));
    // SMART scopes are looked up among the mapped definitions, which a plain request never reads.
    const mapped = smart.length > 0 ? await this.dataSources.mappedDefinitions(fresh) : undefined;
    const names = new Set(
      request.scopes
        .filter((name) => parseSmartScope(name) === undefined && client.allowedScopes.has(name))
        .map(asResourceScope)
        .filter((wanted) => wanted !== undefined)
        .map((wanted) => wanted.definition),
    );
    for (const definition of mapped ?? []) if (denotable(definition, client)) names.add(definition.name);
    const definitions = new Map<string, DefinitionFacts | null>();
    for (const name of names) definitions.set(name, await this.dataSources.definition(name, fresh));
    const dataSources = new Map<string, DataSourceFacts | null>();
    for (const uri of new Set(request.resources)) dataSources.set(uri, await this.dataSources.byResourceUri(uri, fresh));
    // A client asking for plain scopes only costs no lookup at all.
    const held = names.size > 0 ? await this.consents.heldBy(client.id, fresh) : [];
    return { clientId: client.clientId, allowedScopes: client.allowedScopes, held, definitions, dataSources, ...(mapped ? { mapped } : {}) };
  }
}

/** Whether a SMART scope could stand for one of the client's allowed scopes of this definition (only those need its facts). */
function denotable(definition: MappedDefinition, client: DecidingClient): boolean {
  return definition.scopes.some((scope) => client.allowedScopes.has(`${definition.name}:${scope.name}`));
}
