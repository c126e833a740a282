import type { Readable } from 'node:stream';
import {
  AudioPlayerStatus,
  NoSubscriberBehavior,
  StreamType,
  VoiceConnectionDisconnectReason,
  VoiceConnectionStatus,
  createAudioPlayer,
  createAudioResource,
  entersState,
  joinVoiceChannel,
  type AudioPlayer,
  type AudioPlayerState,
  type DiscordGatewayAdapterCreator,
  type PlayerSubscription,
  type VoiceConnection,
  type VoiceConnectionState,
} from '@discordjs/voice';
import type { Logger } from '../../../src/log/logger.ts';
import type { OpusBackend } from '../../../src/media/opus-backend.ts';
import { VoiceError } from '../../../src/voice/voice-error.ts';
import type { HeardAudio, VoiceLink, VoiceLoss } from '../../../src/voice/voice-link.ts';
import { VoiceHearing } from './voice-hearing.ts';

export interface DiscordVoiceLinkOptions {
  guildId: string;
  channelId: string;
  /** The guild's `voiceAdapterCreator` from discord.js (or a test stand-in). */
  adapterCreator: DiscordGatewayAdapterCreator;
  logger: Logger;
  /** How long a join may take. Default 15 s. */
  readyTimeoutMs?: number;
  /** After a drop, how long the library may try to resume or reconnect on its own before a fresh join. Default 10 s. */
  recoverTimeoutMs?: number;
  /** Fresh joins tried after a drop before giving up. Default 3. */
  maxRejoins?: number;
  /** Pause before each fresh join, times the attempt number. Default 2 s. */
  rejoinDelayMs?: number;
  /** After Discord's 4014 close, how long to wait for signs of a move to another channel. Default 5 s. */
  moveGraceMs?: number;
  /** How long to wait for the DAVE group before speaking (with nobody else in the call there is none). Default 3 s. */
  encryptionTimeoutMs?: number;
  /** Whether a user is a bot, for listening to people only. Default: nobody is. */
  isBot?: (userId: string) => boolean | Promise<boolean>;
  /** Which libopus decodes what is heard. Default: native when it loads. */
  opusBackend?: OpusBackend;
}

/** Discord's close code when the bot was disconnected from the channel (kicked, or the channel deleted). */
const DISCONNECTED_FROM_CHANNEL = 4014;
const REMOVED: VoiceLoss = { reason: 'I was disconnected from the voice channel.', removed: true };

/**
 * The bot in one Discord voice channel: a @discordjs/voice connection with DAVE end-to-end encryption
 * (Discord refuses voice without it since March 2026) and one audio player. A dropped connection is left
 * to the library to resume first; if it is not ready again in time, the link joins afresh a few times,
 * and the player (paused meanwhile) goes on where it stopped. It watches the bot's own voice state:
 * moved by a moderator, it goes on in the new channel (the library follows Discord there by itself);
 * disconnected, it is lost for good at once. It joins deafened, and stays undeafened only while someone listens.
 */
export class DiscordVoiceLink implements VoiceLink {
  readonly #options: DiscordVoiceLinkOptions;
  readonly #player: AudioPlayer;
  readonly #lostListeners: ((loss: VoiceLoss) => void)[] = [];
  readonly #movedListeners: ((channelId: string) => void)[] = [];
  #channelId: string;
  #connection: VoiceConnection | undefined;
  #subscription: PlayerSubscription | undefined;
  #recovery: Promise<void> | undefined;
  #endPlayback: (() => void) | undefined;
  #closed = false;
  #hearer: ((audio: HeardAudio) => void) | undefined;
  #hearing: VoiceHearing | undefined;
  #listenerFailed = false;

  private constructor(options: DiscordVoiceLinkOptions) {
    this.#options = options;
    this.#channelId = options.channelId;
    // Live speech can fall behind real time for a moment: keep playing (silence) instead of stopping after 5 missed frames.
    this.#player = createAudioPlayer({ behaviors: { noSubscriber: NoSubscriberBehavior.Pause, maxMissedFrames: Number.POSITIVE_INFINITY } });
    this.#player.on('error', (error) => options.logger.warn({ err: error }, 'voice: audio player error'));
  }

  /** Joins the channel and waits until audio can flow; rejects with a VoiceError when that fails. */
  static async join(options: DiscordVoiceLinkOptions): Promise<DiscordVoiceLink> {
    const link = new DiscordVoiceLink(options);
    await link.#connect();
    return link;
  }

  get channelId(): string {
    return this.#channelId;
  }

  /** The live connection, for observers (ping, DAVE privacy code). */
  get connection(): VoiceConnection | undefined {
    return this.#connection;
  }

