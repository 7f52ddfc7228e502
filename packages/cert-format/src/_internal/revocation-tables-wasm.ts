// The entry-table reader of revocation-tables.ts (`readTable`) as a small WebAssembly function, for
// the verifier's cold start: a 100,000-entry list is read once, in a page that has just loaded, where
// the JavaScript loops run in the interpreter for most of their 100,000 iterations (10 to 30 ms in
// Chromium), while WebAssembly runs compiled from the first one. The module is emitted here
// instruction by instruction (no binary blob); it reads the entries of one group (the group headers
// stay in `readGroups`, shared with `readTable`) into the same interleaved hash table as `readTable`,
// in the instance's memory, which the returned `slots` view. One call per group also lets the engine
// move the function from its baseline compiler to its optimizing one part way through a table. Where
// WebAssembly is missing or refused (a Content-Security-Policy without 'wasm-unsafe-eval'),
// `readTable` answers; results and problem texts are `readTable`'s either way.
import { readGroups, readTable, slotCount, type EntryIndex } from './revocation-tables.js';

// Opcodes (WebAssembly 1.0).
const BLOCK = 0x02, LOOP = 0x03, IF = 0x04, ELSE = 0x05, END = 0x0b, BR = 0x0c, BR_IF = 0x0d, RETURN = 0x0f;
const GET = 0x20, SET = 0x21, LOAD = 0x28, LOAD8 = 0x2d, STORE = 0x36, CONST = 0x41;
const EQZ = 0x45, EQ = 0x46, LT_U = 0x49, GT_U = 0x4b, LE_U = 0x4d, GE_U = 0x4f;
const ADD = 0x6a, SUB = 0x6b, MUL = 0x6c, AND = 0x71, OR = 0x72, SHL = 0x74, SHR_U = 0x76;
const VOID = 0x40, I32 = 0x7f;

// Parameters, then locals (all i32).
const AT = 0, COUNT = 1, UNTIL = 2, ACTIVATION = 3, BASE = 4, MASK = 5;
const STOP = 6, HI = 7, LO = 8, FREED = 9, PH = 10, PL = 11, FIRST = 12, SLOT = 13, ADDR = 14, ENTRY_BYTES = 15, STRIDE_BYTES = 16, T = 17;
const LOCALS = 12;

