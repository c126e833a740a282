import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reachable, redisUrl } from '../store/backends.ts';
import { buttons, startTwoInstances, type TwoInstances } from './two-instances.ts';

const redisUp = await reachable(redisUrl);

// A press may reach the instance that is not writing the answer.
describe.skipIf(!redisUp)(`discord: a press on the other of two instances sharing Redis at ${redisUrl}`, () => {
  let two: TwoInstances;

  beforeAll(async () => {
    two = await startTwoInstances();
  });

  afterAll(() => two.close());

  async function press(messageId: string, button: string): Promise<void> {
    const record = two.fake.pressButton({ messageId, button });
    await two.fake.waitFor(() => record.responseType !== null, { description: `${button} acknowledged` });
  }

  it('Stop and Regenerate reach the answer through the store', async () => {
    const { emu, fake, first: writer, second: other, heardFirstBy } = two;
    const channel = fake.addChannel({ name: 'two-instances' });
    const bot = () => fake.messages(channel.id).filter((m) => m.authorId === fake.botUser.id);
    emu.pace.tokensPerSecond = 40;
    const written = writer.finished;
    const streaming = await heardFirstBy(writer, async () => {
      fake.sendMessage({ channelId: channel.id, content: `<@${fake.botUser.id}> long 300` });
      return fake.waitFor(() => bot().find((m) => buttons(m).includes('Stop') && m.content.split(' ').length > 5));
    });
    const request = emu.requests.at(-1)!;

    await heardFirstBy(other, () => press(streaming.id, 'Stop'));
    await fake.waitFor(() => writer.finished === written + 1, { description: 'the writer stopped' });
    emu.pace.tokensPerSecond = 0;
    await fake.waitFor(() => request.closed);
    expect(request.closed!.byClient).toBe(true);
    const [stopped] = bot();
    expect(stopped!.content.split(/\s+/).length).toBeLessThan(300);
    expect(buttons(stopped)).toEqual(['Regenerate']);

    const regenerated = other.finished;
    await heardFirstBy(other, () => press(stopped!.id, 'Regenerate'));
    await fake.waitFor(() => other.finished === regenerated + 1, { description: 'the other instance answered again' });
    const [again] = bot();
    expect(bot()).toHaveLength(1);
    expect(again!.content.split(/\s+/)).toHaveLength(300);
    expect(buttons(again)).toEqual(['◀', '2/2', '▶', 'Regenerate']);
    expect(writer.finished).toBe(written + 1);
  });
});
