import { createECDH, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { compactVerify, importJWK } from 'jose';

/**
 * A small Web Push service double (RFC 8030 + RFC 8291 + RFC 8292) for tests: it records every push it
 * receives and answers 201, or the status set for a path (404/410 for a gone subscription). A test browser
 * (`browserKeys`) holds the keys a real browser would, so the recorded body can be decrypted and the VAPID
 * JWT verified against the server's public key.
 */
export interface ReceivedPush {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export async function pushEndpoint() {
  const received: ReceivedPush[] = [];
  const statusFor = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
      const status = statusFor.get(path) ?? 201;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 201 ? '' : 'gone');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    base,
    received,
    /** Makes pushes to this path answer `status` (e.g. 410 Gone). */
    answer(path: string, status: number) {
      statusFor.set(path, status);
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

/** What a browser holds for one subscription: its P-256 key pair and auth secret. */
export function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
    /** Decrypts an aes128gcm body (RFC 8291) as the browser would; throws when it cannot. */
    decrypt(body: Buffer): string {
      const salt = body.subarray(0, 16);
      const idLength = body.readUInt8(20);
      const serverPublic = body.subarray(21, 21 + idLength);
      const record = body.subarray(21 + idLength);
      const shared = ecdh.computeSecret(serverPublic);
      const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), ecdh.getPublicKey(), serverPublic]);
      const ikm = Buffer.from(hkdfSync('sha256', shared, auth, keyInfo, 32));
      const cek = Buffer.from(
        hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16),
      );
      const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
      const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
      decipher.setAuthTag(record.subarray(record.length - 16));
      const plain = Buffer.concat([
        decipher.update(record.subarray(0, record.length - 16)),
        decipher.final(),
      ]);
      // The last record ends with the delimiter 0x02 and optional zero padding.
      let end = plain.length - 1;
      while (end >= 0 && plain[end] === 0) end--;
      if (plain[end] !== 2) throw new Error('no last-record delimiter');
      return plain.subarray(0, end).toString('utf8');
    },
  };
}

/**
 * Checks a push's `Authorization: vapid t=<JWT>, k=<key>` header (RFC 8292): the key is `publicKey`, the
 * ES256 signature verifies with it, and the audience is the endpoint's origin. Returns the JWT claims.
 */
export async function verifyVapid(header: string | undefined, publicKey: string, endpointOrigin: string) {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!match) throw new Error(`not a VAPID authorization: ${header}`);
  if (match[2] !== publicKey) throw new Error('VAPID key differs from the server public key');
  const point = Buffer.from(publicKey, 'base64url');
  const key = await importJWK(
    {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    'ES256',
  );
  const { payload } = await compactVerify(match[1]!, key);
  const claims = JSON.parse(Buffer.from(payload).toString('utf8')) as {
    aud: string;
    exp: number;
    sub: string;
  };
  if (claims.aud !== endpointOrigin) throw new Error(`VAPID audience ${claims.aud} is not ${endpointOrigin}`);
  return claims;
}