/** Signed LEB128 (i32.const immediates). */
function sleb(value: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

/** Unsigned LEB128 (sizes, indices, memarg offsets). */
function uleb(value: number): number[] {
  const out: number[] = [];
  do {
    const byte = value & 0x7f;
    value >>>= 7;
    out.push(value === 0 ? byte : byte | 0x80);
  } while (value !== 0);
  return out;
}

const c = (value: number): number[] => [CONST, ...sleb(value | 0)];
const get = (local: number): number[] => [GET, local];
const set = (local: number): number[] => [SET, local];
// Big-endian u32 at the address in `local` + offset: four byte loads, shifted together.
const be32 = (local: number, offset: number): number[] => [
  ...get(local), LOAD8, 0, ...uleb(offset), ...c(24), SHL,
  ...get(local), LOAD8, 0, ...uleb(offset + 1), ...c(16), SHL, OR,
  ...get(local), LOAD8, 0, ...uleb(offset + 2), ...c(8), SHL, OR,
  ...get(local), LOAD8, 0, ...uleb(offset + 3), OR,
];
const be16 = (local: number, offset: number): number[] => [...get(local), LOAD8, 0, ...uleb(offset), ...c(8), SHL, ...get(local), LOAD8, 0, ...uleb(offset + 1), OR];
const fail = (code: number): number[] => [IF, VOID, ...c(code), RETURN, END];

/** One entry: key (and freedAt), order check, probe, store. Runs inside the entry loop. */
function entryBody(): number[] {
  return [
    ...be32(AT, 0), ...set(HI),
    ...get(ACTIVATION), IF, VOID,
    // Activation: 55-bit key, then 25 bits of until - freedAt.
    ...be32(AT, 4), ...set(T),
    ...get(T), ...c(9), SHR_U, ...set(LO),
    ...get(T), ...c(0x1ff), AND, ...c(16), SHL, ...be16(AT, 8), OR, ...set(T),
    ...get(T), ...get(UNTIL), GT_U, ...fail(1), // freedAt before 1970
    ...get(UNTIL), ...get(T), SUB, ...set(FREED),
    ELSE,
    ...be32(AT, 4), ...set(LO),
    END,
    // Keys strictly ascending in the group.
    ...get(FIRST), EQZ, IF, VOID,
    ...get(HI), ...get(PH), LT_U, ...get(HI), ...get(PH), EQ, ...get(LO), ...get(PL), LE_U, AND, OR, ...fail(2),
    END,
    // Linear probing from hi & mask; `until` (never 0) marks a used slot.
    ...get(HI), ...get(MASK), AND, ...set(SLOT),
    BLOCK, VOID, LOOP, VOID,
    ...get(BASE), ...get(SLOT), ...get(STRIDE_BYTES), MUL, ADD, ...set(ADDR),
    ...get(ADDR), LOAD, 2, 8, EQZ, BR_IF, 1,
    ...get(ADDR), LOAD, 2, 0, ...get(HI), EQ, ...get(ADDR), LOAD, 2, 4, ...get(LO), EQ, AND, ...fail(3), // a key twice
    ...get(SLOT), ...c(1), ADD, ...get(MASK), AND, ...set(SLOT),
    BR, 0, END, END,
    ...get(ADDR), ...get(HI), STORE, 2, 0,
    ...get(ADDR), ...get(LO), STORE, 2, 4,
    ...get(ADDR), ...get(UNTIL), STORE, 2, 8,
    ...get(ACTIVATION), IF, VOID, ...get(ADDR), ...get(FREED), STORE, 2, 12, END,
    ...get(HI), ...set(PH), ...get(LO), ...set(PL), ...c(0), ...set(FIRST),
    ...get(AT), ...get(ENTRY_BYTES), ADD, ...set(AT),
  ];
}

// Codes the function returns for the entry rules, and readTable's texts for them.
const PROBLEMS = ['', 'freedAt before 1970', 'keys are not in strictly ascending order', 'a key appears twice'];

/** group(at, count, until, activation, base, mask) → 0, or the index in PROBLEMS of the rule broken. */
function functionBody(): number[] {
  return [
    ...get(ACTIVATION), IF, I32, ...c(10), ELSE, ...c(8), END, ...set(ENTRY_BYTES),
    ...get(ACTIVATION), IF, I32, ...c(16), ELSE, ...c(12), END, ...set(STRIDE_BYTES),
    ...get(AT), ...get(COUNT), ...get(ENTRY_BYTES), MUL, ADD, ...set(STOP),
    ...c(1), ...set(FIRST),
    BLOCK, VOID, LOOP, VOID,
    ...get(AT), ...get(STOP), GE_U, BR_IF, 1,
    ...entryBody(),
    BR, 0, END, END,
    ...c(0), END,
  ];
}

const section = (id: number, bytes: number[]): number[] => [id, ...uleb(bytes.length), ...bytes];
const name = (text: string): number[] => [...uleb(text.length), ...Array.from(text, (ch) => ch.charCodeAt(0))];

function moduleBytes(): Uint8Array<ArrayBuffer> {
  const body = [1, ...uleb(LOCALS), I32, ...functionBody()];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, [1, 0x60, 6, I32, I32, I32, I32, I32, I32, 1, I32]), // type 0: (i32 x6) → i32
    ...section(2, [1, ...name('m'), ...name('memory'), 0x02, 0x00, 1]), // import memory m.memory, min 1 page
    ...section(3, [1, 0]), // function 0 has type 0
    ...section(7, [1, ...name('group'), 0x00, 0]), // export function 0 as group
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

type Group = (at: number, count: number, until: number, activation: number, base: number, mask: number) => number;
let compiled: WebAssembly.Module | null | undefined;

// Compiled once, on first use; null where WebAssembly is missing or refused. The module is a few
// hundred bytes, well under the size browsers compile synchronously on the main thread.
function wasmModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = typeof WebAssembly === 'object' ? new WebAssembly.Module(moduleBytes()) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/**
 * @internal `readTable` with the entries read by WebAssembly into a hash table in the instance's
 * memory (`slots` views it), or null where WebAssembly is unavailable.
 */
export function readTableWasm(bytes: Uint8Array, activation: boolean): EntryIndex | string | null {
  const module = wasmModule();
  if (module === null) return null;
  const stride = activation ? 4 : 3;
  const size = slotCount(Math.floor(bytes.length / (activation ? 10 : 8)));
  const base = (bytes.length + 15) & ~15;
  let group: Group;
  let memory: WebAssembly.Memory;
  try {
    memory = new WebAssembly.Memory({ initial: Math.ceil((base + size * stride * 4) / 65_536) });
    group = new WebAssembly.Instance(module, { m: { memory } }).exports.group as Group;
  } catch {
    return null;
  }
  new Uint8Array(memory.buffer).set(bytes);
  const index: EntryIndex = { count: 0, mask: size - 1, stride, slots: new Uint32Array(memory.buffer, base, size * stride) };
  const flag = activation ? 1 : 0;
  return readGroups(bytes, activation, index, (at, count, until) => {
    const code = group(at, count, until, flag, base, size - 1);
    return code === 0 ? null : PROBLEMS[code]!;
  });
}

// Below this many bytes (about 200 entries) the JavaScript loop takes well under a millisecond even
// cold, and a table of its own typed array is smaller than a WebAssembly memory (64 KiB at least).
const WASM_FROM_BYTES = 2048;

/** @internal `readTable`, through WebAssembly for large tables where the runtime allows it. */
export function readEntryTable(bytes: Uint8Array, activation: boolean): EntryIndex | string {
  return (bytes.length >= WASM_FROM_BYTES ? readTableWasm(bytes, activation) : null) ?? readTable(bytes, activation);
}
