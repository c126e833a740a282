/**
 * The bytes up to the end of the last complete Ogg page. A download cut off mid-page otherwise
 * reaches the decoders as a partial page, which codec-parser turns into seconds of garbage on flush.
 * Files whose pages do not chain cleanly are returned whole, for the decoder's own resync.
 */
export function completeOggPages(bytes: Uint8Array): Uint8Array {
  let at = 0;
  while (at < bytes.length) {
    if (at + 27 > bytes.length) return bytes.subarray(0, at);
    if (bytes[at] !== 0x4f || bytes[at + 1] !== 0x67 || bytes[at + 2] !== 0x67 || bytes[at + 3] !== 0x53) return bytes;
    const segments = bytes[at + 26]!;
    const bodyStart = at + 27 + segments;
    if (bodyStart > bytes.length) return bytes.subarray(0, at);
    let bodyLength = 0;
    for (let i = at + 27; i < bodyStart; i++) bodyLength += bytes[i]!;
    if (bodyStart + bodyLength > bytes.length) return bytes.subarray(0, at);
    at = bodyStart + bodyLength;
  }
  return bytes;
}
