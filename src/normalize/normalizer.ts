/**
 * createNormalizer over every surface the tables define (the package root's normalizer). A normalizer for one
 * surface alone, importing only its mappers, is `agentnorm/surfaces/<surface>` (generated/entries/).
 * The runtime itself is engine.ts.
 */
import { SURFACES } from "../../generated/surfaces.gen.js";
import { createNormalizerWith, type Normalizer, type NormalizerOptions } from "./engine.js";

export * from "./engine.js";

/** A normalizer for `options.surface` (a surface name, see SURFACE_NAMES, or a compiled table). */
export function createNormalizer(options: NormalizerOptions): Normalizer {
  return createNormalizerWith(options, SURFACES);
}
