import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Agent, Pool, ProxyAgent, request, type buildConnector, type Dispatcher } from 'undici';
import type { HeaderFacts } from '../pull/pull-record.js';
import type { BodyTurn } from './large-bodies.js';
import { certificateProblem } from './certificate.js';

/** One HTTP request's answer. `body` is null when it was not read (not a type we parse). */
export interface HttpResponse {
  status: number;
  contentType: string | null;
  location: string | null;
  contentLength: number | null;
  /** Retry-After as milliseconds from now (seconds or an HTTP date), or null. */
  retryAfterMs: number | null;
  /** What the web-mapping article records of every page (kept per fetch, see store/pull-writer.ts). */
  facts: HeaderFacts;
  body: Buffer | null;
}

/** 'page': read HTML bodies only, fail past the cap. 'robots': read any 2xx body, cut it at the cap. 'file': read any 2xx body, fail past the cap. */
export type BodyMode = 'page' | 'robots' | 'file';

export interface HttpOptions {
  userAgent: string;
  connectTimeout: number;
  headersTimeout: number;
  bodyTimeout: number;
  maxBytes: number;
  /** host → address, curl's --resolve */
  resolve: ReadonlyMap<string, string>;
  proxy: string | null;
  /** false: accept any TLS certificate (the crawl's check-certificate no) */
  checkCertificate: boolean;
}

/** The crawl settings a request is made by, under the names the crawl's settings give them. */
export interface RequestSettings {
  'user-agent': string;
  'connect-timeout': number;
  'headers-timeout': number;
  'body-timeout': number;
  'max-bytes': number;
  'check-certificate': 'yes' | 'no';
}

/** The request settings in force, with this run's --resolve and --proxy. */
export function httpOptions(s: RequestSettings, resolve: ReadonlyMap<string, string>, proxy: string | null): HttpOptions {
  return {
    userAgent: s['user-agent'], connectTimeout: s['connect-timeout'], headersTimeout: s['headers-timeout'], bodyTimeout: s['body-timeout'],
    maxBytes: s['max-bytes'], resolve, proxy, checkCertificate: s['check-certificate'] === 'yes',
  };
}

/** A failed request, with a short stable reason recorded in the fetch log. */
export class FetchError extends Error {
  constructor(readonly reason: string, detail?: string) {
    super(detail ? `${reason}: ${detail}` : reason);
  }
}

export function createDispatcher(o: HttpOptions): Dispatcher {
  // Node 20 calls lookup with {all: true}: answer an array.
  const lookup = (host: string, opts: object, cb: (e: Error | null, a: LookupAddress[] | string, f?: number) => void) => {
    const fixed = o.resolve.get(host.toLowerCase());
    if (fixed) {
      const family = fixed.includes(':') ? 6 : 4;
      if ((opts as { all?: boolean }).all) return cb(null, [{ address: fixed, family }]);
      return cb(null, fixed, family);
    }
    dnsLookup(host, opts, cb as never);
  };
  const agentOpts = {
    connect: { timeout: o.connectTimeout, lookup: lookup as never, ...(o.checkCertificate ? {} : { rejectUnauthorized: false }) },
    headersTimeout: o.headersTimeout,
    bodyTimeout: o.bodyTimeout,
    connections: 2,
  };
  if (!o.proxy) return new Agent(agentOpts);
  // ProxyAgent hands its own options only to the clients of a tunnel: the plain-HTTP path and the
  // client that sends CONNECT are built from `{connect}` alone, with undici's 300 s defaults. Every
  // pool it makes gets the page timeouts here, and both TLS connectors the connect timeout.
  const timeouts = { headersTimeout: o.headersTimeout, bodyTimeout: o.bodyTimeout };
  const pool = (origin: string | URL, opts: Pool.Options) =>
    new Pool(origin, { connections: 2, ...opts, ...timeouts, ...(typeof opts.connect === 'function' ? { connect: tunnelFails(opts.connect) } : {}) });
  // A plain-HTTP page goes to the proxy in absolute form. undici wraps each origin with its own
  // pool to the proxy and keeps them all for the run (at 30,000 sites, 16 KB of queue each and
  // their sockets): one pool to the proxy carries every origin's requests, as many at once as the
  // crawl makes (the host gate keeps each host polite).
  const proxyOrigin = new URL(o.proxy).origin;
  let toProxy: Pool | undefined;
  const factory = (origin: string | URL, opts: Pool.Options) =>
    new URL(origin).origin === proxyOrigin ? (toProxy ??= pool(origin, { ...opts, connections: null })) : pool(origin, opts);
  return new ProxyAgent({
    uri: o.proxy, proxyTunnel: false, ...agentOpts,
    factory, clientFactory: pool,
    proxyTls: { timeout: o.connectTimeout }, requestTls: { timeout: o.connectTimeout, ...(o.checkCertificate ? {} : { rejectUnauthorized: false }) },
  });
}

