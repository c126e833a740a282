import { ask } from './ask.ts';
import type { CommandDefinition } from './command.ts';
import { describe } from './describe.ts';
import { narrate } from './narrate.ts';
import { reset } from './reset.ts';
import { say } from './say.ts';
import { settings } from './settings.ts';
import { skip } from './skip.ts';
import { stop } from './stop.ts';
import { summarize } from './summarize.ts';
import { transcribe } from './transcribe.ts';
import { usage } from './usage.ts';

/** Every command, in the order platforms list them. */
export const commands: readonly CommandDefinition[] = [ask, say, transcribe, describe, reset, settings, usage, stop, skip, narrate, summarize];
