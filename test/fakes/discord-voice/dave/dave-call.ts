import davey from '@snazzah/davey';
import { VoiceOp } from '../protocol.ts';
import type { VoiceSession } from '../voice-session.ts';
import { splitCommitWelcome } from './commit-welcome.ts';
import { ExternalSender, addProposal, removeProposal } from './external-sender.ts';
import { u16, u64, u8, vector } from './mls-wire.ts';

type DaveySession = InstanceType<typeof davey.DAVESession>;

// Values of davey's const enums, which isolated modules cannot read from its declarations.
const PROPOSALS_APPEND = 0;
const MEDIA_AUDIO = 0;

/** A fake human in the channel: a real DAVE client (davey) that the fake gateway drives in-process. */
interface Member {
  userId: string;
  session: DaveySession;
  keyPackage: Buffer;
  inGroup: boolean;
}

export interface DaveEvent {
  type:
    | 'external-sender'
    | 'key-package'
    | 'welcome'
    | 'proposals'
    | 'commit-welcome'
    | 'announce-commit'
    | 'ready'
    | 'execute'
    | 'invalid-commit-welcome'
    | 'error';
  transitionId?: number;
  detail?: string;
  at: number;
}

/**
 * The voice gateway's side of DAVE for one channel: it is the MLS external sender, proposes adding and removing
 * members, relays commits and welcomes, and sequences protocol transitions with the bot (the only remote client).
 * Fake users are davey sessions; whoever of them is first commits when the bot arrives (so the bot is welcomed,
 * opcode 30), and the bot commits when a user joins or leaves later (opcodes 27, 28, 29).
 */
export class DaveCall {
  readonly events: DaveEvent[] = [];
  private readonly sender = new ExternalSender();
  private readonly channelId: string;
  private readonly groupId: Buffer;
  private readonly userIds: string[];
  private members: Member[] = [];
  /** Epoch of the established group; 0 while the call has no group yet (every member is pending). */
  private epoch = 0n;
  private bot: VoiceSession | null = null;
  private botKeyPackage: Buffer | null = null;
  private botInGroup = false;
  private nextTransitionId = 1;
  private readonly awaitingReady = new Set<number>();
  private inFlight: { joining: Member[] } | null = null;

  constructor(channelId: string, userIds: string[]) {
    this.channelId = channelId;
    this.groupId = u64(BigInt(channelId));
    this.userIds = [...userIds];
  }

  get groupEpoch(): bigint {
    return this.epoch;
  }

  /** Users whose davey session is in the same MLS group as the bot. */
  get groupMembers(): string[] {
    return this.botInGroup ? this.members.filter((member) => member.inGroup).map((member) => member.userId) : [];
  }

  /** The voice privacy code the fake users' clients would display (it matches the bot's when both share the epoch). */
  get voicePrivacyCode(): string | null {
    return this.members.find((member) => member.inGroup)?.session.voicePrivacyCode || null;
  }

  /** A new bot session (Identify) starts the call over: the fake users rebuild their group without the bot. */
  start(bot: VoiceSession): void {
    this.bot = bot;
    this.botKeyPackage = null;
    this.botInGroup = false;
    this.awaitingReady.clear();
    this.inFlight = null;
    this.epoch = 0n;
    this.members = this.userIds.map((userId) => this.newMember(userId));
    if (this.members.length >= 2) {
      const [leader, ...others] = this.members as [Member, ...Member[]];
      this.commitLocally(
        leader,
        others.map((member) => member.keyPackage),
        others,
      );
    }
    bot.sendBinary(VoiceOp.DaveMlsExternalSender, this.sender.package);
    this.note('external-sender');
  }

  onKeyPackage(keyPackage: Buffer): void {
    this.note('key-package');
    this.botKeyPackage = keyPackage;
    this.botInGroup = false;
    const [leader] = this.members;
    if (!leader || !this.bot) return;
    const pending = this.members.filter((member) => member !== leader && !member.inGroup);
    const welcome = this.commitLocally(leader, [keyPackage, ...pending.map((member) => member.keyPackage)], pending);
    this.botInGroup = true;
    const transitionId = this.beginTransition();
    this.bot.sendBinary(VoiceOp.DaveMlsWelcome, Buffer.concat([u16(transitionId), welcome]));
    this.note('welcome', transitionId);
  }

  memberJoined(userId: string): void {
    this.userIds.push(userId);
    if (!this.bot) return;
    const member = this.newMember(userId);
    this.members.push(member);
    if (!this.botKeyPackage) return;
    this.proposeToBot(addProposal(member.keyPackage), [member]);
  }

  memberLeft(userId: string): void {
    this.userIds.splice(this.userIds.indexOf(userId), 1);
    const member = this.members.find((candidate) => candidate.userId === userId);
    if (!member) return;
    this.members = this.members.filter((candidate) => candidate !== member);
    if (member.inGroup && this.botInGroup) this.proposeToBot(removeProposal(member.session.ownLeafIndex!), []);
  }

