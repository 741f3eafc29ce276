import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { MAX_INPUT_DEPTH } from '../common/pipes/safe-input.pipe.js';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * What makes a retry "the same request" for an Idempotency-Key, as a SHA-256 (hex): the
 * method, the concrete path and query, the body as canonical JSON (keys sorted, so neither
 * key order nor whitespace counts) and an uploaded file's field, name, type and bytes.
 *
 * Undefined when the body nests deeper than SafeInputPipe allows: that request is refused
 * as invalid before any work, so there is nothing to guard, and the recursion stays bounded.
 */
export function requestFingerprint(request: Request): string | undefined {
  const body = canonicalJson(request.body ?? null, 0);
  if (body === undefined) return undefined;
  const file = request.file;
  return sha256(
    JSON.stringify([
      request.method,
      request.originalUrl,
      body,
      file ? [file.fieldname, file.originalname, file.mimetype, sha256(file.buffer)] : null,
    ]),
  );
}

/** JSON with every object's keys in sorted order; undefined past the depth limit. */
export function canonicalJson(value: unknown, depth = 0): string | undefined {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (depth > MAX_INPUT_DEPTH) return undefined;
  const record = value as Record<string, unknown>;
  const keys = Array.isArray(value) ? undefined : Object.keys(record).sort();
  const parts: string[] = [];
  for (const key of keys ?? Object.keys(record)) {
    const part = canonicalJson(record[key], depth + 1);
    if (part === undefined) return undefined;
    // Built as text: assigning `__proto__` to a new object would change its prototype.
    parts.push(keys ? `${JSON.stringify(key)}:${part}` : part);
  }
  return keys ? `{${parts.join(',')}}` : `[${parts.join(',')}]`;
}