type Connect = buildConnector.connector;
const TUNNEL_CLOSED = 'BEEBOT_PROXY_TUNNEL_CLOSED';

/**
 * A proxy that closes a CONNECT without answering makes undici 7 reconnect in a tight loop, the
 * CPU spinning and the request never settling (nodejs/undici#3897; the fix is in undici 8, which
 * needs Node 22). A socket error while the tunnel is made is handed on under another code, which
 * fails the request instead: a failure for now, as a reset is.
 */
function tunnelFails(connect: Connect): Connect {
  return (opts, callback) =>
    connect(opts, (...args) => {
      const err = args[0] as { code?: string } | null;
      if (err?.code !== 'UND_ERR_SOCKET') return callback(...args);
      callback(Object.assign(new Error('the proxy closed the tunnel without answering CONNECT', { cause: err }), { code: TUNNEL_CLOSED }), null);
    });
}

const HTML_TYPES = ['text/html', 'application/xhtml+xml'];

export function isHtmlType(contentType: string | null): boolean {
  const mime = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return HTML_TYPES.includes(mime);
}

/**
 * GET one URL without following redirects (the caller records each hop). The body is read only
 * for HTML (or a missing Content-Type, which we sniff later), capped at maxBytes both on the wire
 * and after decompression. With a `turn` (large-bodies.ts), a body that grows past its threshold,
 * read or decompressed, waits for the crawl's one large-body turn; the turn is given back here
 * when the request fails, else by the caller when the page is done.
 */
