import { generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { isIPv4 } from 'node:net';
import { bitString, explicit, implicitPrimitive, integer, objectIdentifier, octetString, sequence, set, time, utf8String } from './der.ts';

export interface SelfSignedCertificate {
  certPem: string;
  keyPem: string;
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const COMMON_NAME = '2.5.4.3';
const SUBJECT_ALT_NAME = '2.5.29.17';

/**
 * A P-256 certificate signed by its own key, naming the given hosts in subjectAltName, so a TLS client that
 * trusts exactly this certificate can verify the server (hostname check included) without a CA or the openssl CLI.
 */
export function createSelfSignedCertificate(hosts: string[]): SelfSignedCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  // OpenSSL finds trust anchors by subject name, so each certificate of the process needs its own.
  const commonName = `fake discord voice ${randomBytes(6).toString('hex')}`;
  const name = sequence(set(sequence(objectIdentifier(COMMON_NAME), utf8String(commonName))));
  const altNames = hosts.map((host) =>
    isIPv4(host) ? implicitPrimitive(7, Buffer.from(host.split('.').map(Number))) : implicitPrimitive(2, Buffer.from(host, 'ascii')),
  );
  const now = Date.now();
  const signatureAlgorithm = sequence(objectIdentifier(ECDSA_WITH_SHA256));
  const tbs = sequence(
    explicit(0, integer(2)),
    integer(Buffer.concat([Buffer.from([0x01]), randomBytes(15)])),
    signatureAlgorithm,
    name,
    sequence(time(new Date(now - 3_600_000)), time(new Date(now + 7 * 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(sequence(objectIdentifier(SUBJECT_ALT_NAME), octetString(sequence(...altNames))))),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const der = sequence(tbs, signatureAlgorithm, bitString(signature));
  const certPem = new X509Certificate(der).toString();
  return { certPem, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
