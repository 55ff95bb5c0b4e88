/**
 * A TLS certificate the machine does not accept, in the words a user acts on (pure). Node hands
 * OpenSSL's verify codes on (`SELF_SIGNED_CERT_IN_CHAIN`) and its own for a name that does not
 * match (`ERR_TLS_CERT_ALTNAME_INVALID`); none of them passes by waiting, so a crawl does not wait
 * for them, and none is the page's fault: the host's certificate is.
 */

interface TlsError {
  code?: string;
  message?: string;
  reason?: string;
  cert?: { subjectaltname?: string; subject?: { CN?: string }; valid_to?: string };
}

const NOT_TRUSTED: Record<string, string> = {
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in chain',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'issuer unknown, unable to verify the first certificate',
  UNABLE_TO_GET_ISSUER_CERT: 'issuer unknown',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'issuer not among the trusted CAs',
  CERT_UNTRUSTED: 'not trusted for this purpose',
  CERT_REJECTED: 'rejected',
  INVALID_CA: 'invalid CA certificate',
  CERT_SIGNATURE_FAILURE: 'signature does not verify',
  CERT_CHAIN_TOO_LONG: 'chain too long',
  PATH_LENGTH_EXCEEDED: 'chain too long',
  INVALID_PURPOSE: 'not for a server',
};

/** The error line of a certificate problem (`certificate not trusted: self-signed certificate in chain`), or null when `err` is none. */
export function certificateProblem(err: TlsError): string | null {
  const code = err.code ?? '';
  if (NOT_TRUSTED[code]) return `certificate not trusted: ${NOT_TRUSTED[code]}`;
  if (code === 'CERT_HAS_EXPIRED') return `certificate expired${err.cert?.valid_to ? ` on ${err.cert.valid_to}` : ''}`;
  if (code === 'CERT_NOT_YET_VALID') return 'certificate not yet valid';
  if (code === 'CERT_REVOKED') return 'certificate revoked';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') {
    const names = (err.cert?.subjectaltname ?? '').split(',').map((n) => n.trim().replace(/^DNS:/, '')).filter(Boolean);
    const name = names.length > 0 ? names.slice(0, 3).join(', ') + (names.length > 3 ? ', …' : '') : err.cert?.subject?.CN;
    return name ? `certificate is for ${name}` : 'certificate is for another host';
  }
  if (/CERT/.test(code)) return `certificate problem: ${err.message ?? code}`;
  return null;
}

/** The certificate problem in a pull's error (certificateProblem's words), its own or its robots.txt's; else null. */
export function certificateIn(error: string | null): string | null {
  const m = error === null ? null : /^(?:robots\.txt unreachable \()?(certificate [^)]*)/.exec(error);
  return m ? m[1]! : null;
}
