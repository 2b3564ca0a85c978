import { Index, Entity, JoinColumn, ManyToOne, type Relation } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';
import { CapabilityTicket } from './capability-ticket.entity.js';
import { RequestedResource } from './requested-resource.entity.js';

/** Combines a capability ticket and a requested resource: the client's overall permission. */
@Entity({ name: 'requested_resources_capability_tickets' })
@Index('IDX_combination_ticket', ['capabilityTicket'])
@Index('IDX_combination_resource', ['requestedResource'])
export class RequestedResourcesCapabilityTickets extends RecordEntity {
  @ManyToOne(() => CapabilityTicket, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'capability_ticket_id' })
  capabilityTicket!: Relation<CapabilityTicket>;

  @ManyToOne(() => RequestedResource, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'requested_resource_id' })
  requestedResource!: Relation<RequestedResource>;
}
