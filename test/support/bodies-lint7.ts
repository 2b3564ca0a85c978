// Typed asymmetric matchers beside bodies-lint2.ts: @types/jest types expect.objectContaining as `any`,
// so an object literal or array that embeds one is an unsafe `any` assignment; this hands it out as `unknown`.

/** expect.objectContaining(sample), typed as unknown. */
export const objectContaining = (sample: Record<string, unknown>): unknown => expect.objectContaining(sample);