  onCommitWelcome(payload: Buffer): void {
    this.note('commit-welcome');
    const inFlight = this.inFlight;
    if (!inFlight || !this.bot) return this.note('error', undefined, 'commit without proposals in flight');
    this.inFlight = null;
    try {
      const { commit, welcome } = splitCommitWelcome(payload);
      for (const member of this.members) {
        if (inFlight.joining.includes(member)) {
          if (!welcome) throw new Error('commit adds members but came without a welcome');
          member.session.processWelcome(welcome);
          member.inGroup = true;
        } else if (member.inGroup) {
          member.session.processCommit(commit);
        }
      }
      this.epoch++;
      this.botInGroup = true;
      const transitionId = this.beginTransition();
      this.bot.sendBinary(VoiceOp.DaveMlsAnnounceCommitTransition, Buffer.concat([u16(transitionId), commit]));
      this.note('announce-commit', transitionId);
    } catch (error) {
      this.note('error', undefined, String(error));
    }
  }

  onTransitionReady(transitionId: number): void {
    this.note('ready', transitionId);
    if (!this.awaitingReady.delete(transitionId) || !this.bot) return;
    this.bot.send(VoiceOp.DaveExecuteTransition, { transition_id: transitionId });
    this.note('execute', transitionId);
  }

  onInvalidCommitWelcome(transitionId: number): void {
    this.note('invalid-commit-welcome', transitionId);
  }

  /**
   * The user's own client end-to-end encrypts a frame it sends, or null while it shares no group with the bot
   * (it cannot encrypt for the bot yet, so nothing of it reaches the bot).
   */
  encrypt(userId: string, frame: Buffer): Buffer | null {
    const member = this.members.find((candidate) => candidate.userId === userId);
    if (!member?.inGroup || !this.botInGroup || !member.session.ready) return null;
    return member.session.encryptOpus(frame);
  }

  /** Removes the E2EE layer from a frame the given user sent, as a fellow group member would. */
  decrypt(userId: string, frame: Buffer): Buffer {
    const member = this.members.find((candidate) => candidate.inGroup);
    if (!member) throw new Error('no call member is in an MLS group with the sender');
    return member.session.decrypt(userId, MEDIA_AUDIO, frame);
  }

  private newMember(userId: string): Member {
    const session = new davey.DAVESession(1, userId, this.channelId);
    session.setExternalSender(this.sender.package);
    return { userId, session, keyPackage: session.getSerializedKeyPackage(), inGroup: false };
  }

  /** `leader` commits Add proposals for the key packages; members already in the group follow its commit. */
  private commitLocally(leader: Member, keyPackages: Buffer[], joining: Member[]): Buffer {
    const proposals = this.proposals(keyPackages.map((keyPackage) => addProposal(keyPackage)));
    const followers = this.members.filter((member) => member !== leader && member.inGroup);
    const recognized = [this.bot?.userId, ...this.userIds].filter((id): id is string => id !== undefined);
    for (const follower of followers) follower.session.processProposals(PROPOSALS_APPEND, proposals, recognized);
    const { commit, welcome } = leader.session.processProposals(PROPOSALS_APPEND, proposals, recognized);
    if (!commit || !welcome) throw new Error('the committing member produced no commit and welcome');
    leader.session.processCommit(commit);
    leader.inGroup = true;
    for (const follower of followers) follower.session.processCommit(commit);
    for (const member of joining) {
      member.session.processWelcome(welcome);
      member.inGroup = true;
    }
    this.epoch++;
    return welcome;
  }

  /** Opcode 27 to the bot; fake members in the group see the same proposal so they can follow the bot's commit. */
  private proposeToBot(proposal: Buffer, joining: Member[]): void {
    const proposals = this.proposals([proposal]);
    const recognized = [this.bot!.userId, ...this.userIds];
    for (const member of this.members) {
      if (member.inGroup) member.session.processProposals(PROPOSALS_APPEND, proposals, recognized);
    }
    this.inFlight = { joining };
    this.bot!.sendBinary(VoiceOp.DaveMlsProposals, Buffer.concat([u8(PROPOSALS_APPEND), proposals]));
    this.note('proposals');
  }

  private proposals(bodies: Buffer[]): Buffer {
    return vector(Buffer.concat(bodies.map((body) => this.sender.proposalMessage(this.groupId, this.epoch, body))));
  }

  private beginTransition(): number {
    const transitionId = this.nextTransitionId++;
    this.awaitingReady.add(transitionId);
    return transitionId;
  }

  private note(type: DaveEvent['type'], transitionId?: number, detail?: string): void {
    this.events.push({ type, at: performance.now(), ...(transitionId === undefined ? {} : { transitionId }), ...(detail ? { detail } : {}) });
  }
}
