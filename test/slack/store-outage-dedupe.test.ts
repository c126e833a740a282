import { afterEach, beforeEach, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory-store.ts';
import type { Store } from '../../src/store/store.ts';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

/** A store that, while `down`, fails every call as a Redis client with its server gone does. */
function outageStore(): { store: Store; setDown(down: boolean): void } {
  const inner = new MemoryStore();
  let down = false;
  const store = new Proxy(inner, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        down ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379')) : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  });
  return { store, setDown: (now) => (down = now) };
}

let fake: FakeSlack;
let emu: Emulator;
let herald: HeraldOnSlack;
let outage: ReturnType<typeof outageStore>;

beforeEach(async () => {
  outage = outageStore();
  ({ fake, emu, herald } = await startSlackWorld({ store: outage.store }));
});

afterEach(async () => {
  outage.setDown(false);
  await stopSlackWorld({ fake, emu, herald });
});

it("Slack's retries of a question asked while the store is down get one answer, also after the store is back", { timeout: 20_000 }, async () => {
  outage.setDown(true);
  const mention = fake.events.appMention({ text: 'are you there?' });
  const inThread = () => fake.botMessages().filter((m) => m.thread_ts === mention.ts);
  const first = await fake.deliverEvent(mention);
  await fake.redeliver(first, { retryNum: 1, retryReason: 'http_timeout' });
  const said = await fake.waitFor(() => inThread()[0]);
  expect(said.text).toMatch(/^⚠️ /);

  outage.setDown(false);
  await fake.redeliver(first, { retryNum: 2, retryReason: 'http_timeout' });
  // A later question, answered after the retries were decided: by then a second answer would be there too.
  const later = fake.events.appMention({ text: 'and now?' });
  await fake.deliverEvent(later);
  await fake.waitFor(() => fake.botMessages().find((m) => m.thread_ts === later.ts && m.stream?.state === 'stopped'));
  expect(inThread()).toHaveLength(1);
});
