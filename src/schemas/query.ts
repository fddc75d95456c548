/**
 * Query parameters with defaults, typed: the schema says what an absent
 * parameter means (OpenAPI shows it, the validator fills it in, http/pipeline/query.ts),
 * and the type of a validated query says that such a parameter is always there.
 */
import { type Static, type TObject, type TOptional, type TSchema, Type } from '@sinclair/typebox';

declare const HAS_DEFAULT: unique symbol;
/** An optional parameter whose absence means `default`: the validated query always has it. */
export type TDefaulted<T extends TSchema> = TOptional<T> & { [HAS_DEFAULT]: true };

/** Marks a parameter optional with a default, in the schema (OpenAPI shows it) and in the type. */
export const Defaulted = <T extends TSchema>(schema: T, value: Static<T>): TDefaulted<T> =>
  Type.Optional({ ...schema, default: value } as T) as TDefaulted<T>;

/** The validated query of a schema: what `Static` gives, with defaulted parameters present. */
export type QueryOf<S extends TObject> = Static<S> & {
  -readonly [K in keyof S['properties'] as S['properties'][K] extends { [HAS_DEFAULT]: true }
    ? K
    : never]-?: Static<S['properties'][K]>;
};

/** The query of an operation that takes no parameters: any query string is ignored (decisions §6). */
export const NoQuery = Type.Object({});
