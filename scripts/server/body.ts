/**
 * A request's body as the web `ReadableStream` a function reads, straight from the socket: nothing
 * is buffered beyond one small queue (the socket is paused while the function does not read), so
 * memory stays bounded whatever a client sends. Three things end it early, each reported to the
 * server so that it answers and hangs up:
 * - more than `maxBytes` arrive ('too-large': 413, counted as the bytes stream in);
 * - the server waits for the client longer than `idleTimeoutMs` at a time, or past `deadline`
 *   ('timeout': 408). Only time spent waiting on the client counts, never time the function
 *   spends not reading;
 * - the client goes away ('gone').
 * The bytes reach the function exactly as sent (no decoding, whatever the content type).
 */
import type { IncomingMessage } from 'node:http';

export type BodyProblem = 'too-large' | 'timeout' | 'gone';

export class BodyError extends Error {
  readonly problem: BodyProblem;

  constructor(problem: BodyProblem) {
    super(
      problem === 'too-large'
        ? 'The request body is too large'
        : problem === 'timeout'
          ? 'The request body did not arrive in time'
          : 'The client went away',
    );
    this.name = 'BodyError';
    this.problem = problem;
  }
}

export interface BodyOptions {
  maxBytes: number;
  idleTimeoutMs: number;
  /** When the whole request must have arrived (epoch ms). */
  deadline: number;
  onProblem(problem: BodyProblem): void;
}

const QUEUE_BYTES = 64 * 1024;

export function streamBody(req: IncomingMessage, options: BodyOptions): ReadableStream<Uint8Array> {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let received = 0;
  let done = false;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;

  const stopWaiting = () => {
    clearTimeout(timer);
    timer = undefined;
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const detach = () => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('close', onClose);
  };
  const fail = (problem: BodyProblem) => {
    if (done) return;
    done = true;
    detach();
    stopWaiting();
    controller.error(new BodyError(problem));
    options.onProblem(problem);
  };
  function onData(chunk: Buffer) {
    received += chunk.byteLength;
    if (received > options.maxBytes) return fail('too-large');
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if ((controller.desiredSize ?? 0) <= 0) req.pause();
    stopWaiting();
  }
  function onEnd() {
    if (done) return;
    done = true;
    detach();
    stopWaiting();
    controller.close();
  }
  function onClose() {
    if (!req.complete) fail('gone');
  }

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        req.on('data', onData);
        req.on('end', onEnd);
        req.on('close', onClose);
        req.pause();
      },
      pull() {
        if (done) return;
        req.resume();
        return new Promise<void>((resolve) => {
          wake = resolve;
          const wait = Math.min(options.idleTimeoutMs, options.deadline - Date.now());
          timer = setTimeout(() => fail('timeout'), Math.max(0, wait));
        });
      },
      cancel() {
        // The function has read enough (e.g. it answered 413 at its own cap): stop reading, and
        // let whatever still arrives drain away unread until the server hangs up.
        if (done) return;
        done = true;
        detach();
        stopWaiting();
        req.resume();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: QUEUE_BYTES }),
  );
}
