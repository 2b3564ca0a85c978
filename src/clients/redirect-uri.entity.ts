import { Column, Entity, JoinColumn, ManyToOne, type Relation } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';
import { Client } from './client.entity.js';

@Entity({ name: 'redirect_uri' })
export class RedirectUri extends RecordEntity {
  @ManyToOne(() => Client, (client) => client.redirectUris, { nullable: false, onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id' })
  client!: Relation<Client>;

  @Column({ name: 'uri', type: 'varchar', length: 2048 })
  uri!: string;
}
