import { Column, Entity, Index, JoinColumn, ManyToOne, Unique, type Relation } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';
import { Scope } from '../tickets/scope.entity.js';
import { UmaResource } from './uma-resource.entity.js';

/** A scope a registered UMA resource offers, in the order it was registered (`position`). */
@Entity({ name: 'uma_resource_scope' })
@Unique('UQ_uma_resource_scope', ['resource', 'scope'])
@Index('IDX_uma_resource_scope_scope', ['scope'])
export class UmaResourceScope extends RecordEntity {
  @ManyToOne(() => UmaResource, { nullable: false, onDelete: 'CASCADE' })
  @JoinColumn({ name: 'uma_resource_id' })
  resource!: Relation<UmaResource>;

  @ManyToOne(() => Scope, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'scope_id' })
  scope!: Relation<Scope>;

  @Column({ type: 'integer' })
  position!: number;
}