export async function httpGet(
  dispatcher: Dispatcher, url: string, o: HttpOptions, signal: AbortSignal, mode: BodyMode = 'page', cap = o.maxBytes, extra: Record<string, string> = {},
  turn: BodyTurn | null = null,
): Promise<HttpResponse> {
  let res: Dispatcher.ResponseData;
  try {
    res = await request(url, {
      dispatcher,
      method: 'GET',
      signal,
      headers: {
        'user-agent': o.userAgent,
        accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5',
        'accept-encoding': 'gzip, deflate, br',
        ...extra,
      },
    });
  } catch (err) {
    throw toFetchError(err, signal);
  }
  const header = (name: string): string | null => {
    const v = res.headers[name];
    return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
  };
  const contentType = header('content-type');
  const lengthHeader = header('content-length');
  const contentLength = lengthHeader !== null && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null;
  const out: HttpResponse = {
    status: res.statusCode, contentType, location: header('location'), contentLength, retryAfterMs: parseRetryAfter(header('retry-after')),
    facts: {
      lastModified: header('last-modified'), expires: header('expires'), etag: header('etag'),
      cacheControl: header('cache-control'), contentLanguage: header('content-language'),
    },
    body: null,
  };

  const ok = res.statusCode >= 200 && res.statusCode < 300;
  const wanted = ok && (mode !== 'page' || contentType === null || isHtmlType(contentType));
  if (!wanted) {
    await res.body.dump().catch(() => undefined);
    return out;
  }
  const truncate = mode === 'robots';
  if (!truncate && contentLength !== null && contentLength > cap) {
    res.body.destroy();
    throw new FetchError('too-large', `Content-Length ${contentLength} exceeds ${cap} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    if (turn && contentLength !== null && contentLength > turn.threshold) await turn.take(signal);
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      chunks.push(chunk as Buffer);
      if (size > cap) {
        res.body.destroy();
        if (truncate) break;
        throw new FetchError('too-large', `body exceeds ${cap} bytes`);
      }
      if (turn && size > turn.threshold) await turn.take(signal); // the stream waits meanwhile
    }
  } catch (err) {
    res.body.destroy();
    turn?.done();
    throw toFetchError(err, signal);
  }
  const raw = Buffer.concat(chunks, size);
  chunks.length = 0;
  let body: Buffer;
  const encoding = header('content-encoding');
  try {
    body = truncate && isCompressed(encoding) ? await inflatePrefix(raw, encoding, cap) : await decompressTaking(raw, encoding, cap, turn, signal);
  } catch (err) {
    turn?.done();
    throw err;
  }
  out.body = truncate ? body.subarray(0, cap) : body;
  return out;
}

/**
 * decompress, and with a turn: first up to the turn's threshold, and only past it, with the turn,
 * up to the cap (a body that inflates beyond it is inflated twice, once cut). With the turn held,
 * on this thread: zlib's async forms run on libuv's thread pool, whose buffers and malloc arenas
 * held tens of MB after a few decompression bombs; one large body at a time takes milliseconds.
 */
async function decompressTaking(raw: Buffer, encoding: string | null, maxBytes: number, turn: BodyTurn | null, signal: AbortSignal): Promise<Buffer> {
  if (!turn || !isCompressed(encoding)) return decompress(raw, encoding, maxBytes, false);
  if (!turn.held && maxBytes > turn.threshold) {
    try {
      return await decompress(raw, encoding, turn.threshold, false);
    } catch (err) {
      if (!(err instanceof FetchError) || err.reason !== 'too-large') throw err;
    }
    try {
      await turn.take(signal);
    } catch (err) {
      throw toFetchError(err, signal);
    }
  }
  return decompress(raw, encoding, maxBytes, turn.held);
}

/** Retry-After: delay-seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(v: string | null, now = Date.now()): number | null {
  if (v === null) return null;
  if (/^\s*\d+\s*$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.max(0, t - now);
}

type Inflate = (b: Buffer, o: zlib.ZlibOptions & zlib.BrotliOptions) => Promise<Buffer>;
const pooled: Record<string, Inflate> = {
  gunzip: promisify(zlib.gunzip), inflate: promisify(zlib.inflate), inflateRaw: promisify(zlib.inflateRaw), brotli: promisify(zlib.brotliDecompress),
};
const here: Record<string, Inflate> = {
  gunzip: async (b, o) => zlib.gunzipSync(b, o), inflate: async (b, o) => zlib.inflateSync(b, o),
  inflateRaw: async (b, o) => zlib.inflateRawSync(b, o), brotli: async (b, o) => zlib.brotliDecompressSync(b, o),
};

const ENCODINGS = new Set(['gzip', 'x-gzip', 'br', 'deflate']);
const isCompressed = (encoding: string | null): boolean => ENCODINGS.has((encoding ?? '').trim().toLowerCase());

async function decompress(raw: Buffer, encoding: string | null, maxBytes: number, onThisThread: boolean): Promise<Buffer> {
  const enc = (encoding ?? '').trim().toLowerCase();
  const opts = { maxOutputLength: maxBytes };
  const { gunzip, inflate, inflateRaw, brotli } = onThisThread ? here : pooled;
  try {
    if (enc === 'gzip' || enc === 'x-gzip') return await gunzip(raw, opts);
    if (enc === 'br') return await brotli(raw, opts);
    if (enc === 'deflate') {
      // Servers send both zlib-wrapped and raw deflate under this name: the first two bytes say
      // which, so a body is inflated once. Only a zlib-looking body that turns out corrupt is
      // tried again as raw deflate (a raw stored block can pass the header check); a body past
      // the cap is too-large at once, never inflated a second time.
      if (!isZlibHeader(raw)) return await inflateRaw(raw, opts);
      return await inflate(raw, opts).catch((err: unknown) => {
        if (isTooLarge(err)) throw err;
        return inflateRaw(raw, opts);
      });
    }
  } catch (err) {
    if (isTooLarge(err)) {
      throw new FetchError('too-large', `decompressed body exceeds ${maxBytes} bytes`);
    }
    throw new FetchError('bad-encoding', `cannot decode ${enc} body`);
  }
  return raw;
}

/**
 * The first `cap` bytes a compressed body inflates to, and no more: a robots.txt is read from its
 * start (RFC 9309 2.5: parse at least 500 KiB), so a bomb, or a body cut on the wire, still gives
 * the rules it starts with instead of failing.
 */
function inflatePrefix(raw: Buffer, encoding: string | null, cap: number): Promise<Buffer> {
  const enc = (encoding ?? '').trim().toLowerCase();
  // A sync flush at the end: a stream cut short gives what it holds instead of an error.
  const flush = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const stream =
    enc === 'br' ? zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
    : enc === 'deflate' ? (isZlibHeader(raw) ? zlib.createInflate(flush) : zlib.createInflateRaw(flush))
    : zlib.createGunzip(flush);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => resolve(Buffer.concat(chunks, size).subarray(0, cap));
    stream.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size < cap) return;
      stream.destroy();
      done();
    });
    stream.on('end', done);
    stream.on('error', () => reject(new FetchError('bad-encoding', `cannot decode ${enc} body`)));
    stream.end(raw);
  });
}

const isTooLarge = (err: unknown): boolean => (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';

/** RFC 1950: CM = 8 (deflate), window <= 32 KiB, and the two header bytes a multiple of 31. */
export function isZlibHeader(b: Uint8Array): boolean {
  return b.length >= 2 && (b[0]! & 0x0f) === 8 && b[0]! >> 4 <= 7 && ((b[0]! << 8) | b[1]!) % 31 === 0;
}

const reasons: Record<string, string> = {
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  UND_ERR_SOCKET: 'reset',
  UND_ERR_CONNECT_TIMEOUT: 'connect-timeout',
  UND_ERR_HEADERS_TIMEOUT: 'headers-timeout',
  UND_ERR_BODY_TIMEOUT: 'body-timeout',
  UND_ERR_RES_EXCEEDED_MAX_SIZE: 'too-large',
  UND_ERR_HEADERS_OVERFLOW: 'headers-too-large',
  UND_ERR_REQ_CONTENT_LENGTH_MISMATCH: 'length-mismatch',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'length-mismatch',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
};

/**
 * A request's failure as a short reason the user reads (`refused`, `dns`, `proxy refused the
 * tunnel (502)`), never undici's codes: the crawl's and check's one mapping. `signal`: the
 * request's own, whose abort is the page's timeout or the run's end.
 */
export function toFetchError(err: unknown, signal?: AbortSignal): FetchError {
  if (err instanceof FetchError) return err;
  if (signal?.aborted) {
    const why = signal.reason as { name?: string } | undefined;
    return why?.name === 'TimeoutError' ? new FetchError('page-timeout') : new FetchError('aborted');
  }
  const e = err as { code?: string; cause?: { code?: string }; message?: string };
  const code = e.code ?? e.cause?.code ?? '';
  // undici ends the socket on an answer a GET cannot get: a 101 upgrade, a 100 as the final answer.
  if (code === 'UND_ERR_SOCKET' && /^bad (upgrade|response)$/.test(e.message ?? '')) return new FetchError('bad-response', `${e.message}: no HTTP answer to a GET`);
  // undici's ProxyAgent ends a CONNECT the proxy did not answer 200 as an abort (UND_ERR_ABORTED).
  const tunnel = /^Proxy response \((\d+)\)/.exec(e.message ?? '');
  if (tunnel) return new FetchError(`proxy refused the tunnel (${tunnel[1]})`);
  if (code === TUNNEL_CLOSED) return new FetchError('reset', e.message);
  if (reasons[code]) return new FetchError(reasons[code]!, e.message);
  const cert = (e as { cert?: object }).cert ?? (e.cause as { cert?: object } | undefined)?.cert;
  const certificate = certificateProblem({ code, message: e.message, cert });
  if (certificate !== null) return new FetchError(certificate);
  if (code.startsWith('ERR_TLS') || /SSL|TLS/.test(code)) return new FetchError('tls', e.message);
  // llhttp parser errors: the peer does not speak HTTP/1.1 properly
  if (code.startsWith('HPE_') || /HPE_|Parse Error|does not match the HTTP/i.test(e.message ?? '')) return new FetchError('bad-response', e.message);
  if (code === 'ERR_INVALID_URL' || code === 'UND_ERR_INVALID_ARG') return new FetchError('invalid-url', e.message);
  return new FetchError('network', e.message ?? String(err));
}

/** A body without Content-Type is parsed when it looks like HTML (browsers sniff too). */
export function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 512)).toString('latin1').trimStart().toLowerCase();
  return /^(<!doctype html|<html|<head|<body|<!--|<title|<meta|<a\s)/.test(head);
}
