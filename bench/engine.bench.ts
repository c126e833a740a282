import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pino } from 'pino';
import type { ChatInput } from '../src/capabilities/chat.ts';
import { loadConfig } from '../src/config/config.ts';
import { collectReply } from '../test/helpers/collect-reply.ts';
import { ConversationEngine } from '../src/conversation/engine.ts';
import type { IncomingMessage } from '../src/conversation/types.ts';
import type { ChatDelta, ChatStream, Usage } from '../src/service/types.ts';
import { emptyServiceUsage } from '../src/service/usage.ts';
import { MemoryStore } from '../src/store/memory-store.ts';
import { SqliteStore } from '../src/store/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';

const REPLIES = 300;
const LONG_THREAD = 60;
const QUESTION = 'How do I keep sourdough starter alive while I am away for two weeks? Any tips on feeding?';
const ANSWER =
  'Feed it, let it rise for an hour, then refrigerate it in a clean jar with a loose lid. ' +
  'A well-fed starter survives two weeks in the fridge; when you are back, discard half and feed it twice a day ' +
  'for a day or two until it doubles reliably again. For longer trips, dry a thin layer on baking paper.';

const usage: Usage = { ...emptyServiceUsage(), promptTokens: 120, completionTokens: 80, totalTokens: 200 };

/** A service that answers instantly in-process: what remains is the engine's own work. */
function instantChat(input: ChatInput): ChatStream {
  const calls = input.tools && input.messages.at(-1)?.role === 'user' && String(input.messages.at(-1)!.content).includes('calc');
  const deltas: ChatDelta[] = calls
    ? [{ type: 'tool_calls', calls: [{ id: 'c1', type: 'function', function: { name: 'calculate', arguments: '{"expression":"2^10"}' } }] }]
    : ANSWER.match(/.{1,12}/g)!.map((text) => ({ type: 'content', text }));
  deltas.push({ type: 'usage', usage }, { type: 'finish', reason: calls ? 'tool_calls' : 'stop' });
  async function* iterate(): AsyncGenerator<ChatDelta> {
    yield* deltas;
  }
  const iterator = iterate();
  return {
    [Symbol.asyncIterator]: () => iterator,
    finalResult: () => Promise.reject(new Error('unused')),
    abort: () => undefined,
    requestId: undefined,
  };
}

function engineOn(store: Store): ConversationEngine {
  const config = loadConfig(
    { TZ: 'Europe/Berlin', QUOTA_USER_PER_MINUTE: '1000000', QUOTA_GUILD_PER_MINUTE: '1000000', CONTEXT_TOKENS: '32000' },
    { envFile: '/nonexistent/.env', requireService: false },
  );
  return new ConversationEngine({ config, logger: pino({ level: 'silent' }), store, chat: instantChat });
}

function message(text: string, thread: string): IncomingMessage {
  return {
    platform: 'bench',
    workspaceId: 'guild',
    channelId: 'channel',
    threadId: thread,
    messageId: `m-${Math.random()}`,
    author: { id: 'user', displayName: 'Alice' },
    text,
    isDirect: false,
  };
}

async function replyMs(engine: ConversationEngine, text: string, thread: string): Promise<number> {
  const started = performance.now();
  const reply = await collectReply(engine.handle(message(text, thread)));
  if (reply.error) throw new Error(reply.error.message);
  return performance.now() - started;
}

/** Time of iterating the fake service alone: subtracted, so the table shows the engine's overhead. */
async function bareStreamMs(): Promise<number> {
  const started = performance.now();
  for await (const delta of instantChat({ messages: [{ role: 'user', content: QUESTION }] })) void delta;
  return performance.now() - started;
}

function stats(values: number[]): { median: number; p95: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, p95: sorted[Math.floor(sorted.length * 0.95)]! };
}

async function measure(name: string, store: Store) {
  const engine = engineOn(store);
  for (let i = 0; i < 20; i += 1) await replyMs(engine, QUESTION, `warm-${i}`);
  const fresh: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < REPLIES; i += 1) fresh.push(await replyMs(engine, QUESTION, `fresh-${i}`));
  const cpu = process.cpuUsage(cpuBefore);
  const tools: number[] = [];
  for (let i = 0; i < 100; i += 1) tools.push(await replyMs(engine, 'calc 2^10 please', `tools-${i}`));
  const long: number[] = [];
  for (let i = 0; i < LONG_THREAD; i += 1) long.push(await replyMs(engine, QUESTION, 'long-thread'));
  return {
    name,
    fresh: stats(fresh),
    cpuPerReply: (cpu.user + cpu.system) / 1000 / REPLIES,
    tools: stats(tools),
    longFirst: stats(long.slice(0, 10)),
    longLast: stats(long.slice(-10)),
  };
}