  play(packets: Readable): Promise<void> {
    if (this.#closed) {
      packets.destroy();
      return Promise.resolve();
    }
    const resource = createAudioResource(packets, { inputType: StreamType.Opus });
    return new Promise<void>((resolve) => {
      const finish = () => {
        this.#player.off('stateChange', onState);
        if (this.#endPlayback === finish) this.#endPlayback = undefined;
        resolve();
      };
      const onState = (_old: AudioPlayerState, state: AudioPlayerState) => {
        if (state.status === AudioPlayerStatus.Idle || state.resource !== resource) finish();
      };
      this.#player.on('stateChange', onState);
      this.#endPlayback = finish;
      this.#player.play(resource);
    });
  }

  stopPlayback(): void {
    this.#player.stop(true);
  }

  listen(onAudio: (audio: HeardAudio) => void): () => void {
    if (this.#closed) return () => {};
    const hearer = (audio: HeardAudio) => onAudio(audio);
    this.#hearer = hearer;
    if (!this.#hearing) {
      const { guildId, logger, isBot = () => false, opusBackend } = this.#options;
      this.#hearing = new VoiceHearing({ guildId, logger, isBot, opusBackend, deliver: (audio) => this.#deliver(audio) });
      this.#listenerFailed = false;
      this.#syncHearing();
    }
    return () => {
      if (this.#hearer !== hearer) return;
      this.#hearer = undefined;
      this.#hearing?.stop();
      this.#hearing = undefined;
      if (!this.#closed) this.#syncHearing();
    };
  }

  leave(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#hearing?.stop();
    this.#hearing = undefined;
    this.#hearer = undefined;
    this.#player.stop(true);
    this.#endPlayback?.();
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection && connection.state.status !== VoiceConnectionStatus.Destroyed) connection.destroy();
  }

  onLost(listener: (loss: VoiceLoss) => void): void {
    this.#lostListeners.push(listener);
  }

  onMoved(listener: (channelId: string) => void): void {
    this.#movedListeners.push(listener);
  }

  async #connect(): Promise<void> {
    const { guildId, logger, readyTimeoutMs = 15_000 } = this.#options;
    let wasReady = false;
    // The bot's own VOICE_STATE_UPDATEs reach the connection through its adapter: pass them on, and watch them.
    const adapterCreator: DiscordGatewayAdapterCreator = (methods) =>
      this.#options.adapterCreator({
        ...methods,
        onVoiceStateUpdate: (data) => {
          methods.onVoiceStateUpdate(data);
          if (connection === this.#connection) this.#onOwnVoiceState(data.channel_id, wasReady);
        },
      });
    const connection = joinVoiceChannel({
      guildId,
      channelId: this.#channelId,
      adapterCreator,
      selfDeaf: this.#hearing === undefined,
      selfMute: false,
      daveEncryption: true,
    });
    connection.once(VoiceConnectionStatus.Ready, () => (wasReady = true));
    this.#connection = connection;
    connection.on('error', (error) => logger.warn({ err: error, guildId }, 'voice: connection error'));
    connection.on('stateChange', (oldState, newState) => this.#onConnectionState(connection, oldState, newState));
    try {
      await entersState(connection, VoiceConnectionStatus.Ready, readyTimeoutMs);
    } catch (error) {
      if (this.#connection === connection) this.#connection = undefined;
      if (connection.state.status !== VoiceConnectionStatus.Destroyed) connection.destroy();
      throw new VoiceError('I could not connect to the voice channel in time. Please try again.', { code: 'connect_failed', cause: error });
    }
    await this.#attachPlayer(connection);
  }

  #deliver(audio: HeardAudio): void {
    try {
      this.#hearer?.(audio);
    } catch (error) {
      if (this.#listenerFailed) return;
      this.#listenerFailed = true;
      this.#options.logger.error({ err: error, guildId: this.#options.guildId }, 'voice: a listener failed on heard audio');
    }
  }

  /**
   * On a ready connection, hears through its receiver while someone listens, and shows the bot undeafened exactly
   * then. Self-deafening is only a badge (Discord sends audio regardless): it tells people whether the bot listens.
   */
  #syncHearing(): void {
    const connection = this.#connection;
    if (!connection || connection.state.status !== VoiceConnectionStatus.Ready) return;
    this.#hearing?.attach(connection.receiver);
    const selfDeaf = this.#hearing === undefined;
    if (connection.joinConfig.selfDeaf !== selfDeaf) connection.rejoin({ ...connection.joinConfig, selfDeaf });
  }

  /** On a (re)connected call, hearing goes on at once; the player speaks only once its audio can be end-to-end encrypted. */
  async #attachPlayer(connection: VoiceConnection): Promise<void> {
    this.#syncHearing();
    await this.#untilEncrypted(connection);
    if (this.#closed || connection !== this.#connection) return;
    this.#subscription = connection.subscribe(this.#player);
  }

  /**
   * Audio sent before the DAVE group is set up would leave unencrypted (the library passes it through),
   * so the player is attached only once the call has its privacy code, or after a bounded wait.
   */
  async #untilEncrypted(connection: VoiceConnection): Promise<void> {
    const { encryptionTimeoutMs = 3_000, logger, guildId } = this.#options;
    const deadline = performance.now() + encryptionTimeoutMs;
    while (connection.voicePrivacyCode === undefined && connection.state.status === VoiceConnectionStatus.Ready) {
      if (performance.now() >= deadline) {
        logger.info({ guildId }, 'voice: no end-to-end encrypted group yet (nobody else in the call?); speaking anyway');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /**
   * A null channel once the connection has been ready means someone removed the bot; a leave of an earlier
   * connection can only arrive before that. Another channel means someone moved it.
   */
  #onOwnVoiceState(channelId: string | null, wasReady: boolean): void {
    if (this.#closed) return;
    const { logger, guildId } = this.#options;
    if (channelId === null) {
      if (!wasReady) return;
      logger.info({ guildId, channelId: this.#channelId }, 'voice: removed from the channel');
      this.#lose(REMOVED);
      return;
    }
    if (channelId === this.#channelId) return;
    logger.info({ guildId, from: this.#channelId, to: channelId }, 'voice: moved to another channel');
    this.#channelId = channelId;
    for (const listener of this.#movedListeners) listener(channelId);
  }

  #onConnectionState(connection: VoiceConnection, oldState: VoiceConnectionState, newState: VoiceConnectionState): void {
    if (this.#closed || connection !== this.#connection || this.#recovery !== undefined) return;
    if (oldState.status !== VoiceConnectionStatus.Ready || newState.status === VoiceConnectionStatus.Ready) return;
    this.#options.logger.info({ guildId: this.#options.guildId, status: newState.status }, 'voice: connection dropped');
    this.#startRecovery(connection, newState);
  }

  #startRecovery(connection: VoiceConnection, dropped: VoiceConnectionState): void {
    // The call may come back as a new one (a move, a rejoin by the library) whose encryption is not set up yet.
    this.#subscription?.unsubscribe();
    this.#subscription = undefined;
    this.#recovery = this.#recover(connection, dropped).finally(() => {
      this.#recovery = undefined;
      const current = this.#connection;
      // A drop while the recovery was ending (waiting for encryption) went unseen.
      if (!this.#closed && current && current.state.status !== VoiceConnectionStatus.Ready) this.#startRecovery(current, current.state);
    });
  }

  async #recover(connection: VoiceConnection, dropped: VoiceConnectionState): Promise<void> {
    const { recoverTimeoutMs = 10_000, maxRejoins = 3, rejoinDelayMs = 2_000, moveGraceMs = 5_000, logger, guildId } = this.#options;
    const kicked =
      dropped.status === VoiceConnectionStatus.Disconnected &&
      dropped.reason === VoiceConnectionDisconnectReason.WebSocketClose &&
      dropped.closeCode === DISCONNECTED_FROM_CHANNEL;
    if (kicked) {
      // 4014 also comes with a move to another channel, which the library follows by itself.
      const moved = await entersState(connection, VoiceConnectionStatus.Connecting, moveGraceMs).then(
        () => true,
        () => false,
      );
      if (!moved) return this.#lose(REMOVED);
    }
    if (dropped.status !== VoiceConnectionStatus.Destroyed) {
      const back = await entersState(connection, VoiceConnectionStatus.Ready, recoverTimeoutMs).then(
        () => true,
        () => false,
      );
      if (back) await this.#attachPlayer(connection);
      if (back || this.#closed) return;
    }
    for (let attempt = 1; attempt <= maxRejoins && !this.#closed; attempt++) {
      if (connection.state.status !== VoiceConnectionStatus.Destroyed) connection.destroy();
      await new Promise((resolve) => setTimeout(resolve, rejoinDelayMs * attempt));
      if (this.#closed) return;
      try {
        await this.#connect();
        logger.info({ guildId, attempt }, 'voice: rejoined after a drop');
        return;
      } catch (error) {
        logger.warn({ err: error, guildId, attempt }, 'voice: rejoining failed');
      }
    }
    this.#lose({ reason: 'I lost the voice connection and could not get it back.', removed: false });
  }

  #lose(loss: VoiceLoss): void {
    if (this.#closed) return;
    this.leave();
    for (const listener of this.#lostListeners) listener(loss);
  }
}
