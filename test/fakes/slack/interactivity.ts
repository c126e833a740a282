/**
 * What a person does with an app's interactive surfaces, as Slack reports it: pressing a button or a feedback
 * button on a message (`block_actions`, built from the element the message really holds, so a button that is not
 * there cannot be pressed), and opening the app's Home tab (`app_home_opened`). Payloads go out with
 * `fake.sendInteractive` (HTTP, signed) or `fake.socket.sendInteractive` (Socket Mode); events with `deliverEvent`.
 * Trigger ids are recorded when issued: views.open takes each once, within three seconds.
 */
import { triggerId } from './ids.ts';
import type { ResponseUrls } from './response-urls.ts';
import type { Json, StoredMessage, Workspace } from './state.ts';

export interface PressOptions {
  channel: string;
  /** The ts of the message holding the element. */
  ts: string;
  actionId: string;
  user?: string;
  /** For feedback buttons: which of the two. */
  rating?: 'positive' | 'negative';
}

export interface InteractionsDeps {
  ws: Workspace;
  verificationToken: string;
  responseUrls: ResponseUrls;
  defaults: { userId: string };
}

export interface SubmitViewOptions {
  /** The id views.open answered with. */
  viewId: string;
  /** What the person typed, by the action_id of each input's element. */
  values: Record<string, string>;
  user?: string;
}

interface FoundElement {
  blockId: string;
  element: Json;
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Slack gives a block without a block_id one of its own; the same block keeps it between presses. */
function blockIdOf(block: Json, index: number, ts: string): string {
  return typeof block.block_id === 'string' ? block.block_id : `blk${ts.replace('.', '')}${index}`;
}

function findElement(message: StoredMessage, actionId: string): FoundElement | undefined {
  for (const [index, block] of (message.blocks ?? []).entries()) {
    if (!isRecord(block) || !Array.isArray(block.elements)) continue;
    if (block.type !== 'actions' && block.type !== 'context_actions') continue;
    const element = block.elements.find((e): e is Json => isRecord(e) && e.action_id === actionId);
    if (element) return { blockId: blockIdOf(block, index, message.ts), element };
  }
  return undefined;
}

/** A fresh trigger id, recorded so that views.open takes it once within three seconds. */
export function issueTrigger(ws: Workspace): string {
  const id = triggerId();
  ws.triggers.set(id, { issuedAt: Date.now(), used: false });
  return id;
}

export class Interactions {
  readonly #deps: InteractionsDeps;

  constructor(deps: InteractionsDeps) {
    this.#deps = deps;
  }

  /** A fresh trigger id, good for one views.open within three seconds. */
  issueTrigger(): string {
    return issueTrigger(this.#deps.ws);
  }

  /**
   * Someone presses a button (or one of a message's feedback buttons) on a message: the `block_actions` payload.
   * Throws when the message does not hold that element, as no one could press it.
   */
  press(options: PressOptions): Json {
    const { ws, verificationToken, responseUrls } = this.#deps;
    const user = options.user ?? this.#deps.defaults.userId;
    const message = ws.findMessage(options.channel, options.ts);
    if (!message) throw new Error(`no message ${options.channel}/${options.ts}`);
    const found = findElement(message, options.actionId);
    if (!found) throw new Error(`message ${options.ts} has no element with action_id ${options.actionId}`);
    const action = this.#action(found, options);
    const channel = ws.channels.get(options.channel);
    const person = ws.users.get(user);
    return {
      type: 'block_actions',
      user: { id: user, username: person?.name ?? 'user', name: person?.name ?? 'user', team_id: ws.identity.teamId },
      api_app_id: ws.identity.appId,
      token: verificationToken,
      container: {
        type: 'message',
        message_ts: message.ts,
        channel_id: options.channel,
        is_ephemeral: false,
        ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
      },
      trigger_id: this.issueTrigger(),
      team: { id: ws.identity.teamId, domain: ws.identity.teamDomain },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: options.channel, name: channel?.is_im ? 'directmessage' : (channel?.name ?? 'privategroup') },
      message: ws.render(message),
      state: { values: {} },
      response_url: responseUrls.mint('actions', options.channel, user, message.ts),
      actions: [action],
    };
  }

