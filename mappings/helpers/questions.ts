/**
 * Helpers for question requests, shared by the tables: a provider's list of questions → the canonical `Question`s
 * (read with the field names the table gives), the canonical answers (per question id, the chosen option ids and/or
 * typed text) → the shape a provider takes back, and a provider's answer → the canonical answers. Nothing here knows
 * a provider: the tables name the fields. Pure; never throw on provider data.
 */

/** A canonical question (canonical.yaml `defs.Question`). */
export interface QuestionShape {
  id: string;
  prompt: string;
  header?: string;
  options?: { id: string; label: string; description?: string }[];
  multiSelect?: boolean;
  freeText?: boolean;
}

const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === "object" && !Array.isArray(x);

const qs = (questions: unknown): QuestionShape[] => (Array.isArray(questions) ? questions.filter((q): q is QuestionShape => isObj(q) && typeof q.id === "string") : []);
const list = (answers: unknown, id: string): string[] => {
  const v = isObj(answers) ? answers[id] : undefined;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : typeof v === "string" ? [v] : [];
};
/** An answer's entries as labels: an option id becomes its option's label; typed text stays as it is. */
const labels = (q: QuestionShape, chosen: readonly string[]): string[] => chosen.map((a) => q.options?.find((o) => o.id === a)?.label ?? a);

/**
 * The answers per question id as labels (`wrap`: each list inside `{[wrap]: labels}`), in question order; questions
 * without an answer left out.
 */
export function labelsByQuestion(questions: unknown, answers: unknown, wrap?: string): Record<string, unknown> | undefined {
  if (!isObj(answers)) return undefined;
  const out: Record<string, unknown> = {};
  for (const q of qs(questions)) {
    const l = labels(q, list(answers, q.id));
    if (l.length) out[q.id] = typeof wrap === "string" ? { [wrap]: l } : l;
  }
  return out;
}

/** The answers per question id as one text each (labels joined with `sep`). */
export function textByQuestion(questions: unknown, answers: unknown, sep: string): Record<string, string> | undefined {
  if (!isObj(answers)) return undefined;
  const out: Record<string, string> = {};
  for (const q of qs(questions)) {
    const l = labels(q, list(answers, q.id));
    if (l.length) out[q.id] = l.join(typeof sep === "string" ? sep : ", ");
  }
  return out;
}

/** The answers as lists of labels in question order (a question without an answer: an empty list). */
export function labelLists(questions: unknown, answers: unknown): string[][] | undefined {
  if (!isObj(answers)) return undefined;
  return qs(questions).map((q) => labels(q, list(answers, q.id)));
}

/** The answers as a list of `{[idKey]: question id, [listKey]: option ids}`, in question order (answered questions only). */
export function optionSelections(questions: unknown, answers: unknown, idKey: string, listKey: string): Record<string, unknown>[] | undefined {
  if (!isObj(answers) || typeof idKey !== "string" || typeof listKey !== "string") return undefined;
  return qs(questions).filter((q) => list(answers, q.id).length).map((q) => ({ [idKey]: q.id, [listKey]: list(answers, q.id) }));
}
