/**
 * Herald's Home tab: published (views.publish) each time someone opens it, with what Herald can do, their own usage
 * today, and for workspace admins the workspace's settings, usage and feedback. Within Block Kit's limits: a
 * section's text is at most 3000 characters and a Home view at most 100 blocks.
 */
import type { App } from '@slack/bolt';
import { describeSettings } from '../../commands/settings.ts';
import { feedbackLine, usageLine } from '../../commands/usage.ts';
import { slackCommandName, slackCommands } from './command-listeners.ts';
import { toMrkdwn } from './mrkdwn.ts';
import type { SlackRuntime } from './runtime.ts';

const MAX_SECTION_CHARS = 3000;

type HomeBlock =
  | { type: 'header'; text: { type: 'plain_text'; text: string } }
  | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
  | { type: 'context'; elements: Array<{ type: 'mrkdwn'; text: string }> }
  | { type: 'divider' };

function header(text: string): HomeBlock {
  return { type: 'header', text: { type: 'plain_text', text } };
}

/** A section of markdown, in Slack's mrkdwn and cut to Block Kit's limit. */
function section(markdown: string): HomeBlock {
  const text = toMrkdwn(markdown);
  return { type: 'section', text: { type: 'mrkdwn', text: text.length > MAX_SECTION_CHARS ? `${text.slice(0, MAX_SECTION_CHARS - 1)}…` : text } };
}

const ABILITIES = [
  '**Mention @Herald** in a channel and it answers in the thread, with numbered web sources when it searched; follow-ups there need no mention.',
  '**Send it a direct message**, or open it from the **assistant panel** (the ✨ at the top right) from any channel.',
  '**Share a file** with your question: images are described, voice clips and audio transcribed, text, code and PDFs read.',
  '**Press 👍 or 👎** under an answer to say how it did; **Stop** ends an answer you no longer need.',
].join('\n');

function commandList(): string {
  return slackCommands.map((c) => `\`${slackCommandName(c)}\` ${c.description}${c.adminOnly ? ' (admins)' : ''}`).join('\n');
}

/** The Home view for one person: admins also see the workspace's settings, usage and feedback. */
export async function homeView(rt: SlackRuntime, userId: string): Promise<{ type: 'home'; blocks: HomeBlock[] }> {
  const { engine } = rt.core;
  const workspaceId = rt.identity.teamId;
  const [mine, isAdmin] = await Promise.all([engine.usage({ platform: 'slack', userId }), rt.users.isAdmin(userId)]);
  const blocks: HomeBlock[] = [
    header('Herald'),
    section(ABILITIES),
    section(`**Commands**\n${commandList()}`),
    { type: 'divider' },
    header('Your usage today'),
    section(
      [
        usageLine('You today', mine.today, mine.limits.dailyTokens),
        `Limits: ${mine.limits.requestsPerMinute} requests a minute; the daily budget resets at midnight.`,
      ].join('\n'),
    ),
  ];
  if (isAdmin) {
    const [settings, workspace, votes] = await Promise.all([
      engine.getSettings({ platform: 'slack', workspaceId }),
      engine.usage({ platform: 'slack', workspaceId }),
      rt.feedback.counts('slack', workspaceId),
    ]);
    blocks.push(
      { type: 'divider' },
      header('This workspace (admins)'),
      section(describeSettings('this workspace', settings)),
      section([usageLine('This workspace today', workspace.today, workspace.limits.dailyTokens), feedbackLine(votes)].join('\n')),
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'Change the settings with `/settings`, here or per channel.' }] },
    );
  }
  return { type: 'home', blocks };
}

export function registerAppHome(app: App, rt: SlackRuntime): void {
  app.event('app_home_opened', async ({ event }) => {
    if (event.tab !== 'home') return;
    const userId = event.user;
    rt.run('app home', async () => {
      const view = await homeView(rt, userId);
      await rt.api.call('views.publish', undefined, (c) => c.views.publish({ user_id: userId, view }));
    });
  });
}