  /**
   * Someone fills in a modal the app opened and presses its submit button: the `view_submission` payload, with the
   * view as opened and `state.values` keyed by block_id then action_id. As Slack's client does, refuses to submit
   * a required input left empty or a text outside its element's min_length/max_length.
   */
  submitView(options: SubmitViewOptions): Json {
    const { ws, verificationToken } = this.#deps;
    const view = ws.openedViews.find((v) => v.id === options.viewId);
    if (!view) throw new Error(`no opened view ${options.viewId}`);
    const user = options.user ?? this.#deps.defaults.userId;
    const values: Record<string, Record<string, Json>> = {};
    const known = new Set<string>();
    for (const [index, block] of ((view.blocks as unknown[]) ?? []).entries()) {
      if (!isRecord(block) || block.type !== 'input' || !isRecord(block.element)) continue;
      const element = block.element;
      const actionId = String(element.action_id);
      known.add(actionId);
      const value = options.values[actionId] ?? '';
      if (value === '' && block.optional !== true) throw new Error(`the required input ${actionId} is empty`);
      if (typeof element.max_length === 'number' && value.length > element.max_length) throw new Error(`${actionId} is over its max_length`);
      if (typeof element.min_length === 'number' && value !== '' && value.length < element.min_length)
        throw new Error(`${actionId} is under its min_length`);
      const blockId = typeof block.block_id === 'string' ? block.block_id : `blk${String(view.id)}${index}`;
      values[blockId] = { [actionId]: { type: element.type, value: value === '' ? null : value } };
    }
    const unknown = Object.keys(options.values).find((id) => !known.has(id));
    if (unknown) throw new Error(`the view has no input ${unknown}`);
    const person = ws.users.get(user);
    return {
      type: 'view_submission',
      team: { id: ws.identity.teamId, domain: ws.identity.teamDomain },
      user: { id: user, username: person?.name ?? 'user', name: person?.name ?? 'user', team_id: ws.identity.teamId },
      api_app_id: ws.identity.appId,
      token: verificationToken,
      trigger_id: this.issueTrigger(),
      view: { ...view, state: { values } },
      response_urls: [],
      enterprise: null,
      is_enterprise_install: false,
    };
  }

  /** The user opens the app's Home tab: `app_home_opened`, with the view published to them before, if any. */
  appHomeOpened(options: { user?: string; tab?: 'home' | 'messages' } = {}): Json {
    const { ws } = this.#deps;
    const user = options.user ?? this.#deps.defaults.userId;
    const dm = [...ws.channels.values()].find((c) => c.is_im && c.user === user) ?? ws.addChannel({ user });
    const tab = options.tab ?? 'home';
    const published = ws.homeViews.get(user);
    return {
      type: 'app_home_opened',
      user,
      channel: dm.id,
      tab,
      event_ts: ws.clock.next(),
      ...(tab === 'home' && published ? { view: published } : {}),
    };
  }

  #action(found: FoundElement, options: PressOptions): Json {
    const { element, blockId } = found;
    const common = { action_id: options.actionId, block_id: blockId, action_ts: this.#deps.ws.clock.next() };
    if (element.type === 'feedback_buttons') {
      if (!options.rating) throw new Error('a feedback press needs a rating');
      const button = element[options.rating === 'positive' ? 'positive_button' : 'negative_button'] as Json;
      return { type: 'feedback_buttons', ...common, value: button.value, text: { ...(button.text as Json), emoji: true } };
    }
    if (element.type === 'button') {
      return {
        type: 'button',
        ...common,
        text: { ...(element.text as Json), emoji: true },
        ...(element.value !== undefined ? { value: element.value } : {}),
        ...(element.style !== undefined ? { style: element.style } : {}),
      };
    }
    throw new Error(`the fake cannot press a ${String(element.type)}`);
  }
}
