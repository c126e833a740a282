export {
  snowflake,
  startFakeVoiceServer,
  type FakeVoiceServer,
  type FakeVoiceServerOptions,
  type VoiceServerUpdateData,
  type VoiceSessionInfo,
  type VoiceStateUpdateData,
} from './fake-voice-server.ts';
export type { DaveEvent } from './dave/dave-call.ts';
export type { ReceivedPacket, SsrcStats, UdpCounters } from './media-log.ts';
export { OPUS_SILENCE_FRAME, SAMPLES_PER_FRAME, TRANSPORT_MODES, VoiceCloseCode, VoiceOp, type TransportMode } from './protocol.ts';
export { TALK_FIXTURES, talkFixture, type TalkFixture } from './talk-fixtures.ts';
export type { SpeakOptions, SpokenAudio } from './user-speech.ts';
export type { CloseRecord, ReceivedPayload, SpeakingEvent } from './state.ts';
