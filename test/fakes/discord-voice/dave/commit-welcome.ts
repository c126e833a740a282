import { MlsReader } from './mls-wire.ts';

const SENDER_MEMBER = 1;
const CONTENT_COMMIT = 3;
const LEAF_SOURCE_KEY_PACKAGE = 1;
const LEAF_SOURCE_COMMIT = 3;

/**
 * Opcode 28 carries an MLSMessage commit followed, when the commit adds members, by a Welcome. Nothing delimits
 * them, so walk the commit (RFC 9420 §6.2 PublicMessage, §12.4 Commit, §7.2 LeafNode) to find where it ends.
 */
export function splitCommitWelcome(payload: Buffer): { commit: Buffer; welcome: Buffer | null } {
  const reader = new MlsReader(payload);
  reader.skip(4); // version, wire_format
  reader.vector(); // group_id
  reader.skip(8); // epoch
  const senderType = reader.u8();
  if (senderType !== SENDER_MEMBER) throw new Error(`commit from sender type ${senderType}, expected a member`);
  reader.skip(4); // leaf_index
  reader.vector(); // authenticated_data
  const contentType = reader.u8();
  if (contentType !== CONTENT_COMMIT) throw new Error(`content type ${contentType} is not a commit`);
  reader.vector(); // proposals
  if (reader.u8() === 1) skipUpdatePath(reader);
  reader.vector(); // signature
  reader.vector(); // confirmation_tag
  reader.vector(); // membership_tag
  const commit = payload.subarray(0, reader.offset);
  const rest = reader.rest();
  return { commit, welcome: rest.length > 0 ? rest : null };
}

function skipUpdatePath(reader: MlsReader): void {
  reader.vector(); // encryption_key
  reader.vector(); // signature_key
  reader.skip(2); // credential_type
  reader.vector(); // identity (basic) or certificates (x509)
  for (let field = 0; field < 5; field++) reader.vector(); // capabilities
  const source = reader.u8();
  if (source === LEAF_SOURCE_KEY_PACKAGE) reader.skip(16);
  else if (source === LEAF_SOURCE_COMMIT) reader.vector();
  reader.vector(); // extensions
  reader.vector(); // leaf signature
  reader.vector(); // UpdatePathNode nodes
}
