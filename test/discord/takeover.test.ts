import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis-store.ts';
import { unthrottledHeraldEnv, type HeraldProcess } from '../../bench/load/herald-process.ts';
import { startHeraldChild } from '../helpers/herald-child.ts';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { emptyRedisDatabase, reachable, redisUrl } from '../store/backends.ts';
import { startInstance, type Instance } from './harness.ts';
import { buttons } from './two-instances.ts';

const redisUp = await reachable(redisUrl);

describe.skipIf(!redisUp)(`Discord: a reply whose process died is finished by another (Redis at ${redisUrl})`, () => {
  let fake: FakeDiscord;
  let emu: Emulator;
  let storeUrl: string;
  let store: RedisStore;
  let child: HeraldProcess;
  let other: Instance | undefined;

  beforeEach(async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
    emu = await startEmulator({ pace: { tokensPerSecond: 40, ttsChunkIntervalMs: 0 } });
    storeUrl = await emptyRedisDatabase(8);
    store = await RedisStore.connect(storeUrl);
    child = await startHeraldChild(unthrottledHeraldEnv({ emulator: emu, discord: fake }, storeUrl));
  });

  afterEach(async () => {
    await child.stop();
    await other?.bot.stop();
    await other?.core.close();
    other = undefined;
    await store.close();
    await fake.close();
    await emu.close();
  });

  it('a process killed mid-answer: the next one deletes the partial answer and writes the whole one', { timeout: 90_000 }, async () => {
    const channel = fake.addChannel({ name: 'takeover' });
    const answers = () => fake.messages(channel.id).filter((m) => m.authorId === fake.botUser.id);
    const question = fake.sendMessage({ channelId: channel.id, content: `<@${fake.botUser.id}> long 300` });
    const partial = await fake.waitFor(() => answers().find((m) => buttons(m).includes('Stop') && m.content.split(' ').length > 10), {
      timeoutMs: 20_000,
      description: 'the answer half-written',
    });

    process.kill(child.pid, 'SIGKILL');
    emu.pace.tokensPerSecond = 0;
    // As if it died between Discord making its message and the store hearing of it: the record knows no message.
    const recordKey = `reply:discord:${String(question.id)}`;
    const record = await store.get<{ posted: string[] }>(recordKey);
    expect(record?.posted).toEqual([partial.id]);
    await store.set(recordKey, { ...record, posted: [] });
    other = await startInstance({ fake, emu, store, env: { STORE_URL: storeUrl } });
    await other.repliesFinished(1, 60_000);

    const [answer] = answers();
    expect(answers()).toHaveLength(1);
    expect(answer!.id).not.toBe(partial.id);
    expect(answer!.content.split(/\s+/)).toHaveLength(300);
    expect(buttons(answer)).toEqual(['Regenerate']);
    expect(emu.requests.filter((r) => JSON.stringify(r.body).includes('long 300'))).toHaveLength(2);
  });

  it('a question deleted while its process was dead: the partial answer says it was interrupted', { timeout: 60_000 }, async () => {
    const channel = fake.addChannel({ name: 'takeover-gone' });
    const answers = () => fake.messages(channel.id).filter((m) => m.authorId === fake.botUser.id);
    const question = fake.sendMessage({ channelId: channel.id, content: `<@${fake.botUser.id}> long 300` });
    const partial = await fake.waitFor(() => answers().find((m) => m.content.split(' ').length > 10), {
      timeoutMs: 20_000,
      description: 'the answer half-written',
    });

    process.kill(child.pid, 'SIGKILL');
    fake.deleteUserMessage({ channelId: channel.id, messageId: String(question.id) });
    other = await startInstance({ fake, emu, store, env: { STORE_URL: storeUrl } });
    const closed = await fake.waitFor(() => answers().find((m) => m.id === partial.id && m.content.includes('interrupted')), {
      timeoutMs: 30_000,
      description: 'the partial answer closed',
    });
    expect(closed.content).toBe('_(This answer was interrupted, and its question is gone.)_');
    expect(buttons(closed)).toEqual([]);
    expect(answers()).toHaveLength(1);
    expect(emu.requests).toHaveLength(1);
  });
});
