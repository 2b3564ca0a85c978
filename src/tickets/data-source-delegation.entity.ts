import { Column, Entity, Index, JoinColumn, ManyToOne, Unique, type Relation } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';
import { DataSourceEntity } from './data-source.entity.js';

/**
 * A delegation (docs/guides/token-exchange.md#delegations): data source `from` may exchange a
 * client's token it received for one meant for data source `to`, for these resource scopes
 * (`definition:scope` of definitions `to` serves; none listed: every scope `to` serves). One pair
 * at most once.
 */
@Entity({ name: 'data_source_delegation' })
@Unique('UQ_data_source_delegation_pair', ['from', 'to'])
@Index('IDX_data_source_delegation_to', ['to'])
export class DataSourceDelegation extends RecordEntity {
  @ManyToOne(() => DataSourceEntity, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'from_id' })
  from!: Relation<DataSourceEntity>;

  @ManyToOne(() => DataSourceEntity, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'to_id' })
  to!: Relation<DataSourceEntity>;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  scopes!: string[];
}
