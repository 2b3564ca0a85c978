import { Index, Entity, JoinColumn, ManyToOne, type Relation } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';
import { Purpose } from './purpose.entity.js';
import { RequestedResource } from './requested-resource.entity.js';
import { Scope } from './scope.entity.js';

/** Binds a scope and a purpose to a requested resource. */
@Entity({ name: 'requested_resource_scopes' })
// Indexes of the admin interface's filters (docs/reference/admin-filters.md), made by migration 1764500000000;
// some are expression or hash indexes TypeORM cannot describe, so the schema builder leaves them alone.
@Index('IDX_requested_resource_scopes_scope', { synchronize: false })
@Index('IDX_requested_resource_scopes_purpose', { synchronize: false })
@Index('IDX_requested_resource_scopes_resource', ['requestedResource'])
export class RequestedResourceScopes extends RecordEntity {
  @ManyToOne(() => Scope, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'scope_id' })
  scope!: Relation<Scope>;

  @ManyToOne(() => Purpose, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'purpose_id' })
  purpose!: Relation<Purpose>;

  @ManyToOne(() => RequestedResource, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'requested_resource_id' })
  requestedResource!: Relation<RequestedResource>;
}
