/**
 * The compiled mapping tables and their types (import `agentnorm/tables`): for passing a table of your own to
 * createNormalizer({ surface: table }) or inspecting the bundled ones. This is the DSL's runtime shape, not part of
 * the canonical event API: it may change in any minor release (see CHANGELOG.md).
 */
export { SURFACES, SURFACE_NAMES } from "../generated/surfaces.gen.js";
export type { SurfaceName } from "../generated/surfaces.gen.js";
export type { SurfaceTable, Row, RowContext, Kind, Role, Op } from "./normalize/table-types.js";
export type { JsonView } from "./normalize/row-util.js";
