import { isIn, isInt, matches, max, min } from 'class-validator';
import { ConfigurationError } from './configuration-error.js';

/**
 * One environment variable, declared once (src/config/variables.ts): how its text is read into a
 * value (with its default when unset or empty), and what docs/reference/configuration.md says of
 * it. The reference page, the validation messages and the defaults all come from this one place;
 * the checks themselves are class-validator's.
 */
export type Variable<T> = {
  /** What it does, in Markdown. */
  meaning: string;
  /** The accepted values, in the words every refusal uses ("<NAME> must be <accepted>"). */
  accepted: string;
  /** The default, in Markdown: what an unset or empty variable means. */
  defaultText: string;
  /** A secret: its value is never echoed in a message, nor handed to a worker's environment. */
  secret?: boolean;
  /** Reads the text (undefined when unset or empty); throws ConfigurationError naming `name`. */
  read(name: string, raw: string | undefined): T;
};

type Described = { meaning: string; defaultText?: string; secret?: boolean };

/** "PORT must be a whole number from 1 to 65535 (got "x")": one line, never a secret's value. */
export function refusal(name: string, accepted: string, raw: string, secret = false): ConfigurationError {
  return new ConfigurationError(`${name} must be ${accepted}${secret ? '' : ` (got ${JSON.stringify(raw)})`}`);
}

/** A whole number in [min, max], with an optional unit for the messages. */
export function wholeNumber(
  options: Described & { min: number; max: number; unit?: 'seconds' | 'days' | 'connections'; default: number; defaultNote?: string },
): Variable<number> {
  const accepted = `a whole number${options.unit ? ` of ${options.unit}` : ''} from ${options.min} to ${options.max}`;
  return {
    meaning: options.meaning,
    accepted,
    defaultText: options.defaultText ?? `\`${options.default}\`${options.defaultNote ? ` (${options.defaultNote})` : ''}`,
    read(name, raw) {
      if (raw === undefined) return options.default;
      const value = /^\s*\d+\s*$/.test(raw) ? Number(raw.trim()) : Number.NaN;
      if (!isInt(value) || !min(value, options.min) || !max(value, options.max)) throw refusal(name, accepted, raw);
      return value;
    },
  };
}

/** "a, b or c"; "one of a, b, …" past four values. */
function choices(values: readonly string[]): string {
  if (values.length > 4) return `one of ${values.join(', ')}`;
  return `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}

/** One of a fixed list, named once (SIGNING_ALGORITHMS, LOG_LEVELS, …). */
export function oneOf<const V extends string>(values: readonly V[], options: Described & { default: V }): Variable<V>;
export function oneOf<const V extends string>(values: readonly V[], options: Described & { defaultText: string }): Variable<V | undefined>;
export function oneOf<const V extends string>(values: readonly V[], options: Described & { default?: V }): Variable<V | undefined> {
  const accepted = choices(values);
  return {
    meaning: options.meaning,
    accepted,
    defaultText: options.defaultText ?? `\`${options.default}\``,
    read(name, raw) {
      if (raw === undefined) return options.default;
      if (!isIn(raw, values)) throw refusal(name, accepted, raw);
      return raw as V;
    },
  };
}

/** `true` or `false`. */
export function flag(options: Described & { default: boolean }): Variable<boolean> {
  const values = oneOf(['true', 'false'], { ...options, default: options.default ? 'true' : 'false' });
  return { ...values, read: (name, raw) => values.read(name, raw) === 'true' };
}

/** Free text (a URL, a path, a token), checked by `pattern` when given; unset is undefined. */
export function text(options: Described & { accepted: string; pattern?: RegExp; defaultText: string }): Variable<string | undefined> {
  return {
    meaning: options.meaning,
    accepted: options.accepted,
    defaultText: options.defaultText,
    secret: options.secret,
    read(name, raw) {
      if (raw !== undefined && options.pattern && !matches(raw, options.pattern)) throw refusal(name, options.accepted, raw, options.secret);
      return raw;
    },
  };
}

/** A variable whose reading is its own (WORKERS, TRUST_PROXY, …): `parse` refuses with refusal(). */
export function parsed<T>(
  options: Described & { accepted: string; defaultText: string; parse(name: string, raw: string | undefined, accepted: string): T },
): Variable<T> {
  return {
    meaning: options.meaning,
    accepted: options.accepted,
    defaultText: options.defaultText,
    secret: options.secret,
    read: (name, raw) => options.parse(name, raw, options.accepted),
  };
}
