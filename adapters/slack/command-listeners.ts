/**
 * Herald's commands as Slack slash commands (`/ask`, or `/herald-ask` where the short name is taken). Each is
 * acknowledged at once (Slack waits three seconds at most) and run afterwards. A public answer in a channel goes
 * into the thread of a message that shows who asked what, so follow-ups there continue the conversation.
 */
import type { App, RespondFn, SlashCommand } from '@slack/bolt';
import { optionsOf, type CommandDefinition, type OptionValue } from '../../commands/command.ts';
import { commands } from '../../commands/index.ts';
import { runCommand } from '../../commands/run-command.ts';
import { escapeMrkdwn } from './mrkdwn.ts';
import { parseCommandText } from './command-options.ts';
import { slackCommandContext, type SlashInvocation } from './command-context.ts';
import { asAttachment, findRecentFile, howToShare, type WantedKind } from './recent-file.ts';
import type { SlackRuntime } from './runtime.ts';
import { slackErrorCode } from './slack-api.ts';

const NOT_A_MEMBER = new Set(['not_in_channel', 'channel_not_found']);
/**
 * The commands Herald offers on Slack (the manifest lists the same); Slack has no voice channels a bot can join, and
 * gives each user's time zone itself (no /timezone).
 */
export const slackCommands = commands.filter((c) => !c.voiceChannels && c.name !== 'timezone');

/** Commands where an admin acts on others' things (their schedules) besides the admin-only ones: rights read fresh. */
const ADMIN_ACTING = new Set(['schedule']);

/** Names Slack or its common apps take (Slack's own /remind): the manifest registers them as `/herald-<name>`. */
const PREFIXED = new Set(['remind', 'schedule']);

/** The slash command a definition is registered as in the manifest. */
export function slackCommandName(definition: CommandDefinition): string {
  return PREFIXED.has(definition.name) ? `/herald-${definition.name}` : `/${definition.name}`;
}

export function registerCommandListeners(app: App, rt: SlackRuntime): void {
  for (const definition of slackCommands) {
    app.command(new RegExp(`^/(herald[-_])?${definition.name}$`), async ({ command, ack, respond }) => {
      await ack();
      rt.run(`/${definition.name}`, () => runSlashCommand(rt, definition, command, respond));
    });
  }
}

async function runSlashCommand(rt: SlackRuntime, definition: CommandDefinition, command: SlashCommand, respond: RespondFn): Promise<void> {
  const tell = (text: string) => respond({ response_type: 'ephemeral', text });
  const parsed = parseCommandText(definition, command.text);
  // The usage names the command as the user typed it (`/herald-schedule`).
  if ('error' in parsed) return void (await tell(escapeMrkdwn(parsed.error.split(`/${definition.name}`).join(command.command))));
  const options = new Map<string, OptionValue>(parsed.options);
  const isDirect = command.channel_id.startsWith('D');

  for (const option of optionsOf(definition, parsed.subcommand)) {
    if (option.type !== 'attachment' || !option.required) continue;
    const wanted: WantedKind = option.name === 'image' ? 'image' : 'audio';
    let file;
    try {
      file = await findRecentFile(rt.api, command.channel_id, command.user_id, wanted);
    } catch (error) {
      if (!NOT_A_MEMBER.has(slackErrorCode(error) ?? '')) throw error;
    }
    if (!file) return void (await tell(howToShare(definition.name, wanted)));
    options.set(option.name, asAttachment(rt.api, file));
  }

  const invocation: SlashInvocation = { channelId: command.channel_id, userId: command.user_id, triggerId: command.trigger_id, isDirect };
  if (!definition.ephemeral && !isDirect) {
    try {
      invocation.threadTs = await postInvocation(rt, command);
    } catch (error) {
      if (!NOT_A_MEMBER.has(slackErrorCode(error) ?? '')) throw error;
      return void (await tell(
        `I'm not in this channel yet. Invite me with \`/invite @${rt.identity.botName ?? 'Herald'}\`, or send me a direct message.`,
      ));
    }
  }

  const freshRights = definition.adminOnly || ADMIN_ACTING.has(definition.name);
  const [person, isAdmin] = await Promise.all([
    rt.users.get(command.user_id),
    freshRights ? rt.users.isAdmin(command.user_id) : Promise.resolve(false),
  ]);
  const ctx = slackCommandContext(rt, {
    invocation,
    subcommand: parsed.subcommand,
    options,
    displayName: person.displayName,
    // Where rights decide what may be done they are read fresh; elsewhere (what /usage shows) the cached ones do.
    isAdmin: freshRights ? isAdmin : person.isAdmin,
    ...(person.timezone !== undefined && { timezone: person.timezone }),
    respond,
    ephemeral: definition.ephemeral ?? false,
  });
  await runCommand(definition, ctx, rt.core);
  if (invocation.threadTs) await rt.threads.remember(rt.identity.teamId, command.channel_id, invocation.threadTs);
}

/** The message a public answer is threaded under: who ran which command with what. */
async function postInvocation(rt: SlackRuntime, command: SlashCommand): Promise<string> {
  const text = command.text.trim();
  const shown = `<@${command.user_id}> used ${command.command}${text ? `: ${escapeMrkdwn(text)}` : ''}`;
  const posted = await rt.api.call('chat.postMessage', command.channel_id, (c) =>
    c.chat.postMessage({ channel: command.channel_id, text: shown, unfurl_links: false, unfurl_media: false }),
  );
  return String(posted.ts);
}
