// One HTTP request sent byte for byte as given: the path is not parsed or normalised (Node's
// URL parser would resolve `..` and `%2e%2e` before the server ever saw them), the body is
// framed with its length for every method, and a stream (a watch) is cut after a while unless
// it ends by itself. For fuzzing an API server on a loopback address.
import { request } from 'node:http';

export interface RawRequest {
  readonly method: string;
  /** The path and query, sent as they are (characters Node refuses in a request line are percent-encoded). */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface RawResponse {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  /** `complete`: the server ended the answer; `cut`: the client closed a stream still open after `streamMs`. */
  readonly ended: 'complete' | 'cut';
}

export interface RawOptions {
  /** No answer (status line) within this many ms is an error. */
  readonly timeoutMs: number;
  /** Once the status line is in, the client closes the answer after this many ms if it is still streaming. Default: wait for its end (bounded by timeoutMs). */
  readonly streamMs?: number;
  /** Keep at most this many characters of the body. Default 1 MiB. */
  readonly keepChars?: number;
}

/** The path with every character outside printable ASCII percent-encoded: Node's client throws on them. */
export function requestLinePath(path: string): string {
  return path.replace(/[^\x21-\x7e]/gu, (c) => {
    try {
      return encodeURIComponent(c);
    } catch {
      return '%EF%BF%BD';
    }
  });
}

export function sendRaw(host: string, port: number, req: RawRequest, options: RawOptions): Promise<RawResponse> {
  const keep = options.keepChars ?? 1 << 20;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...req.headers };
    // Node's client frames no body for DELETE or OPTIONS unless told its length; the bytes would
    // then follow a complete request as a second, unparseable one.
    if (req.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(req.body));
    let settled = false;
    let streamTimer: NodeJS.Timeout | undefined;
    const finish = (error: Error | undefined, value?: RawResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(answerTimer);
      clearTimeout(streamTimer);
      if (error !== undefined) reject(error);
      else if (value !== undefined) resolve(value);
    };
    const r = request({ host, port, method: req.method, path: requestLinePath(req.path), headers, agent: false }, (res) => {
      clearTimeout(answerTimer);
      const chunks: string[] = [];
      let size = 0;
      res.setEncoding('utf8');
      const result = (ended: RawResponse['ended']): RawResponse => ({
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type'] ?? ''),
        text: chunks.join(''),
        ended,
      });
      res.on('data', (c: string) => {
        if (size < keep) chunks.push(c.slice(0, keep - size));
        size += c.length;
      });
      res.on('end', () => finish(undefined, result('complete')));
      res.on('error', (e) => finish(e));
      res.on('close', () => {
        if (!res.complete) finish(undefined, result('cut'));
      });
      if (options.streamMs !== undefined) {
        streamTimer = setTimeout(() => {
          finish(undefined, result('cut'));
          r.destroy();
        }, options.streamMs);
      }
    });
    const answerTimer = setTimeout(() => {
      finish(new Error(`no answer within ${options.timeoutMs} ms: ${req.method} ${req.path.slice(0, 200)}`));
      r.destroy();
    }, options.timeoutMs);
    r.on('error', (e) => finish(e));
    r.end(req.body);
  });
}
