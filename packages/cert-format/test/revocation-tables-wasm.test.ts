import { describe, expect, it } from 'vitest';
import {
  MAX_FREED_AGE,
  packActivationTable,
  packLicenseTable,
  readTable,
  type ActivationRow,
  type EntryIndex,
} from '../src/_internal/revocation-tables.js';
import { readEntryTable, readTableWasm } from '../src/_internal/revocation-tables-wasm.js';

const DAY = 86_400;
// Seeded (mulberry32), so the tables are the same on every run.
let seed = 0x9e3779b9;
const random = (): number => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
};
const random32 = () => Math.floor(random() * 2 ** 32);

function rows(count: number, days: number, activation: boolean): ActivationRow[] {
  return Array.from({ length: count }, () => {
    const until = (20_000 + Math.floor(random() * days)) * DAY;
    return { hi: random32(), lo: activation ? random32() >>> 9 : random32(), until, freedAt: until - Math.floor(random() * 0x200_0000) };
  });
}

const pack = (table: ActivationRow[], activation: boolean) => (activation ? packActivationTable(table) : packLicenseTable(table));

// The whole answer: the problem text, or every field of the hash table and every slot.
const answer = (index: EntryIndex | string | null) =>
  typeof index === 'string' || index === null ? index : { count: index.count, mask: index.mask, stride: index.stride, slots: Array.from(index.slots) };

function expectSameAnswer(bytes: Uint8Array, activation: boolean): EntryIndex | string {
  const expected = readTable(bytes, activation);
  expect(answer(readTableWasm(bytes, activation))).toEqual(answer(expected));
  return expected;
}

const u32 = (bytes: Uint8Array, at: number, value: number) => new DataView(bytes.buffer, bytes.byteOffset).setUint32(at, value);

describe('the WebAssembly entry-table reader', () => {
  it('is available in this runtime (Node has WebAssembly), so the tests below compare two readers', () => {
    expect(readTableWasm(new Uint8Array(0), false)).toEqual({ count: 0, mask: 7, stride: 3, slots: new Uint32Array(24) });
  });

  for (const activation of [false, true]) {
    const kind = activation ? 'activation' : 'license';

    it(`builds the same ${kind} hash table as readTable, slot for slot, small to large`, () => {
      for (const [count, days] of [[1, 1], [2, 1], [37, 5], [500, 365], [5_000, 365], [20_000, 30]] as const) {
        const index = expectSameAnswer(pack(rows(count, days, activation), activation), activation);
        expect(typeof index === 'string' ? index : index.count).toBe(count);
      }
    });

    it(`gives readTable's problem for each rule a ${kind} table breaks`, () => {
      const table = rows(300, 20, activation);
      const good = pack(table, activation);
      const entryBytes = activation ? 10 : 8;
      const broken: [string, Uint8Array][] = [
        ['truncated group header', Uint8Array.of(...good, 0, 0, 0)],
        ['truncated group', good.subarray(0, good.length - entryBytes)],
        // The repeated key's row moves its freedAt with its until, so its age stays within the 25 bits.
        ['key twice', pack([...table, { ...table[7]!, until: table[7]!.until + DAY * 100, freedAt: table[7]!.freedAt + DAY * 100 }], activation)],
      ];
      const edit = (name: string, change: (bytes: Uint8Array) => void) => {
        const bytes = good.slice();
        change(bytes);
        broken.push([name, bytes]);
      };
      edit('until not a whole day', (b) => u32(b, 0, 20_000 * DAY + 1));
      edit('until zero', (b) => u32(b, 0, 0));
      edit('groups out of order', (b) => u32(b, 0, 40_000 * DAY));
      edit('empty group', (b) => u32(b, 4, 0));
      edit('keys out of order', (b) => b.copyWithin(8 + entryBytes, 8, 8 + entryBytes));
      if (activation) edit('freedAt before 1970', (b) => u32(b.fill(0xff, 8 + 6, 8 + 10), 0, DAY));
      for (const [name, bytes] of broken) {
        const expected = expectSameAnswer(bytes, activation);
        expect(typeof expected, name).toBe('string');
      }
    });

    it(`agrees with readTable on ${kind} tables with random bytes changed`, () => {
      let refused = 0;
      for (let round = 0; round < 400; round++) {
        const bytes = pack(rows(1 + (round % 97), 1 + (round % 13), activation), activation);
        for (let k = round % 4; k > 0; k--) bytes[Math.floor(Math.random() * bytes.length)] = Math.floor(Math.random() * 256);
        if (typeof expectSameAnswer(bytes, activation) === 'string') refused++;
      }
      expect(refused).toBeGreaterThan(50);
    });
  }

  it('refuses to pack an activation whose until - freedAt does not fit its 25 bits, instead of changing its key', () => {
    const until = 20_000 * DAY;
    const row = { hi: 1, lo: 2, until, freedAt: until - MAX_FREED_AGE };
    expect(readTable(packActivationTable([row]), true)).toMatchObject({ count: 1 });
    expect(() => packActivationTable([{ ...row, freedAt: row.freedAt - 1 }])).toThrow(RangeError);
    expect(() => packActivationTable([{ ...row, freedAt: until + 1 }])).toThrow(RangeError);
  });

  it('reads small tables with readTable and large ones through WebAssembly, with the same result', () => {
    const small = packLicenseTable(rows(10, 3, false));
    const large = packLicenseTable(rows(3_000, 50, false));
    const smallIndex = readEntryTable(small, false) as EntryIndex;
    expect(smallIndex.slots.byteOffset).toBe(0); // an array of its own
    expect(answer(smallIndex)).toEqual(answer(readTable(small, false)));
    const largeIndex = readEntryTable(large, false) as EntryIndex;
    expect(largeIndex.slots.byteOffset).toBeGreaterThan(0); // after the table's bytes in the instance's memory
    expect(answer(largeIndex)).toEqual(answer(readTable(large, false)));
  });
});
