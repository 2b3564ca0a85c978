import { Column, Entity } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';

/** The message shown to an end user about why access is asked for. */
@Entity({ name: 'purpose' })
export class Purpose extends RecordEntity {
  @Column({ type: 'varchar', length: 1024 })
  name!: string;
}
