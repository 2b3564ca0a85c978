import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

/**
 * A token status list (docs/reference/status-lists.md): its entries are handed out in blocks, in a
 * keyed pseudorandom order; which entries are set is read from `revoked_token`.
 */
@Entity({ name: 'status_list' })
@Unique('UQ_status_list_public_id', ['publicId'])
export class StatusList {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'PK_status_list' })
  id!: number;

  /** The `<list-id>` of its URL: 22 base64url characters from 128 random bits. */
  @Column({ name: 'public_id', type: 'varchar', length: 22 })
  publicId!: string;

  /** Entries, a power of two. */
  @Column({ type: 'integer' })
  size!: number;

  /** Bits per entry: always 1 (VALID or INVALID). */
  @Column({ type: 'smallint', default: 1 })
  bits!: number;

  /** The key of the permutation that orders its indices; never shown. */
  @Column({ name: 'permutation_key', type: 'bytea', select: false })
  permutationKey!: Buffer;

  /** Blocks of indices handed out so far (each used at most once, by one process). */
  @Column({ name: 'blocks_reserved', type: 'integer', default: 0 })
  blocksReserved!: number;

  /** The latest `exp` a token naming this list can have. */
  @Column({ name: 'max_expires_at', type: 'timestamptz', nullable: true })
  maxExpiresAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
