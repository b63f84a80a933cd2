#!/usr/bin/env node
/**
 * Bundles main.js for the browser (esbuild; in your app: your bundler) into bundle.js next to index.html.
 *   npm run build && node examples/browser-live/build.mjs && open examples/browser-live/index.html
 */
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const result = await build({
  entryPoints: [`${here}main.js`],
  outfile: `${here}bundle.js`,
  bundle: true,
  minify: true,
  format: "iife", // a classic script: pages opened from file:// may not load module scripts
  platform: "browser",
  loader: { ".ndjson": "text" },
  metafile: true,
  logLevel: "warning",
});
const bytes = Object.values(result.metafile.outputs).reduce((a, o) => a + o.bytes, 0);
console.log(`bundle.js: ${(bytes / 1024).toFixed(0)} KB (the recording included)`);
