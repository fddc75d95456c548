/**
 * A request body received to a file, as it arrives (the data imports,
 * docs/decisions.md 91): the serving thread holds at most the stream's
 * buffers of it (the socket's and the file's, some 80 KB), never the whole
 * body, and the import's thread reads the file.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../errors.js';

/** Bytes of a body received in one turn of the event loop, at most (about). */
const YIELD_EVERY = 1 << 20;

export class ReceivedFile {
  private done = false;
  private held = false;

  constructor(
    readonly path: string,
    readonly bytes: number,
    /** SHA-256 of the body: what stands for it in an Idempotency-Key's fingerprint. */
    readonly sha256: string,
    private readonly onDone: () => void,
  ) {}

  /** The handler uses it: only its own `finish` releases it. */
  hold(): void {
    this.held = true;
  }

  /**
   * Removes the file, then tells the owner (idempotent). Off the event loop:
   * unlinking 50 MB held the serving thread some 40 ms (a CPU profile of the
   * admin-imports bench row). The place is free at once: a client told its
   * import's answer may send the next.
   */
  finish(): void {
    if (this.done) return;
    this.done = true;
    void rm(this.path, { force: true }).catch(() => {});
    this.onDone();
  }

  /** After the answer: released unless a handler holds it (a refusal before the handler, a replay). */
  abandon(): void {
    if (!this.held) this.finish();
  }
}

/**
 * Streams `payload` to a new file of the temporary folder, readable by this
 * user only. More than `limit` bytes (announced or sent) is a 413, with the
 * file removed; so is a client that goes away mid-body (its error).
 * `onDone` runs once the file is finished with, or at once on a failure.
 */
export async function receiveToFile(
  payload: Readable,
  declaredLength: string | undefined,
  limit: number,
  onDone: () => void,
): Promise<ReceivedFile> {
  const tooLarge = () => new ApiError(413, 'payload_too_large');
  if (declaredLength !== undefined && Number(declaredLength) > limit) {
    onDone();
    throw tooLarge();
  }
  const path = join(tmpdir(), `mds-import-${randomUUID()}.body`);
  const hash = createHash('sha256');
  let bytes = 0;
  let sinceYield = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      bytes += chunk.length;
      if (bytes > limit) return next(tooLarge());
      hash.update(chunk);
      // A socket with megabytes buffered is otherwise drained in one turn of the
      // loop (bursts of 30-90 ms in a CPU profile of three imports at once):
      // after each MiB the requests waiting get their turn.
      sinceYield += chunk.length;
      if (sinceYield < YIELD_EVERY) return next(null, chunk);
      sinceYield = 0;
      setImmediate(next, null, chunk);
    },
  });
  try {
    await pipeline(payload, count, createWriteStream(path, { mode: 0o600 }));
  } catch (err) {
    rmSync(path, { force: true });
    onDone();
    throw err;
  }
  return new ReceivedFile(path, bytes, hash.digest('hex'), onDone);
}
