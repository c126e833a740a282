/**
 * Herald on Slack: `startSlack({ core, logger, hooks })` checks the bot token (auth.test), connects (Socket Mode
 * or HTTP), and answers mentions, direct messages, thread follow-ups, the assistant surface and slash commands.
 */
import type { App } from '@slack/bolt';
import type { Core } from '../../src/core.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { Platform } from '../../src/platform/platform.ts';
import type { PlatformHooks } from '../../src/platform/platform-hooks.ts';
import { AnswerFeedback } from '../../src/conversation/feedback.ts';
import { QuestionFlow } from '../../src/platform/question-flow.ts';
import { registerAppHome } from './app-home.ts';
import { createAssistant } from './assistant.ts';
import { registerCommandListeners } from './command-listeners.ts';
import { registerInteractionListeners } from './interaction-listeners.ts';
import { registerApprovalListeners } from './approval-listeners.ts';
import { registerMessageListeners } from './message-listeners.ts';
import { registerRemindShortcut } from './remind-shortcut.ts';
import { SlackScheduleDelivery } from './schedule-delivery.ts';
import { registerShortcutListeners } from './shortcut-listeners.ts';
import { registerSummaryListeners } from './summary-listeners.ts';
import type { BucketLimit } from './rate-budget.ts';
import { RateBudget, SHARED_SLACK_BUDGET } from './rate-budget.ts';
import { sharedLimits } from '../../src/platform/shared-limits.ts';
import { connectSlack } from './receivers.ts';
import { WorkTracker, type SlackRuntime } from './runtime.ts';
import { markRedelivered, slackReviver } from './slack-question.ts';
import { boltLogger, SlackApi } from './slack-api.ts';
import { StreamingSwitch } from './stream-part.ts';
import { ThreadMemory } from './thread-memory.ts';
import { UserDirectory } from './user-directory.ts';
import { HistoryCache } from '../../src/workspace/history-cache.ts';
import { SlackHistory } from './workspace-history.ts';

/** Settings for tests and benchmarks; production runs on the defaults. */
export interface SlackTuning {
  /** Interface for Bolt's own HTTP server (without `mount`). */
  host?: string;
  clientPingTimeoutMs?: number;
  /** Per-method limits in place of Slack's published tiers. */
  methodLimits?: Record<string, BucketLimit>;
  postMessagePerChannel?: BucketLimit;
  retryConfig?: { retries: number; factor: number; minTimeout?: number; maxTimeout?: number };
}

/** Events whose listeners hand questions to the core's flow, which claims each question itself. */
const QUESTION_EVENTS: ReadonlySet<string> = new Set(['message', 'app_mention']);

export interface StartSlackOptions {
  core: Core;
  logger: Logger;
  /** With `mount`, Slack's HTTP requests are served under /slack on the ops server rather than a port of Bolt's own. */
  hooks?: PlatformHooks;
  tuning?: SlackTuning;
}

export interface RunningSlack extends Platform {
  app: App;
  /** The port of Bolt's own HTTP server (HTTP mode without `mount`). */
  port?: number;
  /** Stops taking events, cancels replies in progress (they end with a short note) and waits for them. */
  stop(): Promise<void>;
}

