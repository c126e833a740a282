import { ask } from './ask.ts';
import { askAboutMessage } from './ask-about-message.ts';
import type { CommandDefinition } from './command.ts';
import { describe } from './describe.ts';
import { describeMessage } from './describe-message.ts';
import type { MessageActionDefinition } from './message-action.ts';
import { narrate } from './narrate.ts';
import { persona } from './persona.ts';
import { readAloud } from './read-aloud.ts';
import { remind } from './remind.ts';
import { reset } from './reset.ts';
import { say } from './say.ts';
import { schedule } from './schedule.ts';
import { settings } from './settings.ts';
import { skip } from './skip.ts';
import { stop } from './stop.ts';
import { timezone } from './timezone.ts';
import { summarize, summarizeFromHere } from './summarize.ts';
import { talk } from './talk.ts';
import { transcribe } from './transcribe.ts';
import { transcribeMessage } from './transcribe-message.ts';
import { translateMessage } from './translate-message.ts';
import { usage } from './usage.ts';

/** Every command, in the order platforms list them. */
export const commands: readonly CommandDefinition[] = [
  ask,
  say,
  transcribe,
  describe,
  summarize,
  remind,
  schedule,
  timezone,
  reset,
  settings,
  persona,
  usage,
  stop,
  skip,
  narrate,
  talk,
];

/** Every action on a message (Discord's message commands, Slack's message shortcuts), in the order menus list them. */
export const messageActions: readonly MessageActionDefinition[] = [
  askAboutMessage,
  translateMessage,
  transcribeMessage,
  describeMessage,
  readAloud,
  summarizeFromHere,
];
