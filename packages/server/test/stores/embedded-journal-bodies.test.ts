import { appendFile, cp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { expect, it } from 'vitest';
import type { NotificationDeliveryRecord } from '@svc-licensing/license-engine';
import { useEmbeddedDirs } from '../support/embedded-dirs.js';
import { segmentLines } from '../support/journal-files.js';

// A notification's body is the exact bytes every attempt sends and signs. The journal writes a
// body that is JSON after the record's JSON, unescaped: whatever the body holds, a restart must
// give it back byte for byte, and journals written before this format must still load.

const { tempDir, open } = useEmbeddedDirs('svc-embedded-bodies-');

function delivery(id: string, body: string): NotificationDeliveryRecord {
  return {
    id, accountId: 'acc_1', endpointId: 'wep_1', eventId: 'evt_1', type: 'license.created', body, state: 'pending',
    dueAt: 1, nextAttemptAt: 1, roundAttempts: 0, firstAttemptAt: null, attempts: [], claim: null,
    createdAt: '2030-01-01T00:00:00Z', updatedAt: '2030-01-01T00:00:00Z',
  } as NotificationDeliveryRecord;
}

const bodies: Record<string, string> = {
  json: JSON.stringify({ type: 'license.created', data: { name: 'Zoë "Q" \\ 名前 🎉', note: 'a\tb\nc\u2028', n: -0.5e-7 } }),
  tab: '{"a":"x\ty"}', // not JSON.stringify's output: a raw TAB
  newline: 'line one\nline two',
  lone: '{"a":"\ud800"}', // a lone surrogate, which UTF-8 cannot hold
  empty: '',
};

/** Reopens the folder without a checkpoint (every record replayed from the journal) and reads every delivery. */
async function replayed(dir: string): Promise<Map<string, NotificationDeliveryRecord>> {
  // A copy of the folder as a crash would leave it: nothing but the journal holds the records.
  const copy = await tempDir();
  await cp(dir, copy, { recursive: true });
  await rm(join(copy, 'lock'), { force: true });
  const reopened = await open(copy);
  const all = await reopened.transaction((tx) => tx.findMany('notificationDeliveries', {}));
  return new Map(all.map((d) => [d.id, d]));
}

it('gives back every body byte for byte after a restart, whether written raw or escaped', async () => {
  const dir = await tempDir();
  const store = await open(dir);
  await store.transaction(async (tx) => {
    for (const [name, body] of Object.entries(bodies)) await tx.insert('notificationDeliveries', delivery(`msg_${name}`, body));
  });
  // A claim rewrites the delivery: its body again.
  await store.transaction(async (tx) => {
    const d = (await tx.get('notificationDeliveries', 'msg_json'))!;
    await tx.update('notificationDeliveries', { ...d, claim: { token: 't', until: 2 }, dueAt: 2 });
  });
  const [segment] = await readdir(join(dir, 'journal'));
  const text = (await segmentLines(join(dir, 'journal', segment!))).toString('utf8');
  expect(text).toContain(`\t${bodies['json']}`); // the JSON body went unescaped
  const back = await replayed(dir);
  for (const [name, body] of Object.entries(bodies)) expect(back.get(`msg_${name}`)?.body).toBe(body);
  expect(back.get('msg_json')?.claim).toEqual({ token: 't', until: 2 });
  expect(back.get('msg_json')).toEqual({ ...delivery('msg_json', bodies['json']!), claim: { token: 't', until: 2 }, dueAt: 2 });
});

it('loads a journal written before raw bodies (the body a string inside the record)', async () => {
  const dir = await tempDir();
  const store = await open(dir);
  await store.transaction((tx) => tx.insert('notificationDeliveries', delivery('msg_new', bodies['json']!)));
  await store.close();
  // The previous format's line: the body escaped inside the record's JSON.
  const json = JSON.stringify({ w: [['notificationDeliveries', 'msg_old', delivery('msg_old', bodies['json']!)]] });
  const [segment] = await readdir(join(dir, 'journal'));
  await appendFile(join(dir, 'journal', segment!), `${crc32(json).toString(16).padStart(8, '0')}\t${json}\n`);
  const reopened = await open(dir);
  const all = await reopened.transaction((tx) => tx.findMany('notificationDeliveries', {}));
  expect(all.map((d) => [d.id, d.body])).toEqual([['msg_new', bodies['json']], ['msg_old', bodies['json']]]);
});

it('loads a journal line with a raw body written as text by the previous encoder, whose bytes the new one writes alike', async () => {
  // Until the line was encoded to bytes once, the checksum was taken over the line's text (which
  // node:zlib encodes to UTF-8): the same value over the same bytes, so a journal written then opens.
  const dir = await tempDir();
  const store = await open(dir);
  await store.transaction((tx) => tx.insert('notificationDeliveries', { ...delivery('msg_new', bodies['json']!), type: 'licence.créée 名' }));
  const [first] = await readdir(join(dir, 'journal'));
  const written = (await segmentLines(join(dir, 'journal', first!))).toString('utf8');
  await store.close();
  const record: Record<string, unknown> = { ...delivery('msg_old', bodies['json']!), type: 'licence.créée 名', body: undefined };
  const rest = `${JSON.stringify({ w: [['notificationDeliveries', 'msg_old', record, 0]] })}\t${bodies['json']}`;
  const oldLine = `${crc32(rest).toString(16).padStart(8, '0')}\t${rest}\n`;
  expect(written).toBe(oldLine.replaceAll('msg_old', 'msg_new').replace(/^[0-9a-f]{8}/, written.slice(0, 8)));
  const [segment] = await readdir(join(dir, 'journal'));
  await appendFile(join(dir, 'journal', segment!), oldLine);
  const reopened = await open(dir);
  const all = await reopened.transaction((tx) => tx.findMany('notificationDeliveries', {}));
  expect(all.map((d) => [d.id, d.type, d.body])).toEqual([['msg_new', 'licence.créée 名', bodies['json']], ['msg_old', 'licence.créée 名', bodies['json']]]);
});

it('keeps raw bodies across a checkpoint and the journal after it', async () => {
  const dir = await tempDir();
  const store = await open(dir);
  await store.transaction((tx) => tx.insert('notificationDeliveries', delivery('msg_a', bodies['json']!)));
  await store.checkpoint();
  await store.transaction((tx) => tx.insert('notificationDeliveries', delivery('msg_b', bodies['lone']!)));
  const back = await replayed(dir);
  expect(back.get('msg_a')?.body).toBe(bodies['json']);
  expect(back.get('msg_b')?.body).toBe(bodies['lone']);
});

it('gives back every body byte for byte from a snapshot, which holds the JSON ones unescaped', async () => {
  const dir = await tempDir();
  const store = await open(dir);
  await store.transaction(async (tx) => {
    for (const [name, body] of Object.entries(bodies)) await tx.insert('notificationDeliveries', delivery(`msg_${name}`, body));
  });
  await store.checkpoint();
  const part = await readFile(join(dir, 'records', 'snapshots', '000000000001', 'notificationDeliveries-0'), 'utf8');
  expect(part).toContain(`\t${bodies['json']}`);
  const back = await replayed(dir); // nothing left in the journal: every record from the snapshot
  for (const [name, body] of Object.entries(bodies)) expect(back.get(`msg_${name}`)).toEqual(delivery(`msg_${name}`, body));
});

it('loads a snapshot part written before raw bodies (each body a string inside its record)', async () => {
  const dir = await tempDir();
  const store = await open(dir);
  await store.transaction((tx) => tx.insert('notificationDeliveries', delivery('msg_old', bodies['json']!)));
  await store.checkpoint();
  await store.close();
  const folder = join(dir, 'records', 'snapshots', '000000000001');
  const data = JSON.stringify([delivery('msg_old', bodies['json']!)]);
  await writeFile(join(folder, 'notificationDeliveries-0'), data);
  const manifest = JSON.parse(await readFile(join(folder, 'manifest'), 'utf8')) as { parts: { key: string; sha256: string }[] };
  const entry = manifest.parts.find((p) => p.key.endsWith('notificationDeliveries-0'))!;
  entry.sha256 = createHash('sha256').update(data).digest('hex');
  await writeFile(join(folder, 'manifest'), JSON.stringify(manifest));
  const reopened = await open(dir);
  expect(await reopened.transaction((tx) => tx.get('notificationDeliveries', 'msg_old'))).toEqual(delivery('msg_old', bodies['json']!));
});
