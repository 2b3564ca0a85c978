import { CreateDateColumn, PrimaryGeneratedColumn, UpdateDateColumn, VersionColumn } from 'typeorm';

/** The columns every row carries (docs/concepts/consent-tickets.md#the-records). */
export abstract class RecordEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @VersionColumn({ default: 1 })
  version!: number;

  @CreateDateColumn({ name: 'date_created', type: 'timestamptz' })
  dateCreated!: Date;

  @UpdateDateColumn({ name: 'last_updated', type: 'timestamptz' })
  lastUpdated!: Date;
}
