import { Agent as HttpsAgent, type RequestOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import type { X509Certificate } from 'node:crypto';
import { type DetailedPeerCertificate, type PeerCertificate, TLSSocket } from 'node:tls';

/**
 * The HTTPS agent of the probes: Node's own, except that the server's name is checked without
 * turning certificates into JavaScript objects (docs/decisions/0042-the-host-name-check-without-translating-the-chain.md).
 *
 * After every full handshake Node calls `getPeerCertificate(true)` and hands the result to
 * `checkServerIdentity`, which reads only the leaf's `subjectaltname`, and its `subject.CN` when
 * the leaf names no DNS host. The detailed form translates every certificate of the chain (names,
 * key, three fingerprints, raw DER) and the issuer found in the trust store as well: a quarter of
 * an HTTPS check's CPU. Each socket this agent opens answers that one call with the leaf's
 * `subjectaltname` read through `X509Certificate` (the same string from the same printer) and a
 * `subject` whose `CN` translates the leaf only when asked. Node's `checkServerIdentity` then
 * decides exactly as before. Chain verification (OpenSSL's, `rejectUnauthorized`) is not
 * touched: Node checks the name only after the chain verified.
 *
 * The leaf's `X509Certificate` is kept for the check's expiry date: on a client socket,
 * `getPeerX509Certificate()` removes the leaf from the peer chain Node reads (Node 20 and 24), so
 * afterwards neither it nor `getPeerCertificate()` returns the leaf again.
 */
export class ProbeHttpsAgent extends HttpsAgent {
  override createConnection(
    options: RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const socket = super.createConnection(options, callback);
    if (socket instanceof TLSSocket) socket.getPeerCertificate = namesForTheHandshake;
    return socket;
  }
}

/** The leaf each socket's name check read, kept for the expiry date. */
const handshakeLeaves = new WeakMap<TLSSocket, X509Certificate>();

/** What `checkServerIdentity` reads of a certificate, and nothing else. */
export interface CertificateNames {
  readonly subjectaltname: string | undefined;
  readonly subject: { readonly CN: string | string[] | undefined };
}

// The instance's override answers the first detailed request (Node's, right after the
// handshake) and then removes itself: any later call reaches the prototype's translation.
function namesForTheHandshake(this: TLSSocket, detailed: true): DetailedPeerCertificate;
function namesForTheHandshake(this: TLSSocket, detailed?: false): PeerCertificate;
function namesForTheHandshake(
  this: TLSSocket,
  detailed?: boolean,
): PeerCertificate | DetailedPeerCertificate | CertificateNames {
  if (detailed !== true) return TLSSocket.prototype.getPeerCertificate.call(this, detailed);
  Reflect.deleteProperty(this, 'getPeerCertificate');
  const leaf = this.getPeerX509Certificate();
  if (leaf === undefined) return this.getPeerCertificate(true);
  handshakeLeaves.set(this, leaf);
  return certificateNames(leaf);
}

/** The names of `leaf` as `checkServerIdentity` reads them; the subject is translated only if read. */
export function certificateNames(leaf: X509Certificate): CertificateNames {
  let subject: PeerCertificate['subject'] | undefined;
  const commonName = (): string | string[] | undefined => {
    subject ??= leaf.toLegacyObject().subject;
    return (subject as { CN?: string | string[] } | undefined)?.CN;
  };
  return {
    subjectaltname: leaf.subjectAltName,
    subject: {
      get CN() {
        return commonName();
      },
    },
  };
}

/** The leaf's notAfter in seconds since the epoch (the name check's leaf when there was one). */
export function peerNotAfter(socket: TLSSocket): number | null {
  const leaf = handshakeLeaves.get(socket);
  const validTo = leaf === undefined ? socket.getPeerCertificate().valid_to : leaf.validTo;
  const ms = validTo ? Date.parse(validTo) : Number.NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}
