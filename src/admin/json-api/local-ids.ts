import { malformed, notFound } from './admin-error.js';
import type { Operation } from './patch-operation.js';

/**
 * JSON:API 1.1 local ids (`lid`) inside one JSON Patch request: an `add` may name the record it
 * creates with a `lid`, and later operations of the same request refer to it with
 * `{"type", "lid"}` instead of `{"type", "id"}`. The console writes a whole consent ticket in one
 * request this way, without choosing ids that could collide with anyone else's.
 */
export class LocalIds {
  private readonly ids = new Map<string, number>();

  /** The operation with every `{type, lid}` relationship replaced by `{type, id}`. */
  resolve(operation: Operation): Operation {
    if (operation.op === 'remove' || !isObject(operation.value)) return operation;
    const value = { ...operation.value };
    const lid = value.lid;
    if (lid !== undefined && (typeof lid !== 'string' || lid === '' || lid.length > 100)) {
      throw malformed('lid must be a string of 1 to 100 characters', '/value/lid');
    }
    if (lid !== undefined && operation.op === 'add' && this.ids.has(key(value.type, lid))) {
      throw malformed(`lid "${lid}" is used twice in this request`, '/value/lid');
    }
    delete value.lid;
    if (isObject(value.relationships)) {
      // Object.fromEntries defines own members: an assignment `relationships['__proto__'] = …` would
      // set the object's prototype instead, and the relationship would vanish unchecked.
      value.relationships = Object.fromEntries(Object.entries(value.relationships).map(([name, member]) => [name, this.resolveRelationship(name, member)]));
    }
    return { ...operation, value };
  }

  /** After an `add` that carried a `lid`: remember the id the record got. */
  remember(operation: Operation, id: string | undefined): void {
    if (operation.op !== 'add' || !isObject(operation.value) || id === undefined) return;
    const { type, lid } = operation.value;
    if (typeof lid === 'string') this.ids.set(key(type, lid), Number(id));
  }

  private resolveRelationship(name: string, member: unknown): unknown {
    const data = isObject(member) ? member.data : undefined;
    if (!isObject(data) || data.lid === undefined) return member;
    const pointer = `/value/relationships/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (data.id !== undefined) throw malformed('a relationship names a record by id or by lid, not both', `${pointer}/data`);
    const id = typeof data.lid === 'string' ? this.ids.get(key(data.type, data.lid)) : undefined;
    if (id === undefined) {
      throw notFound(`no earlier operation of this request added a ${String(data.type)} with lid ${JSON.stringify(data.lid)}`, pointer);
    }
    return { data: { type: data.type, id } };
  }
}

function key(type: unknown, lid: string): string {
  return `${String(type)}\u0000${lid}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
