import { readFileSync } from 'node:fs';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { X509Certificate, createPrivateKey } from 'node:crypto';

/** The spec's floor: traffic uses TLS 1.2 or later. */
export const TLS_MIN_VERSION = 'TLSv1.2' as const;

/**
 * Reads TLS_CERT_FILE / TLS_KEY_FILE into server options with the TLS 1.2 floor. Throws with a
 * message naming the variable when a file cannot be read, is not PEM, or the key does not
 * belong to the certificate.
 */
export function loadTlsFiles(certFile: string, keyFile: string): SecureContextOptions {
  const read = (variable: string, path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      throw new Error(`${variable} (${path}): ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
  };
  const cert = read('TLS_CERT_FILE', certFile);
  const key = read('TLS_KEY_FILE', keyFile);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (error) {
    throw new Error(`TLS_CERT_FILE (${certFile}): not a PEM certificate`, { cause: error });
  }
  try {
    if (!certificate.checkPrivateKey(createPrivateKey(key))) throw new Error('mismatch');
  } catch (error) {
    throw new Error(`TLS_KEY_FILE (${keyFile}): not the private key of the certificate in TLS_CERT_FILE`, {
      cause: error,
    });
  }
  const options: SecureContextOptions = { cert, key, minVersion: TLS_MIN_VERSION };
  createSecureContext(options); // anything else OpenSSL refuses, at load time
  return options;
}