export async function startSlack(options: StartSlackOptions): Promise<RunningSlack> {
  const { core, hooks = {}, tuning = {} } = options;
  const settings = core.config.slack;
  if (!settings) throw new Error('Slack is not configured: set SLACK_BOT_TOKEN');
  const logger = options.logger.child({ platform: 'slack' });
  const budget = new RateBudget({
    ...(tuning.methodLimits && { methods: tuning.methodLimits }),
    ...(tuning.postMessagePerChannel && { postMessagePerChannel: tuning.postMessagePerChannel }),
  });
  const api = new SlackApi({
    botToken: settings.botToken,
    ...(settings.apiUrl && { apiUrl: settings.apiUrl }),
    logger,
    budget,
    onRateLimited: (method) => hooks.metrics?.platformRateLimited.inc({ platform: 'slack', route: method }),
    ...(tuning.retryConfig && { retryConfig: tuning.retryConfig }),
  });
  const auth = await api.client.auth.test();
  const identity = {
    teamId: String(auth.team_id),
    botUserId: String(auth.user_id),
    ...(auth.bot_id && { botId: auth.bot_id }),
    ...(auth.user && { botName: auth.user }),
  };
  // Every instance on the same Redis draws on one budget per workspace.
  const leases = sharedLimits(core.store, logger, {
    prefix: `rate:slack:${identity.teamId}:`,
    ...SHARED_SLACK_BUDGET,
    onLease: (outcome) => hooks.metrics?.sharedRateLeases?.inc({ platform: 'slack', outcome }),
  });
  if (leases) budget.shareThrough(leases);
  const work = new WorkTracker(logger, hooks.shutdown?.track.bind(hooks.shutdown), hooks.shutdown?.deadlineSignal);
  const users = new UserDirectory(api);
  const cache = new HistoryCache({ ttlMs: core.config.workspace.cacheTtlSeconds * 1000 });
  const rt: SlackRuntime = {
    core,
    logger,
    api,
    users,
    history: new SlackHistory({ api, users, cache, maxPages: core.config.workspace.historyPages, logger }),
    threads: new ThreadMemory(core.store, core.config.conversation.historyTtlSeconds * 1000),
    streaming: new StreamingSwitch(),
    flow: new QuestionFlow({ platform: 'slack', core, logger, hooks }),
    feedback: new AnswerFeedback(core.store, { ...(hooks.metrics?.feedback && { counter: hooks.metrics.feedback }) }),
    identity,
    run: (label, task) => work.run(label, task),
    ask: (label, task) => work.run(label, task, { tracked: false }),
  };

  const connection = connectSlack({
    botToken: settings.botToken,
    botUserId: identity.botUserId,
    ...(identity.botId && { botId: identity.botId }),
    apiUrl: api.apiUrl,
    logger: boltLogger(logger),
    ...(settings.appToken && { appToken: settings.appToken }),
    ...(settings.signingSecret && { signingSecret: settings.signingSecret }),
    ...(hooks.mount && { mount: hooks.mount }),
    port: core.config.port,
    ...(tuning.host && { host: tuning.host }),
    ...(tuning.clientPingTimeoutMs && { clientPingTimeoutMs: tuning.clientPingTimeoutMs }),
  });
  const { app } = connection;
  app.error(async (error) => {
    logger.error({ err: error }, 'Slack event handling failed');
  });
  // Before every listener (the Assistant's too): one answer per event, however often and wherever it is delivered.
  app.use(async ({ body, context, next }) => {
    const eventId = (body as { event_id?: unknown }).event_id;
    if (typeof eventId === 'string' && !(await rt.flow.firstDelivery(eventId))) {
      // Slack retries what it could not deliver: the instance it first reached may have died on the question.
      const retriedQuestion = (context.retryNum ?? 0) > 0 && QUESTION_EVENTS.has(String((body as { event?: { type?: unknown } }).event?.type));
      if (!retriedQuestion) {
        logger.debug({ eventId }, 'Slack event already handled');
        return;
      }
      markRedelivered(context);
    }
    await next();
  });
  app.assistant(createAssistant(rt));
  registerMessageListeners(app, rt);
  registerCommandListeners(app, rt);
  registerShortcutListeners(app, rt);
  registerInteractionListeners(app, rt);
  registerApprovalListeners(app, rt);
  registerAppHome(app, rt);
  registerSummaryListeners(app, rt);
  registerRemindShortcut(app, rt);

  if (connection.mode === 'socket') {
    hooks.health?.register('slack', async () => (connection.connected() ? { ok: true } : { ok: false, detail: 'Socket Mode reconnecting' }), {
      critical: true,
    });
  }
  // Before the first event, so that every reply keeps a heartbeat.
  rt.flow.revivesWith(slackReviver(rt));
  const port = await connection.start().catch((error: unknown) => {
    rt.flow.close();
    throw error;
  });
  logger.info({ mode: connection.mode, team: identity.teamId, bot: identity.botUserId, ...(port !== undefined && { port }) }, 'Slack connected');
  const detachSchedules = core.scheduler.attach(new SlackScheduleDelivery(rt));
  let stopping: Promise<void> | undefined;
  return {
    app,
    ...(port !== undefined && { port }),
    description: connection.mode === 'socket' ? 'Slack (Socket Mode)' : 'Slack (HTTP, /slack/events)',
    stopIntake: () => connection.stopIntake(),
    stop: () =>
      (stopping ??= (async () => {
        detachSchedules();
        await connection.stop();
        await work.stop();
        rt.flow.close();
      })()),
  };
}
