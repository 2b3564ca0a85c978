// Control characters (NUL above all: PostgreSQL refuses it in text) are refused in what clients
// and administrators send. Matching them is the point of these patterns, hence the disables.

/** Any C0 control character or DEL. */
// eslint-disable-next-line no-control-regex -- the pattern exists to find control characters
export const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;

/** A C0 control character or DEL other than tab, line feed and carriage return (free text may hold those). */
// eslint-disable-next-line no-control-regex -- the pattern exists to find control characters
export const CONTROL_CHARACTER_IN_TEXT = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;
