export { FakeDiscord, startFakeDiscord } from './fake-discord.ts';
export type { FakeDiscordOptions, ForwardMessageInput, SendMessageInput, UserMessageAttachment, WaitForOptions } from './fake-discord.ts';
export type { InvokeCommandInput, ClickComponentInput, OptionValue, TestFile } from './interactions.ts';
export type { ModalValues, SubmitModalInput } from './modals.ts';
export type { RestRequestRecord, RecordedFile } from './rest-router.ts';
export type { RateLimitConfig, BucketLimit, RateLimitHit } from './rate-limiter.ts';
export type { ConnectionRecord, ReceivedPayload, VoiceRequest } from './gateway.ts';
export type { CdnRequestRecord, HeldTransfer } from './cdn.ts';
export type {
  AttachmentRecord,
  ChannelRecord,
  CommandRecord,
  GuildRecord,
  InteractionCallbackRecord,
  InteractionRecord,
  Json,
  MessageRecord,
  RoleRecord,
  UserRecord,
} from './records.ts';
export { ChannelType } from './records.ts';
export { shardOf } from './sharding.ts';
export { Intent } from './intents.ts';
export { Permission } from './permissions.ts';
export { MessageFlag } from './message-validation.ts';
