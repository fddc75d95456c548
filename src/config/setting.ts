/**
 * Checking a variable against its schema (config/environment.ts): one message
 * per bad value, `NAME: what to write instead`. `setting` reads one variable
 * where it is used; src/config.ts reads a command's variables all together.
 */
import type { TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { Environment, type Variable } from './environment.js';

/** Bad configuration: `problems` holds one line per bad value. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

// Compiled when first used: a command checks a few variables, not all of them.
const compiled = new Map<Variable, TypeCheck<TSchema>>();

/**
 * `given` (an environment value, or a flag's that overrides it) checked against
 * `name`'s schema: the value, trimmed, or the default when empty or absent,
 * and the problem, naming the flag when the value came from one.
 */
export function checked(
  name: Variable,
  given: string | undefined,
  flag?: string,
): { value: string; problem?: string } {
  const schema = Environment.properties[name] as TSchema;
  let check = compiled.get(name);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(name, check);
  }
  const value = given === undefined || given === '' ? (schema.default as string) : given.trim();
  return check.Check(value)
    ? { value }
    : { value, problem: `${flag ?? name}: ${schema.errorMessage as string}` };
}

/**
 * One variable, checked: its value, or its default (often '', meaning the
 * code's own default). Throws ConfigError naming it and what to write instead.
 */
export function setting(name: Variable, env: NodeJS.ProcessEnv = process.env): string {
  const { value, problem } = checked(name, env[name]);
  if (problem) throw new ConfigError([problem]);
  return value;
}
