import * as v from 'valibot';

/**
 * The rules that tie a response schema to the type it describes. Each schema of views.ts is
 * declared through {@link view}, so the typecheck fails when the schema and the engine's view type
 * disagree in either direction: a field one has and the other lacks, a different type, an optional
 * field, a missing `null`, another enum value.
 */

/** True when A and B are assignable to each other: the same fields with the same types, optionality and nullability. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Shown by the typecheck where a schema and its type disagree: which fields differ. */
export interface Mismatch<Schema, Type> {
  '~the schema and its type differ': {
    onlyInSchema: Exclude<keyof Schema, keyof Type>;
    onlyInType: Exclude<keyof Type, keyof Schema>;
    differing: { [K in keyof Schema & keyof Type]: Same<Schema[K], Type[K]> extends true ? never : K }[keyof Schema & keyof Type];
  };
}

/**
 * Declares the response schema of type `T`: compiles only when the schema's output is exactly `T`.
 *
 * @example
 * const Health = view<{ status: 'ok' }>()(v.strictObject({ status: v.literal('ok') }));
 */
export function view<T>() {
  return <S extends v.GenericSchema>(schema: S & (Same<v.InferOutput<S>, T> extends true ? unknown : Mismatch<v.InferOutput<S>, T>)): S => schema;
}

/** A timestamp of the spec: `YYYY-MM-DDThh:mm:ssZ` (the engine stores and answers whole seconds, UTC). */
export const ts = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/), v.description('YYYY-MM-DDThh:mm:ssZ'));

/** A whole number (counts, days, limits): `integer` in the document. */
export const int = v.pipe(v.number(), v.integer());

/** `{ data, nextCursor }` of a list: `nextCursor` is null on the last page. */
export function listOf<S extends v.GenericSchema>(item: S) {
  return v.strictObject({ data: v.array(item), nextCursor: v.nullable(v.string()) });
}
