/**
 * The CommandContext for a Slack slash command, with its replies bound: ephemeral text through the command's
 * response_url (seen only by the user, wherever Herald is), public text and streamed answers as messages in the
 * command's thread, files through files.uploadV2. Slack has no native voice messages, so /say sends a WAV.
 */
import type { RespondFn } from '@slack/bolt';
import type { CommandContext, OptionValue, OutgoingFile } from '../../commands/command.ts';
import type { ReplyStream } from '../../src/conversation/types.ts';
import { postApproval, postEphemeralApproval } from './approval-message.ts';
import { defuseMentions } from './defuse-mentions.ts';
import { replyEphemerally, type EphemeralTarget } from './ephemeral-reply.ts';
import { toMrkdwn } from './mrkdwn.ts';
import type { ReplyTarget } from './reply-part.ts';
import type { SlackRuntime } from './runtime.ts';
import { sendReply } from './send-reply.ts';
import { shareFile } from './upload.ts';

export interface SlashInvocation {
  channelId: string;
  userId: string;
  triggerId: string;
  isDirect: boolean;
  /** The thread that public replies go into (the message that shows the command), if any. */
  threadTs?: string;
}

export interface CommandContextInput {
  invocation: SlashInvocation;
  subcommand?: string;
  options: ReadonlyMap<string, OptionValue>;
  displayName: string;
  isAdmin: boolean;
  /** The user's IANA zone as Slack has it. */
  timezone?: string;
  respond: RespondFn;
  /** The command's replies are the user's alone: so are its approvals. */
  ephemeral?: boolean;
}

/** A channel a command names (`<#C…>`) stays a link to it: it notifies nobody, unlike the mentions mrkdwn escapes. */
function withChannelLinks(mrkdwn: string): string {
  return mrkdwn.replace(/&lt;#([CG][A-Z0-9]{8,})&gt;/g, '<#$1>');
}

export function slackCommandContext(rt: SlackRuntime, input: CommandContextInput): CommandContext {
  const { invocation, respond } = input;
  const target: ReplyTarget = {
    channel: invocation.channelId,
    ...(invocation.threadTs && { threadTs: invocation.threadTs }),
    recipient: { userId: invocation.userId, teamId: rt.identity.teamId },
  };
  const privately: EphemeralTarget = {
    channel: target.channel,
    ...(target.threadTs && { threadTs: target.threadTs }),
    userId: invocation.userId,
    respond,
  };
  return {
    platform: 'slack',
    workspaceId: rt.identity.teamId,
    channelId: invocation.channelId,
    ...(invocation.threadTs && { threadId: invocation.threadTs }),
    invocationId: invocation.triggerId,
    user: {
      id: invocation.userId,
      displayName: input.displayName,
      isAdmin: input.isAdmin,
      ...(input.timezone !== undefined && { timezone: input.timezone }),
    },
    isDirect: invocation.isDirect,
    ...(input.subcommand !== undefined && { subcommand: input.subcommand }),
    options: input.options,
    uploadLimitBytes: rt.core.config.media.uploadLimitBytes,
    voiceMessages: false,
    workspace: rt.history.forQuestion(
      invocation.userId,
      { channel: invocation.channelId, isDirectMessage: invocation.isDirect },
      { heraldId: rt.identity.botUserId },
    ),
    // The command was acknowledged when it arrived; everything after is a follow-up.
    defer: async () => {},
    reply: async (text: string, options?: { ephemeral?: boolean }) => {
      if (options?.ephemeral) {
        await respond({ response_type: 'ephemeral', text: withChannelLinks(toMrkdwn(text)) });
        return;
      }
      await rt.api.call('chat.postMessage', target.channel, (c) =>
        c.chat.postMessage({ channel: target.channel, ...(target.threadTs && { thread_ts: target.threadTs }), markdown_text: defuseMentions(text) }),
      );
    },
    replyStream: async (stream: ReplyStream, options?: { ephemeral?: boolean }) => {
      if (options?.ephemeral) {
        return replyEphemerally(rt, privately, stream);
      }
      await sendReply(rt, stream, {
        target,
        wantsReasoning: input.options.get('reasoning') === true,
        feedbackId: `${invocation.channelId}:${invocation.triggerId}`,
      });
    },
    upload: async (file: OutgoingFile, text?: string) => {
      await shareFile(rt.api, target, { name: file.name, data: file.data }, text);
    },
    approve: (request, signal) =>
      rt.flow.approve({
        request,
        askerId: invocation.userId,
        show: (view) => (input.ephemeral ? postEphemeralApproval(rt.api, privately, view) : postApproval(rt.api, target, view)),
        signal,
      }),
  };
}
