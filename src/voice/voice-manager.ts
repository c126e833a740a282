import { synthesizeStream, type SpeechInput } from '../capabilities/synthesize.ts';
import { transcribe } from '../capabilities/transcribe.ts';
import { SpendingGuard } from '../conversation/quotas.ts';
import type { ResolvedSettings } from '../conversation/settings.ts';
import type { ConversationKey } from '../conversation/types.ts';
import type { Logger } from '../log/logger.ts';
import type { OpusFrameStreamOptions } from '../media/speech/opus-frame-stream.ts';
import type { Core } from '../core.ts';
import type { Store } from '../store/store.ts';
import { warmUpLiveSpeech } from './live-speech.ts';
import { narrationFor, type ChatMessageForNarration, type Narration } from './narration.ts';
import { narrationBudget } from './narration-budget.ts';
import { SpeechQueue } from './speech-queue.ts';
import type { TalkServices } from './talk/talk-options.ts';
import { TalkSession } from './talk/talk-session.ts';
import { loadVoiceActivity } from './talk/voice-activity.ts';
import type { NarrationStart, SpeechRequest, SpeechTicket, TalkStart, VoiceControl } from './voice-control.ts';
import { VoiceError } from './voice-error.ts';
import type { ChannelRef, VoicePlatform } from './voice-platform.ts';

export interface VoiceManagerOptions {
  /** Platform name, part of stored keys ("discord"). */
  platform: string;
  voice: VoicePlatform;
  /** Streamed pcm16 speech, 24 kHz mono (synthesizeStream with the core's capabilities). */
  synthesize(input: SpeechInput): AsyncIterable<Uint8Array>;
  store: Pick<Store, 'get' | 'set' | 'delete'>;
  logger: Logger;
  /** Leave a voice channel after this long with nothing to say. Default 5 minutes. */
  idleTimeoutMs?: number;
  /** Requested speeches that may wait per server. Default 10. */
  maxQueued?: number;
  /** Narrated messages that may wait per server before the oldest is dropped. Default 5. */
  maxNarrationBacklog?: number;
  opus?: OpusFrameStreamOptions;
  /** Charges a message about to be narrated; false when its budget is spent and it is not read. */
  admitNarration?(message: ChatMessageForNarration): Promise<boolean>;
  /** What talk sessions (/talk) need; without it the bot does not listen. */
  talk?: TalkOptions;
}

export interface TalkOptions extends Omit<TalkServices, 'synthesize' | 'activity'> {
  /** Loads voice-activity detection (once) and returns a maker of one detector per speaker. */
  loadActivity(): Promise<TalkServices['activity']>;
  /** The settings in force in a voice channel (whether listening is allowed, the name, quotas, voice). */
  settings(key: ConversationKey): Promise<ResolvedSettings>;
  /** A talk session ends after this long without a turn. Default 5 minutes. */
  idleMs?: number;
}

/** A voice manager's options drawn from the core: speech, narration's budget and talk sessions, all charged as the rest. */
export function coreVoiceOptions(
  platform: string,
  core: Pick<Core, 'capabilities' | 'store' | 'engine'>,
  logger: Logger,
): Pick<VoiceManagerOptions, 'platform' | 'synthesize' | 'store' | 'logger' | 'admitNarration' | 'talk'> {
  return {
    platform,
    synthesize: (input) => synthesizeStream(core.capabilities, input),
    store: core.store,
    logger,
    admitNarration: narrationBudget(platform, core.store, core.capabilities.config, logger),
    talk: {
      settings: (key) => core.engine.settingsFor(key),
      answer: (message, handleOptions) => core.engine.handle(message, handleOptions),
      transcribe: (input) => transcribe(core.capabilities, input),
      spending: new SpendingGuard(core.store, core.capabilities.config),
      loadActivity: () => loadVoiceActivity(),
    },
  };
}

/** Who asked where: a command's origin. */
export interface VoiceScope {
  guildId?: string;
  /** The text channel the command came from. */
  channelId: string;
  userId: string;
}

interface NarrationSettings {
  voice?: string;
  style?: string;
}

/** Every server's speech queue and narration, and each user's voice preference. */
export class VoiceManager {
  readonly #options: VoiceManagerOptions;
  readonly #queues = new Map<string, SpeechQueue>();
  readonly #narrations = new Map<string, Narration>();
  readonly #talks = new Map<string, TalkSession>();
  /** Per server, the narrated message whose budget is being checked last. */
  readonly #admissions = new Map<string, Promise<void>>();

  constructor(options: VoiceManagerOptions) {
    this.#options = options;
  }

