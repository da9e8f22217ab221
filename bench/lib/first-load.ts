/**
 * What the dashboard's first load sends: `/app/` and every script and stylesheet its HTML names,
 * fetched with node:http (which, unlike fetch, does not decode), so the figures are the body
 * bytes on the wire as a browser sending that `Accept-Encoding` gets them.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

export interface FirstLoadFile {
  path: string;
  status: number;
  /** Body bytes as sent. */
  bytes: number;
  contentEncoding: string | null;
  vary: string | null;
  cacheControl: string | null;
  contentType: string | null;
  csp: string | null;
}

export interface FirstLoad {
  acceptEncoding: string | null;
  files: FirstLoadFile[];
  totalBytes: number;
}

function get(url: string, acceptEncoding: string | null): Promise<{ file: FirstLoadFile; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: acceptEncoding === null ? {} : { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const header = (name: string) => {
          const v = res.headers[name];
          return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
        };
        resolve({
          body,
          file: {
            path: new URL(url).pathname,
            status: res.statusCode ?? 0,
            bytes: body.length,
            contentEncoding: header('content-encoding'),
            vary: header('vary'),
            cacheControl: header('cache-control'),
            contentType: header('content-type'),
            csp: header('content-security-policy'),
          },
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The page, then each `src`/`href` under /app/assets/ that the page names, in order. */
export async function firstLoad(base: string, acceptEncoding: string | null): Promise<FirstLoad> {
  const page = await get(`${base}/app/`, acceptEncoding);
  if (page.file.status !== 200) throw new Error(`/app/ answered ${page.file.status}`);
  const encoding = page.file.contentEncoding;
  const html = (encoding === 'br' ? brotliDecompressSync(page.body) : encoding === 'gzip' ? gunzipSync(page.body) : page.body).toString('utf8');
  const assets = [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  if (assets.length === 0) throw new Error('the page names no asset');
  const files = [page.file];
  for (const path of assets) files.push((await get(base + path, acceptEncoding)).file);
  return { acceptEncoding, files, totalBytes: files.reduce((n, f) => n + f.bytes, 0) };
}
