import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack, Json } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type SlackWorld } from './herald-on-fake-slack.ts';

/** Everything the view shows, as one text. */
function shown(view: Json): string {
  return (view.blocks as Json[])
    .map((b) => {
      if (b.type === 'context') return (b.elements as Json[]).map((e) => e.text).join(' ');
      return (b.text as Json | undefined)?.text ?? '';
    })
    .join('\n');
}

describe("Herald's App Home tab on Slack", () => {
  let world: SlackWorld;
  let fake: FakeSlack;
  let admin: string;

  beforeAll(async () => {
    world = await startSlackWorld({ mode: 'socket' });
    fake = world.fake;
    admin = fake.addUser({ name: 'ada' }).id;
    Object.assign(fake.workspace.users.get(admin)!, { is_admin: true });
  });

  afterAll(() => stopSlackWorld(world));

  async function openHome(user: string): Promise<Json> {
    const before = fake.calls('views.publish').length;
    const delivery = await fake.socket.deliverEvent(fake.interactions.appHomeOpened({ user }));
    expect(delivery.acked).toBe(true);
    const call = await fake.waitFor(() => fake.calls('views.publish')[before]);
    expect(call.response.ok).toBe(true);
    return fake.workspace.homeViews.get(user)!;
  }

  it("shows what Herald can do and the person's own usage today; the workspace's settings and feedback only to admins", async () => {
    await fake.socket.deliverEvent(fake.events.directMessage({ text: 'hello' }));
    await fake.waitFor(() => fake.botMessages(fake.dmChannelId).find((m) => m.blocks?.some((b) => (b as Json).type === 'context_actions')));
    await world.herald.settled();
    await world.herald.core.engine.updateSettings({ platform: 'slack', workspaceId: fake.teamId }, { persona: 'a <!channel> pirate' });

    const member = await openHome(fake.userId);
    expect(member.type).toBe('home');
    expect((member.blocks as Json[]).length).toBeLessThanOrEqual(100);
    const text = shown(member);
    expect(text).toContain('Mention @Herald');
    expect(text).toContain('assistant panel');
    expect(text).toContain('`/ask`');
    expect(text).toMatch(/\*You today:\* 1 replies, \d+ tokens/);
    expect(text).not.toContain('pirate');
    expect(text).not.toContain('Feedback');

    const adminText = shown(await openHome(admin));
    expect(adminText).toMatch(/\*You today:\* 0 replies/);
    expect(adminText).toContain('persona: “a &lt;!channel&gt; pirate”');
    expect(adminText).toMatch(/\*This workspace today:\* 1 replies/);
    expect(adminText).toContain('Feedback on answers here:* 👍 0 · 👎 0');
    for (const block of fake.workspace.homeViews.get(admin)!.blocks as Json[]) {
      const blockText = (block.text as Json | undefined)?.text;
      if (typeof blockText === 'string') expect(blockText.length).toBeLessThanOrEqual(3000);
    }
  });

  it('publishes nothing when the Messages tab is opened', async () => {
    const before = fake.calls('views.publish').length;
    await fake.socket.deliverEvent(fake.interactions.appHomeOpened({ tab: 'messages' }));
    await world.herald.settled();
    expect(fake.calls('views.publish')).toHaveLength(before);
  });
});
