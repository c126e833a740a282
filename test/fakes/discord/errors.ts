/** An HTTP error answered with Discord's JSON error body. */
export class DiscordHttpError extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    super(String(body.message));
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export function jsonError(status: number, code: number, message: string): DiscordHttpError {
  return new DiscordHttpError(status, { message, code });
}

export const DiscordErrors = {
  unauthorized: () => jsonError(401, 0, '401: Unauthorized'),
  notFound: () => jsonError(404, 0, '404: Not Found'),
  methodNotAllowed: () => jsonError(405, 0, '405: Method Not Allowed'),
  unknownApplication: () => jsonError(404, 10002, 'Unknown Application'),
  unknownChannel: () => jsonError(404, 10003, 'Unknown Channel'),
  unknownGuild: () => jsonError(404, 10004, 'Unknown Guild'),
  unknownMember: () => jsonError(404, 10007, 'Unknown Member'),
  unknownMessage: () => jsonError(404, 10008, 'Unknown Message'),
  unknownRole: () => jsonError(404, 10011, 'Unknown Role'),
  unknownUser: () => jsonError(404, 10013, 'Unknown User'),
  unknownWebhook: () => jsonError(404, 10015, 'Unknown Webhook'),
  unknownInteraction: () => jsonError(404, 10062, 'Unknown interaction'),
  unknownCommand: () => jsonError(404, 10063, 'Unknown application command'),
  unknownVoiceState: () => jsonError(404, 10065, 'Unknown Voice State'),
  entityTooLarge: () => jsonError(413, 40005, 'Request entity too large'),
  alreadyAcknowledged: () => jsonError(400, 40060, 'Interaction has already been acknowledged.'),
  missingAccess: () => jsonError(403, 50001, 'Missing Access'),
  cannotEditOthers: () => jsonError(403, 50005, 'Cannot edit a message authored by another user'),
  emptyMessage: () => jsonError(400, 50006, 'Cannot send an empty message'),
  missingPermissions: () => jsonError(403, 50013, 'Missing Permissions'),
  invalidWebhookToken: () => jsonError(401, 50027, 'Invalid Webhook Token'),
  invalidJson: () => jsonError(400, 50109, 'The request body contains invalid JSON.'),
  voiceNoAdditionalContent: () => jsonError(400, 50159, 'Voice messages do not support additional content.'),
  voiceSingleAudioAttachment: () => jsonError(400, 50160, 'Voice messages must have a single audio attachment.'),
  voiceMissingMetadata: () => jsonError(400, 50161, 'Voice messages must have supporting metadata.'),
  voiceCannotBeEdited: () => jsonError(400, 50162, 'Voice messages cannot be edited.'),
  voiceNotAllowedHere: () => jsonError(403, 50173, 'You cannot send voice messages in this channel.'),
};

type ErrorPath = readonly (string | number)[];
interface FieldError {
  code: string;
  message: string;
}
interface ErrorNode {
  _errors?: FieldError[];
  [key: string]: ErrorNode | FieldError[] | undefined;
}

/** Collects field errors into Discord's nested `errors` shape and turns them into a 50035 Invalid Form Body. */
export class FormErrors {
  readonly #root: ErrorNode = {};
  #count = 0;

  add(path: ErrorPath, code: string, message: string): void {
    let node = this.#root;
    for (const key of path) {
      const child = node[String(key)];
      if (child === undefined || Array.isArray(child)) {
        const created: ErrorNode = {};
        node[String(key)] = created;
        node = created;
      } else {
        node = child;
      }
    }
    (node._errors ??= []).push({ code, message });
    this.#count++;
  }

  maxLength(path: ErrorPath, max: number): void {
    this.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`);
  }

  required(path: ErrorPath): void {
    this.add(path, 'BASE_TYPE_REQUIRED', 'This field is required');
  }

  get empty(): boolean {
    return this.#count === 0;
  }

  throwIfAny(): void {
    if (this.#count > 0) {
      throw new DiscordHttpError(400, { message: 'Invalid Form Body', code: 50035, errors: this.#root });
    }
  }
}
