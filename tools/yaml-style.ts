/** How the tables write YAML (shared by the one-off converters). */

/** v1 wrote flow sequences unpadded (`[a, b]`) and flow maps padded (`{ a: b }`): keep that. */
export function unpadSeqs(text: string): string {
  return text.split("\n").map((line) => {
    let out = "";
    let q: string | undefined;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (q) { out += c; if (c === "\\" && q === '"') { out += line[++i] ?? ""; continue; } if (c === q) q = undefined; continue; }
      if (c === '"' || c === "'") { q = c; out += c; continue; }
      if (c === "#" && (i === 0 || line[i - 1] === " ")) { out += line.slice(i); break; }
      if (c === "[" && line[i + 1] === " ") { out += "["; i++; continue; }
      if (c === " " && line[i + 1] === "]" && out.length && !out.endsWith(" ")) { continue; }
      out += c;
    }
    return out;
  }).join("\n");
}

