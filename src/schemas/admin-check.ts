/**
 * Checking an admin input against its schema (schemas/admin.ts): the one rule
 * for each field, used by the admin API's validator (http/admin/validation.ts)
 * and by the operations themselves (use-cases/rules.ts `checked`), so that
 * the CLI, which calls the operations, refuses what the API refuses with the
 * same sentence (test/use-cases/refusals.test.ts).
 *
 * A problem's sentence is the schema's `errorMessage` where it has one
 * (`{value}` in it stands for the value given, quoted), `is required` for a
 * missing field, `is not a field of this operation` for an unknown one.
 */
import { FormatRegistry, type Static, type TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler, ValueErrorType } from '@sinclair/typebox/compiler';
import { isAdminScope } from '../domain/admin-tokens.js';
import { isKnownScope } from '../domain/scopes.js';

/** A date-time with a zone, on a day the calendar has (2030-02-30 is not one). */
export function isDateTime(v: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(v)) return false;
  const [y, m, d] = v.slice(0, 10).split('-').map(Number) as [number, number, number];
  return !Number.isNaN(Date.parse(v)) && new Date(Date.UTC(y, m - 1, d)).getUTCDate() === d;
}

// TypeBox fails every value of a format it does not know: the ones the admin schemas use.
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', isDateTime);
if (!FormatRegistry.Has('scope')) FormatRegistry.Set('scope', isKnownScope);
if (!FormatRegistry.Has('admin-scope')) FormatRegistry.Set('admin-scope', isAdminScope);

/** One field that breaks its rule: `a.b` for a nested one, '' for the input as a whole. */
export interface Problem {
  field: string;
  message: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

function sentence(error: { type: ValueErrorType; schema: TSchema; message: string; value: unknown }) {
  if (error.type === ValueErrorType.ObjectAdditionalProperties) return 'is not a field of this operation';
  if (error.type === ValueErrorType.ObjectRequiredProperty) return 'is required';
  const s = error.schema as { errorMessage?: string };
  if (s.errorMessage) return s.errorMessage.replace('{value}', JSON.stringify(error.value));
  return error.message.charAt(0).toLowerCase() + error.message.slice(1);
}

/**
 * Characters no admin input may hold, whatever its field (docs/decisions.md
 * 89): the C0 controls and DEL (PostgreSQL refuses NUL in text with a 500,
 * SQLite stores it, a terminal obeys an escape), and the bidirectional
 * embeddings, overrides and isolates, which make a name or an id read other
 * than it is written. The marks Arabic text needs (U+200F, U+061C) are not
 * among them.
 */
// Built from text: a control character in a regular expression literal is what the linter refuses.
const CONTROL_CLASS = '\\u0000-\\u001f\\u007f';
/** The controls but a tab, CR and LF, which may be a file's structure (a quoted CSV field of a name). */
const STRUCTURE_CONTROL_CLASS = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f';
const CONTROL = new RegExp(`[${CONTROL_CLASS}]`);
const CONTROL_BUT_STRUCTURE = new RegExp(`[${STRUCTURE_CONTROL_CLASS}]`);
const BIDI = /[\u202a-\u202e\u2066-\u2069]/;
export const CONTROL_SENTENCE = 'must not contain control characters (U+0000 to U+001F, U+007F): remove them';
export const STRUCTURE_CONTROL_SENTENCE =
  'must not contain control characters other than tab, CR and LF (U+0000 to U+001F, U+007F): remove them';
export const BIDI_SENTENCE =
  'must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069): remove them';

/**
 * The first string of `value` (an object's or array's, at any depth; a
 * member's name too) that holds a character no admin input may hold: its
 * field (`a.b`, `scopes.1`; `field` itself for a string) and the sentence
 * saying what to remove. The value is never quoted: it is what must not be
 * echoed. `structure`: a tab, CR or LF is allowed, being the structure of
 * the file the value comes from (a quoted CSV field of an imported name).
 */
export function forbiddenCharacters(value: unknown, field = '', structure = false): Problem | null {
  if (typeof value === 'string') {
    if (structure ? CONTROL_BUT_STRUCTURE.test(value) : CONTROL.test(value))
      return { field, message: structure ? STRUCTURE_CONTROL_SENTENCE : CONTROL_SENTENCE };
    if (BIDI.test(value)) return { field, message: BIDI_SENTENCE };
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  for (const [name, member] of Object.entries(value)) {
    const path = field === '' ? name : `${field}.${name}`;
    const problem = forbiddenCharacters(name, path) ?? forbiddenCharacters(member, path, structure);
    if (problem) return problem;
  }
  return null;
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/**
 * `data` checked against `schema`: the value, or every field that breaks a
 * rule (one sentence each, the first of a union's branches). Undefined members
 * are left out first (an option not given), and a missing input is `{}`.
 */
export function check<T extends TSchema>(schema: T, data: unknown): Checked<Static<T>> {
  let typeCheck = compiled.get(schema);
  if (!typeCheck) {
    typeCheck = TypeCompiler.Compile(schema);
    compiled.set(schema, typeCheck);
  }
  let value = data ?? {};
  if (typeof value === 'object' && !Array.isArray(value)) {
    value = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
  }
  const forbidden = forbiddenCharacters(value);
  if (forbidden) return { ok: false, problems: [forbidden] };
  if (typeCheck.Check(value)) return { ok: true, value: value as Static<T> };
  const problems: Problem[] = [];
  for (const e of typeCheck.Errors(value)) {
    const field = e.path.replace(/^\//, '').replaceAll('/', '.');
    if (problems.some((p) => p.field === field)) continue;
    problems.push({ field, message: sentence(e) });
  }
  return { ok: false, problems };
}