  /** Voice controls bound to one command invocation. */
  control(scope: VoiceScope): VoiceControl {
    return {
      say: (request) => this.#say(scope, request),
      stop: async () => {
        const queue = this.#queues.get(scope.guildId ?? '');
        await this.#checkControl(scope, queue?.channelId);
        return queue?.stop() ?? 0;
      },
      skip: async () => {
        const queue = this.#queues.get(scope.guildId ?? '');
        await this.#checkControl(scope, queue?.channelId);
        return queue?.skip() ?? false;
      },
      startNarration: (options) => this.#startNarration(scope, options),
      stopNarration: async () => {
        await this.#checkControl(scope, this.#narrations.get(scope.guildId ?? '')?.voiceChannelId);
        return this.#stopNarration(scope.guildId);
      },
      startTalk: (options) => this.#startTalk(scope, options),
      stopTalk: async () => {
        const talk = this.#talks.get(scope.guildId ?? '');
        await this.#checkControl(scope, talk?.channelId);
        if (!talk) return false;
        talk.end(`/talk stop by ${this.#options.voice.displayName(scope.guildId!, scope.userId)}.`);
        return true;
      },
      prefersVoice: async () => (await this.#options.store.get<boolean>(this.#preferenceKey(scope.userId))) === true,
      setPrefersVoice: async (prefers) => {
        if (prefers) await this.#options.store.set(this.#preferenceKey(scope.userId), true);
        else await this.#options.store.delete(this.#preferenceKey(scope.userId));
      },
    };
  }

  /** Offers a new chat message to narration; the adapter calls this for every message it receives. */
  narrate(message: ChatMessageForNarration): void {
    if (message.guildId === undefined) return;
    const narration = this.#narrations.get(message.guildId);
    if (!narration) return;
    const text = narrationFor(narration, message);
    if (text === undefined) return;
    const guildId = message.guildId;
    const read = () => {
      if (this.#narrations.get(guildId) !== narration) return;
      const { finished } = this.#queue(guildId).enqueue({
        kind: 'narration',
        channelId: narration.voiceChannelId,
        request: { text, voice: narration.voice, style: narration.style },
      });
      void finished.then((outcome) => {
        if (outcome.status === 'failed') this.#options.logger.warn({ guildId, reason: outcome.message }, 'voice: narration failed');
      });
    };
    const { admitNarration, logger } = this.#options;
    if (!admitNarration) return read();
    // One at a time per server, so messages are read in the order they came.
    const admitted = (this.#admissions.get(guildId) ?? Promise.resolve())
      .then(() => admitNarration(message))
      .then(
        (ok) => void (ok && read()),
        (error: unknown) => logger.warn({ err: error, guildId }, 'voice: narration budget could not be checked; message not read'),
      );
    this.#admissions.set(guildId, admitted);
    void admitted.then(() => {
      if (this.#admissions.get(guildId) === admitted) this.#admissions.delete(guildId);
    });
  }

  isNarrating(guildId: string): boolean {
    return this.#narrations.has(guildId);
  }

  isTalking(guildId: string): boolean {
    return this.#talks.has(guildId);
  }

  /** The adapter saw the last person leave a voice channel: if the bot is there, it stops narrating and listening, and leaves. */
  channelEmptied(guildId: string, channelId: string): void {
    const queue = this.#queues.get(guildId);
    if (!queue?.connected || queue.channelId !== channelId) return;
    this.#narrations.delete(guildId);
    this.#talks.get(guildId)?.end('everyone left the channel.');
    queue.leave();
  }

  /** The adapter saw a person's voice channel change (null: they left voice): the one who started a talk ends it by leaving. */
  voiceChannelChanged(guildId: string, userId: string, channelId: string | null): void {
    const talk = this.#talks.get(guildId);
    if (talk && talk.startedBy === userId && channelId !== talk.channelId) {
      talk.end(`${this.#options.voice.displayName(guildId, userId)}, who started it, left the channel.`);
    }
  }

  /** Stops all speech and leaves every voice channel. */
  close(): void {
    for (const talk of [...this.#talks.values()]) talk.end('Herald is shutting down.');
    this.#narrations.clear();
    for (const queue of this.#queues.values()) queue.leave();
    this.#queues.clear();
  }

  async #say(scope: VoiceScope, request: SpeechRequest): Promise<SpeechTicket> {
    const guildId = this.#guildOf(scope);
    const channel = await this.#options.voice.userVoiceChannel(guildId, scope.userId);
    this.#checkNotBusyElsewhere(guildId, channel);
    const { ahead, finished } = this.#queue(guildId).enqueue({ kind: 'say', channelId: channel.id, request });
    return { channelName: channel.name, ahead, finished };
  }

  async #startNarration(scope: VoiceScope, options: { channel?: string; voice?: string; style?: string }): Promise<NarrationStart> {
    const guildId = this.#guildOf(scope);
    const { voice: platform, store } = this.#options;
    const [voiceChannel, textChannel] = await Promise.all([
      platform.userVoiceChannel(guildId, scope.userId),
      platform.textChannel(guildId, scope.userId, options.channel, scope.channelId),
    ]);
    this.#checkNotListeningElsewhere(guildId, voiceChannel.id);
    const queue = this.#queue(guildId);
    if (queue.busy && queue.channelId !== voiceChannel.id) this.#busyElsewhere(guildId, queue.channelId!);
    const key = this.#narrationKey(guildId);
    const stored = (await store.get<NarrationSettings>(key)) ?? {};
    const settings: NarrationSettings = { ...stored, ...definedOnly({ voice: options.voice, style: options.style }) };
    if (settings.voice !== stored.voice || settings.style !== stored.style) await store.set(key, settings);
    await queue.prepare(voiceChannel.id);
    this.#narrations.set(guildId, { textChannelId: textChannel.id, voiceChannelId: voiceChannel.id, ...settings });
    return { textChannelName: textChannel.name, voiceChannelName: voiceChannel.name, ...settings };
  }

  async #startTalk(scope: VoiceScope, options: { transcript: boolean; move: boolean }): Promise<TalkStart> {
    const guildId = this.#guildOf(scope);
    const { voice: platform, talk, logger, synthesize, opus } = this.#options;
    if (!talk) throw new VoiceError("I can't listen in voice channels here.", { code: 'cannot_listen' });
    const channel = await platform.userVoiceChannel(guildId, scope.userId);
    const settings = await talk.settings({ platform: this.#options.platform, workspaceId: guildId, channelId: channel.id });
    if (!settings.talk.listening) {
      throw new VoiceError(
        'Listening in voice channels is off in this server (it sends what people say to the AI service). A server admin can turn it on with `/settings voice_listening:on`.',
        { code: 'listening_off' },
      );
    }
    const current = this.#talks.get(guildId);
    if (current?.channelId === channel.id) {
      throw new VoiceError(`I'm already listening in ${channel.name}; \`/talk stop\` ends it.`, { code: 'already_listening' });
    }
    this.#makeRoom(guildId, channel, options.move);
    const [link, activity] = await Promise.all([this.#queue(guildId).prepare(channel.id), talk.loadActivity(), warmUpLiveSpeech(opus)]);
    if (!link.listen) throw new VoiceError("I can't hear voice channels here.", { code: 'cannot_listen' });
    const starter = platform.displayName(guildId, scope.userId);
    const session: TalkSession = new TalkSession({
      platform: this.#options.platform,
      guildId,
      link,
      room: {
        people: () => platform.peopleIn(guildId, link.channelId),
        displayName: (userId) => platform.displayName(guildId, userId),
        post: (text, citations) => platform.postInVoiceChat(guildId, link.channelId, text, citations),
      },
      services: { ...talk, synthesize, activity },
      startedBy: scope.userId,
      name: settings.talk.name,
      transcript: options.transcript,
      voice: settings.voice,
      limits: settings.quotas,
      idleMs: talk.idleMs ?? 5 * 60_000,
      logger: logger.child({ guildId, talk: channel.id }),
      ...(opus && { opus }),
      otherSpeech: {
        ended: () => this.#queues.get(guildId)?.currentEnded(),
        hold: () => this.#queues.get(guildId)?.hold(),
        release: () => this.#queues.get(guildId)?.release(),
      },
      onEnd: () => {
        if (this.#talks.get(guildId) === session) this.#talks.delete(guildId);
        this.#queues.get(guildId)?.idle();
      },
    });
    this.#talks.set(guildId, session);
    const notice =
      `🎙️ **Herald is listening and transcribing** in this channel, started by ${starter}. What you say here goes to the AI service to be ` +
      `transcribed and answered; audio is not stored.${options.transcript ? ' Each turn and answer is posted here.' : ''} ` +
      `${platform.peopleIn(guildId, link.channelId) >= 2 ? `Start with “${settings.talk.name}” to ask me something. ` : ''}\`/talk stop\` ends it.`;
    try {
      await platform.postInVoiceChat(guildId, link.channelId, notice);
    } catch (error) {
      // Nobody may be listened to without being told so in the channel.
      logger.warn({ err: error, guildId, channelId: link.channelId }, "talk: the notice could not be posted in the voice channel's chat");
      session.end('the notice that I listen could not be posted.');
      throw new VoiceError(`I can't post in ${channel.name}'s chat, so I won't listen there unannounced. Give me **Send Messages** in it.`, {
        code: 'cannot_listen',
        cause: error,
      });
    }
    session.start();
    return { voiceChannelName: channel.name, name: settings.talk.name };
  }

  /** Herald busy in another channel of the guild (narrating, speaking, listening) moves only when asked to. */
  #makeRoom(guildId: string, channel: ChannelRef, move: boolean): void {
    const { voice } = this.#options;
    const talk = this.#talks.get(guildId);
    const narration = this.#narrations.get(guildId);
    const queue = this.#queues.get(guildId);
    const busyIn =
      talk?.channelId ??
      (narration?.voiceChannelId !== channel.id ? narration?.voiceChannelId : undefined) ??
      (queue?.busy ? queue.channelId : undefined);
    if (busyIn === undefined || busyIn === channel.id) return;
    const doing = talk ? 'listening' : narration ? 'narrating' : 'speaking';
    if (!move) {
      throw new VoiceError(
        `I'm ${doing} in ${voice.channelName(guildId, busyIn)} right now. To bring me to ${channel.name} instead, use \`/talk start move:true\`.`,
        {
          code: 'busy_elsewhere',
        },
      );
    }
    talk?.end(`moved to ${channel.name}.`);
    this.#stopNarration(guildId);
    queue?.stop();
  }

  #stopNarration(guildId: string | undefined): boolean {
    if (guildId === undefined || !this.#narrations.delete(guildId)) return false;
    const queue = this.#queues.get(guildId);
    queue?.clearNarration();
    queue?.idle();
    return true;
  }

  /** Only people in the voice channel, or who may move members there, stop or skip what plays in it. */
  async #checkControl(scope: VoiceScope, voiceChannelId: string | undefined): Promise<void> {
    if (scope.guildId === undefined || voiceChannelId === undefined) return;
    const { voice } = this.#options;
    if (await voice.mayControl(scope.guildId, scope.userId, voiceChannelId)) return;
    throw new VoiceError(`Only people in ${voice.channelName(scope.guildId, voiceChannelId)} (or with Move Members) can do that.`, {
      code: 'not_permitted',
    });
  }

  #checkNotBusyElsewhere(guildId: string, channel: ChannelRef): void {
    this.#checkNotListeningElsewhere(guildId, channel.id);
    const narration = this.#narrations.get(guildId);
    if (narration && narration.voiceChannelId !== channel.id) {
      const { voice } = this.#options;
      throw new VoiceError(
        `I'm narrating #${voice.channelName(guildId, narration.textChannelId)} in ${voice.channelName(guildId, narration.voiceChannelId)}. ` +
          'Join that channel, or end narration with /narrate stop.',
        { code: 'busy_elsewhere' },
      );
    }
    const queue = this.#queues.get(guildId);
    if (queue?.busy && queue.channelId !== channel.id) this.#busyElsewhere(guildId, queue.channelId!);
  }

  #checkNotListeningElsewhere(guildId: string, channelId: string): void {
    const talk = this.#talks.get(guildId);
    if (!talk || talk.channelId === channelId) return;
    throw new VoiceError(
      `I'm listening in ${this.#options.voice.channelName(guildId, talk.channelId)}. Join that channel, or end it with /talk stop.`,
      {
        code: 'busy_elsewhere',
      },
    );
  }

  #busyElsewhere(guildId: string, channelId: string): never {
    throw new VoiceError(`I'm speaking in ${this.#options.voice.channelName(guildId, channelId)} right now. Join that channel, or use /stop first.`, {
      code: 'busy_elsewhere',
    });
  }

  #guildOf(scope: VoiceScope): string {
    if (scope.guildId === undefined) {
      throw new VoiceError('Voice channels exist only in servers; here I can send speech as a voice message.', { code: 'not_in_guild' });
    }
    return scope.guildId;
  }

  #queue(guildId: string): SpeechQueue {
    let queue = this.#queues.get(guildId);
    if (!queue) {
      const { voice, synthesize, logger, idleTimeoutMs, maxQueued, maxNarrationBacklog, opus } = this.#options;
      queue = new SpeechQueue({
        join: (channelId) => voice.join(guildId, channelId),
        synthesize,
        logger: logger.child({ guildId }),
        idleTimeoutMs: idleTimeoutMs ?? 5 * 60_000,
        maxQueued: maxQueued ?? 10,
        maxNarrationBacklog: maxNarrationBacklog ?? 5,
        keepConnected: () => this.#narrations.has(guildId) || this.#talks.has(guildId),
        // Narration must not pull the bot back into a call it was removed from.
        onLost: (loss) => {
          this.#narrations.delete(guildId);
          this.#talks.get(guildId)?.end(loss.reason);
        },
        untilPause: () => this.#talks.get(guildId)?.untilPause(),
        // Nor pull it back out of a channel someone moved it to: it goes on there.
        onMoved: (channelId) => {
          const narration = this.#narrations.get(guildId);
          if (narration) narration.voiceChannelId = channelId;
        },
        opus,
      });
      this.#queues.set(guildId, queue);
    }
    return queue;
  }

  #preferenceKey(userId: string): string {
    return `voice:prefers-voice:${this.#options.platform}:${userId}`;
  }

  #narrationKey(guildId: string): string {
    return `voice:narration:${this.#options.platform}:${guildId}`;
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
