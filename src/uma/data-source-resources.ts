import type { DataSource } from 'typeorm';

/** A registered UMA resource as administrators see it. */
export type UmaResourceView = {
  id: number;
  resourceId: string;
  type: string;
  definitionId: number;
  clientKey: number;
  name: string | null;
  description: string | null;
  iconUri: string | null;
  resourceScopes: string[];
};

/**
 * The resources registered by a data source's umaClient (docs/guides/uma.md), a page at a time;
 * null when there is no such data source. A data source without a umaClient has none.
 */
export async function resourcesOfDataSource(
  dataSource: DataSource,
  dataSourceId: number,
  offset: number,
  limit: number,
): Promise<{ resources: UmaResourceView[]; total: number } | null> {
  const [source]: { client_id: number | null }[] = await dataSource.query('SELECT client_id FROM data_source WHERE id = $1', [dataSourceId]);
  if (!source) return null;
  if (source.client_id === null) return { resources: [], total: 0 };
  const rows: {
    id: number;
    resource_id: string;
    type: string;
    definition_id: number;
    client_id: number;
    name: string | null;
    description: string | null;
    icon_uri: string | null;
    scopes: string[];
  }[] = await dataSource.query(
    `SELECT r.id, r.resource_id, d.name AS type, d.id AS definition_id, r.client_id, r.name, r.description, r.icon_uri,
              ARRAY(SELECT s.name FROM uma_resource_scope rs JOIN scope s ON s.id = rs.scope_id WHERE rs.uma_resource_id = r.id ORDER BY rs.position) AS scopes
         FROM uma_resource r JOIN resource_definition d ON d.id = r.resource_definition_id
        WHERE r.client_id = $1 ORDER BY r.id LIMIT $2 OFFSET $3`,
    [source.client_id, limit, offset],
  );
  const [{ count }]: { count: number }[] = await dataSource.query('SELECT count(*)::int AS count FROM uma_resource WHERE client_id = $1', [source.client_id]);
  return {
    resources: rows.map((row) => ({
      id: row.id,
      resourceId: row.resource_id,
      type: row.type,
      definitionId: row.definition_id,
      clientKey: row.client_id,
      name: row.name,
      description: row.description,
      iconUri: row.icon_uri,
      resourceScopes: row.scopes,
    })),
    total: count,
  };
}
