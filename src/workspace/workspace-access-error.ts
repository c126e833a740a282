import { HeraldError } from '../errors.ts';

export type WorkspaceAccessCode = 'asker_cannot_read' | 'herald_cannot_read' | 'private_in_public' | 'other_direct_messages' | 'operator_denied';

const MESSAGES: Record<WorkspaceAccessCode, (channel: string) => string> = {
  asker_cannot_read: (channel) => `You can't read ${channel}, so I won't read it for you.`,
  herald_cannot_read: (channel) => `I can't read ${channel}: add me to it (or give me access to its history) first.`,
  private_in_public: (channel) => `${channel} is private: ask me about it there or in a direct message, not where others can read the answer.`,
  other_direct_messages: () => "I don't read direct messages other than ours.",
  operator_denied: (channel) => `I'm not allowed to read ${channel} here.`,
};

/** A channel Herald will not read for this asker here; the message is fit to show them. */
export class WorkspaceAccessError extends HeraldError {
  declare readonly code: WorkspaceAccessCode;

  /** `channel` as people read it: `#launch`, or `that channel` when its name is not known. */
  constructor(code: WorkspaceAccessCode, channel: string) {
    super(MESSAGES[code](channel), { code });
  }
}
