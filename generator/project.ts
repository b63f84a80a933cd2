/**
 * The one in-memory ts-morph Project of a codegen run: every emitter (and the helper-name scan) builds its source
 * files in it and removes them when done, so the compiler host and printer settings are set up once. Emitters print
 * structures with these settings (two-space indent, double quotes) and indent their own statement text.
 */
import { IndentationText, NewLineKind, Project, QuoteKind, type SourceFile, type SourceFileStructure } from "ts-morph";

let shared: Project | undefined;
let created = 0;

export function codegenProject(): Project {
  return (shared ??= new Project({ useInMemoryFileSystem: true, skipLoadingLibFiles: true, skipAddingFilesFromTsConfig: true,
    manipulationSettings: { indentationText: IndentationText.TwoSpaces, quoteKind: QuoteKind.Double, newLineKind: NewLineKind.LineFeed } }));
}

/** Runs `f` on a source file of the shared project (from text or a structure, printed once), then removes it. */
export function withSourceFile<T>(name: string, content: string | SourceFileStructure, f: (sf: SourceFile) => T): T {
  const project = codegenProject();
  // A fresh path each time: re-creating a removed file under the same name would let the language service
  // (formatText) work on its cached snapshot of the old text.
  const sf = project.createSourceFile(`/codegen/${++created}/${name}`, content as any);
  try {
    return f(sf);
  } finally {
    project.removeSourceFile(sf);
  }
}
