import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { u16, u32, u64, u8, vector } from './mls-wire.ts';

// RFC 9420 code points used by DAVE v1 (ciphersuite MLS_128_DHKEMP256_AES128GCM_SHA256_P256).
const MLS10 = 1;
const WIRE_FORMAT_PUBLIC_MESSAGE = 1;
const SENDER_EXTERNAL = 2;
const CONTENT_PROPOSAL = 2;
const CREDENTIAL_BASIC = 1;
const PROPOSAL_ADD = 1;
const PROPOSAL_REMOVE = 3;

export const addProposal = (keyPackage: Buffer): Buffer => Buffer.concat([u16(PROPOSAL_ADD), keyPackage]);
export const removeProposal = (leafIndex: number): Buffer => Buffer.concat([u16(PROPOSAL_REMOVE), u32(leafIndex)]);

/**
 * The voice gateway's role in DAVE: an MLS external sender (RFC 9420 §12.1.8.1) with a P-256 signing key that
 * the group lists in its external_senders extension, so members accept the Add/Remove proposals it signs.
 */
export class ExternalSender {
  /** The serialized ExternalSender struct sent in opcode 25. */
  readonly package: Buffer;
  private readonly privateKey: KeyObject;

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    // An MLS SignaturePublicKey for P-256 is the uncompressed SEC1 point: the last 65 bytes of the SPKI.
    const point = publicKey.export({ type: 'spki', format: 'der' }).subarray(-65);
    const credential = Buffer.concat([u16(CREDENTIAL_BASIC), vector(Buffer.from('discord voice gateway'))]);
    this.package = Buffer.concat([vector(point), credential]);
  }

  /** An MLSMessage carrying a PublicMessage proposal from external sender 0, signed over FramedContentTBS. */
  proposalMessage(groupId: Buffer, epoch: bigint, proposal: Buffer): Buffer {
    const framedContent = Buffer.concat([
      vector(groupId),
      u64(epoch),
      u8(SENDER_EXTERNAL),
      u32(0),
      vector(Buffer.alloc(0)),
      u8(CONTENT_PROPOSAL),
      proposal,
    ]);
    // External senders sign without the GroupContext (RFC 9420 §6.1).
    const tbs = Buffer.concat([u16(MLS10), u16(WIRE_FORMAT_PUBLIC_MESSAGE), framedContent]);
    const signContent = Buffer.concat([vector(Buffer.from('MLS 1.0 FramedContentTBS')), vector(tbs)]);
    const signature = sign('sha256', signContent, { key: this.privateKey, dsaEncoding: 'der' });
    return Buffer.concat([u16(MLS10), u16(WIRE_FORMAT_PUBLIC_MESSAGE), framedContent, vector(signature)]);
  }
}
