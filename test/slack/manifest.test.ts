import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { slackCommandName, slackCommands } from '../../adapters/slack/command-listeners.ts';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

interface Manifest {
  features: {
    slash_commands: Array<{ command: string; description: string }>;
    assistant_view?: unknown;
    app_home: { home_tab_enabled: boolean };
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { request_url: string; bot_events: string[] };
    interactivity: { is_enabled: boolean; request_url?: string };
    socket_mode_enabled: boolean;
  };
}

const manifest = parse(readFileSync(new URL('../../adapters/slack/manifest.yml', import.meta.url), 'utf8')) as Manifest;

describe('the Slack app manifest', () => {
  it('declares every command, the events Herald answers, the assistant view and Socket Mode', () => {
    expect(manifest.features.slash_commands.map((c) => c.command).sort()).toEqual(slackCommands.map(slackCommandName).sort());
    for (const c of manifest.features.slash_commands) expect(c.description.length).toBeLessThanOrEqual(100);
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining(['app_mention', 'assistant_thread_started', 'message.im', 'message.channels']),
    );
    expect(manifest.features.assistant_view).toBeDefined();
    expect(manifest.settings.socket_mode_enabled).toBe(true);
  });

  it('turns on the buttons (interactivity, with its request URL for HTTP mode) and the Home tab', () => {
    expect(manifest.settings.interactivity).toEqual({ is_enabled: true, request_url: manifest.settings.event_subscriptions.request_url });
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.settings.event_subscriptions.bot_events).toContain('app_home_opened');
  });

  describe('its scopes are enough for everything Herald does', () => {
    let fake: FakeSlack;
    let emu: Emulator;
    let herald: HeraldOnSlack;

    beforeEach(async () => {
      ({ fake, emu, herald } = await startSlackWorld({ slack: { scopes: manifest.oauth_config.scopes.bot } }));
    });

    afterEach(() => stopSlackWorld({ fake, emu, herald }));

    it('mentions with a file, DMs, the assistant panel and commands run without missing_scope', async () => {
      const image = fake.uploadUserFile({ name: 'marker.png', bytes: readFileSync(new URL('../fixtures/images/marker.png', import.meta.url)) });
      await fake.deliverEvent(fake.events.fileShare({ files: [image], channel: fake.channelId, text: `<@${fake.botUserId}> what is this?` }));
      const mention = fake.events.appMention({ text: 'hello' });
      await fake.deliverEvent(mention);
      await fake.deliverEvent(fake.events.directMessage({ text: 'hi' }));
      await fake.deliverEvent(fake.events.directMessage({ text: 'call search_messages {"query":"hello","channel":"#general"}' }));
      const started = fake.events.assistantThreadStarted({ context: { channel_id: fake.channelId } });
      await fake.deliverEvent(started);
      const thread = started.assistant_thread as { channel_id: string; thread_ts: string };
      await fake.deliverEvent(fake.events.threadReply({ text: 'question', channel: thread.channel_id, thread_ts: thread.thread_ts }));
      Object.assign(fake.workspace.users.get(fake.userId)!, { is_admin: true });
      await fake.sendSlashCommand({ command: '/settings' });
      await fake.sendSlashCommand({ command: '/describe' });
      await fake.sendSlashCommand({ command: '/say', text: 'hi' });
      await fake.waitFor(() => fake.botMessages().some((m) => m.fileIds.length > 0) && fake.responseUrlPosts.length === 1, 10_000);
      await fake.waitFor(() => fake.botMessages().filter((m) => m.stream?.state === 'stopped').length >= 1);
      const answered = await fake.waitFor(() =>
        fake.botMessages().find((m) => m.blocks?.some((b) => (b as { type?: string }).type === 'context_actions')),
      );
      await fake.sendInteractive(
        fake.interactions.press({ channel: answered.channel, ts: answered.ts, actionId: 'herald_feedback', rating: 'positive' }),
      );
      await fake.deliverEvent(fake.interactions.appHomeOpened());
      await fake.waitFor(() => fake.calls('views.publish').length === 1);
      await herald.settled();
      const refused = fake.calls().filter((c) => c.response.error === 'missing_scope');
      expect(refused.map((c) => `${c.method} needs ${String(c.response.needed)}`)).toEqual([]);
      expect(fake.calls().map((c) => c.method)).toEqual(
        expect.arrayContaining([
          'users.info',
          'conversations.history',
          'files.completeUploadExternal',
          'assistant.threads.setStatus',
          'conversations.list',
          'conversations.info',
          'conversations.members',
          'chat.getPermalink',
          'views.publish',
        ]),
      );
    });
  });
});