async function sqliteBytesPerTurn(dir: string): Promise<{ historyPerTurn: number; filePerTurn: number; counters: number; turns: number }> {
  const path = join(dir, 'bytes.sqlite');
  const store = new SqliteStore(path);
  const engine = engineOn(store);
  const turns = 40;
  const checkpointSize = () => {
    const db = new DatabaseSync(path);
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    db.exec('VACUUM');
    db.close();
    return statSync(path).size;
  };
  await replyMs(engine, QUESTION, 'warm');
  const before = checkpointSize();
  for (let i = 0; i < turns; i += 1) await replyMs(engine, QUESTION, 'measured');
  const after = checkpointSize();
  const db = new DatabaseSync(path);
  const history = db.prepare("SELECT length(value) AS bytes FROM keyv WHERE key LIKE 'herald:history:%measured'").get() as { bytes: number };
  const counters = db.prepare('SELECT sum(length(key) + length(value) + 8) AS bytes FROM herald_atomic').get() as { bytes: number };
  db.close();
  await store.close();
  return { historyPerTurn: history.bytes / turns, filePerTurn: (after - before) / turns, counters: counters.bytes, turns };
}

export async function run(): Promise<{ markdown: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-'));
  try {
    const bare: number[] = [];
    for (let i = 0; i < REPLIES; i += 1) bare.push(await bareStreamMs());
    const bareMedian = stats(bare).median;
    const memory = new MemoryStore();
    const sqlite = new SqliteStore(join(dir, 'engine.sqlite'));
    const rows = [await measure('memory', memory), await measure('sqlite (file, WAL)', sqlite)];
    await memory.close();
    await sqlite.close();
    const bytes = await sqliteBytesPerTurn(dir);
    const ms = (v: number) => v.toFixed(2);
    const lines = [
      '## Conversation engine overhead',
      '',
      `Per reply, with an in-process service that answers instantly (${ANSWER.length}-character answer in 12-character deltas); ` +
        `the fake stream alone takes ${ms(bareMedian)} ms (median) and is subtracted. Each reply does the quota checks (2 token buckets, ` +
        '2 daily counters), takes and releases the conversation lock, loads and saves the history, and records usage (daily and total counters per user and guild, one transaction).',
      '',
      '| store | fresh thread, median | p95 | CPU per reply | 2-round tool reply, median | thread turns 1-10, median | turns 51-60, median |',
      '|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.name} | ${ms(r.fresh.median - bareMedian)} ms | ${ms(r.fresh.p95 - bareMedian)} ms | ${ms(r.cpuPerReply)} ms | ` +
          `${ms(r.tools.median - 2 * bareMedian)} ms | ${ms(r.longFirst.median - bareMedian)} ms | ${ms(r.longLast.median - bareMedian)} ms |`,
      ),
      '',
      `SQLite bytes per conversation turn (${bytes.turns} turns of a ${QUESTION.length}-character question and ${ANSWER.length}-character answer in one thread): ` +
        `history value grows ${Math.round(bytes.historyPerTurn)} B per turn; the database file (after checkpoint and VACUUM) grows ${Math.round(bytes.filePerTurn)} B per turn. ` +
        `Usage counters and buckets are per user/guild and day, not per turn: ${bytes.counters} B in total here.`,
      '',
      'The history is one value per conversation, rewritten on every turn, so a long thread costs more per reply (last column); ' +
        'it is bounded by CONTEXT_TOKENS, since older turns are pruned when saved.',
      '',
      "A fresh thread or reply chain is also noted in its channel's list of conversations (a marker, the list's lock, " +
        'a read and a write of the list), so that /reset in the channel forgets it too: most of what a fresh thread costs ' +
        'beyond a later turn (first column against the fifth). Measured on 2026-11-26 with that note switched off, a fresh thread ' +
        'took 0.47 ms (memory) and 0.94 ms (SQLite) on this machine; commit 1afb116, before it existed, 0.39 ms and 0.81 ms.',
    ];
    return { markdown: lines.join('\n') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
