import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlockAction, FeedbackButtonsAction } from '@slack/bolt';
import { startHttpApp, startSocketApp, type RunningApp } from './bolt-harness.ts';
import { startFakeSlack, type FakeSlack, type Json } from './index.ts';

const feedbackBlock = {
  type: 'context_actions',
  elements: [
    {
      type: 'feedback_buttons',
      action_id: 'rate',
      positive_button: { text: { type: 'plain_text', text: '👍' }, value: 'good' },
      negative_button: { text: { type: 'plain_text', text: '👎' }, value: 'bad' },
    },
  ],
};

describe('interactivity in the fake Slack: presses, views and ephemeral messages', () => {
  let fake: FakeSlack;
  let running: RunningApp | undefined;
  const pressed: Array<{ action: Json; body: BlockAction }> = [];

  beforeEach(async () => {
    fake = await startFakeSlack();
    pressed.length = 0;
  });

  afterEach(async () => {
    await running?.stop();
    running = undefined;
    await fake.close();
  });

  const listen = (app: RunningApp['app']) => {
    app.action<BlockAction>({ type: 'block_actions', action_id: 'rate' }, async ({ ack, body, action }) => {
      pressed.push({ action: action as unknown as Json, body });
      await ack();
    });
  };

  /** The bot's message with feedback buttons, as an app would post it. */
  async function postRated(): Promise<string> {
    const posted = await fetch(`${fake.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.botToken}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel: fake.channelId, text: 'an answer', blocks: [{ type: 'markdown', text: 'an answer' }, feedbackBlock] }),
    });
    const body = (await posted.json()) as { ok: boolean; ts: string };
    expect(body.ok).toBe(true);
    return body.ts;
  }

  it('a feedback press reaches a Bolt app over Socket Mode as Slack documents it, acknowledged within 3 s', async () => {
    running = await startSocketApp(fake, listen);
    const ts = await postRated();
    const delivery = await fake.socket.sendInteractive(
      fake.interactions.press({ channel: fake.channelId, ts, actionId: 'rate', rating: 'negative' }),
    );
    expect(delivery.acked).toBe(true);
    expect(delivery.ackMs).toBeLessThan(3000);
    expect(delivery.envelope).toMatchObject({ type: 'interactive', accepts_response_payload: false });
    const { action, body } = pressed[0]!;
    expect(action).toMatchObject({ type: 'feedback_buttons', action_id: 'rate', value: 'bad', text: { type: 'plain_text', text: '👎' } });
    expect((action as unknown as FeedbackButtonsAction).block_id).toEqual(expect.any(String));
    expect(body.container).toMatchObject({ type: 'message', message_ts: ts, channel_id: fake.channelId });
    expect(body.message?.ts).toBe(ts);
    expect(body.user.id).toBe(fake.userId);
    expect(body.response_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/actions\//);
    expect(body.trigger_id).toMatch(/^\d+\.\d+\.[0-9a-f]+$/);
  });

  it('over HTTP the press is signed (a forged one is refused) and a button that is not on the message cannot be pressed', async () => {
    running = await startHttpApp(fake, listen);
    const ts = await postRated();
    const press = fake.interactions.press({ channel: fake.channelId, ts, actionId: 'rate', rating: 'positive' });
    expect((await fake.sendInteractive(press, { forge: true })).status).toBe(401);
    expect(pressed).toHaveLength(0);
    const delivery = await fake.sendInteractive(press);
    expect(delivery.status).toBe(200);
    expect(pressed[0]?.action).toMatchObject({ value: 'good' });
    expect(() => fake.interactions.press({ channel: fake.channelId, ts, actionId: 'nope' })).toThrow(/no element/);
  });

  it('validates what Slack validates: feedback buttons, Home views, modals and their trigger ids, ephemeral messages', async () => {
    running = await startHttpApp(fake, () => {});
    const { client } = running.app;
    const bad = { ...feedbackBlock, elements: [{ ...feedbackBlock.elements[0], negative_button: { text: { type: 'mrkdwn', text: '👎' } } }] };
    await expect(client.chat.postMessage({ channel: fake.channelId, text: 'x', blocks: [bad] as never })).rejects.toMatchObject({
      data: { error: 'invalid_blocks' },
    });

    const section = { type: 'section', text: { type: 'mrkdwn', text: 'hi' } };
    await expect(client.views.publish({ user_id: fake.userId, view: { type: 'modal', blocks: [section] } as never })).rejects.toMatchObject({
      data: { error: 'invalid_arguments' },
    });
    await expect(
      client.views.publish({ user_id: fake.userId, view: { type: 'home', blocks: Array.from({ length: 101 }, () => section) } as never }),
    ).rejects.toMatchObject({ data: { error: 'invalid_arguments' } });
    const published = await client.views.publish({ user_id: fake.userId, view: { type: 'home', blocks: [section] } });
    expect(fake.workspace.homeViews.get(fake.userId)).toMatchObject({ type: 'home', hash: published.view?.hash });
    await expect(client.views.publish({ user_id: fake.userId, hash: 'stale.hash', view: { type: 'home', blocks: [] } })).rejects.toMatchObject({
      data: { error: 'hash_conflict' },
    });
    expect(fake.interactions.appHomeOpened()).toMatchObject({ type: 'app_home_opened', tab: 'home', view: { hash: published.view?.hash } });

    const modal = { type: 'modal' as const, title: { type: 'plain_text' as const, text: 'Ask' }, blocks: [section] };
    const trigger = fake.interactions.issueTrigger();
    await expect(client.views.open({ trigger_id: 'made-up', view: modal })).rejects.toMatchObject({ data: { error: 'invalid_trigger_id' } });
    await client.views.open({ trigger_id: trigger, view: modal });
    await expect(client.views.open({ trigger_id: trigger, view: modal })).rejects.toMatchObject({ data: { error: 'exchanged_trigger_id' } });
    expect(fake.workspace.openedViews).toHaveLength(1);

    await client.chat.postEphemeral({ channel: fake.channelId, user: fake.userId, text: 'only you' });
    expect(fake.workspace.ephemeral).toEqual([expect.objectContaining({ channel: fake.channelId, user: fake.userId, text: 'only you' })]);
    expect(fake.messages(fake.channelId)).toEqual([]);
  });

  it("a shortcut's trigger opens a modal, and its submission carries the typed values; errors in the ack come back to Slack", async () => {
    const submitted: Json[] = [];
    running = await startHttpApp(fake, (app) => {
      app.shortcut({ type: 'message_action', callback_id: 'remind' }, async ({ ack, shortcut, client }) => {
        await ack();
        await client.views.open({
          trigger_id: shortcut.trigger_id,
          view: {
            type: 'modal',
            callback_id: 'when',
            title: { type: 'plain_text', text: 'Remind me' },
            submit: { type: 'plain_text', text: 'Save' },
            private_metadata: 'meta',
            blocks: [
              {
                type: 'input',
                block_id: 'when_block',
                label: { type: 'plain_text', text: 'When?' },
                element: { type: 'plain_text_input', action_id: 'when', max_length: 20 },
              },
            ],
          },
        });
      });
      app.view('when', async ({ ack, view }) => {
        submitted.push(view as unknown as Json);
        const value = view.state.values.when_block?.when?.value;
        await ack(value === 'never' ? { response_action: 'errors', errors: { when_block: 'Pick a time.' } } : undefined);
      });
    });
    const ts = fake.workspace.seedHistory(fake.channelId, [{ user: fake.userId, text: 'the launch', at: Date.now() }])[0]!.ts;
    await fake.sendInteractive(fake.messageShortcutPayload({ callbackId: 'remind', messageTs: ts }));
    const opened = await fake.waitFor(() => fake.workspace.openedViews[0]);
    expect(() => fake.interactions.submitView({ viewId: String(opened.id), values: {} })).toThrow(/required/);
    expect(() => fake.interactions.submitView({ viewId: String(opened.id), values: { when: 'x'.repeat(21) } })).toThrow(/max_length/);
    const refused = await fake.sendInteractive(fake.interactions.submitView({ viewId: String(opened.id), values: { when: 'never' } }));
    expect(JSON.parse(refused.responseBody)).toEqual({ response_action: 'errors', errors: { when_block: 'Pick a time.' } });
    const accepted = await fake.sendInteractive(fake.interactions.submitView({ viewId: String(opened.id), values: { when: 'tomorrow 9am' } }));
    expect(accepted.status).toBe(200);
    expect(submitted[1]).toMatchObject({
      id: opened.id,
      callback_id: 'when',
      private_metadata: 'meta',
      state: { values: { when_block: { when: { type: 'plain_text_input', value: 'tomorrow 9am' } } } },
    });
  });
});
