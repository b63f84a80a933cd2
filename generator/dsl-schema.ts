/**
 * The mapping DSL's JSON Schema (schemas/mapping-dsl.schema.json), generated from its TypeScript types
 * (generator/dsl.ts) with ts-json-schema-generator. The file records the sha256 of dsl.ts it was made from, so it is
 * regenerated only when the types change; `npm run codegen -- --check` fails when it is stale.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The DSL's types belong to this generator (not to the --root it generates for). */
const TYPES_FILE = fileURLToPath(new URL("./dsl.ts", import.meta.url));

export const DSL_TYPES = "generator/dsl.ts";
export const DSL_SCHEMA = "schemas/mapping-dsl.schema.json";

export async function dslSchema(root: string): Promise<{ schema: any; text: string }> {
  const types = readFileSync(TYPES_FILE, "utf8");
  const hash = createHash("sha256").update(types.replace(/\r\n/g, "\n")).digest("hex");
  const file = join(root, DSL_SCHEMA);
  if (existsSync(file)) {
    const text = readFileSync(file, "utf8");
    try {
      const schema = JSON.parse(text);
      if (schema.$comment === `generated from ${DSL_TYPES} sha256:${hash}`) return { schema, text };
    } catch { /* regenerate */ }
  }
  const { createGenerator } = await import("ts-json-schema-generator");
  const gen = createGenerator({ path: TYPES_FILE, type: "Table", skipTypeCheck: true, additionalProperties: false, expose: "export", topRef: true, jsDoc: "extended", tsconfig: fileURLToPath(new URL("./tsconfig.json", import.meta.url)) });
  const body = gen.createSchema("Table");
  const schema = {
    $schema: body.$schema,
    $id: "agentnorm:mapping-dsl.schema.json",
    $comment: `generated from ${DSL_TYPES} sha256:${hash}`,
    title: "agentnorm mapping table",
    description: "The schema of mappings/<surface>.yaml, generated from generator/dsl.ts. See mappings/README.md.",
    $ref: body.$ref,
    definitions: body.definitions,
  };
  return { schema, text: JSON.stringify(schema, null, 1) + "\n" };
}
