import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiException } from '../errors/api-exception.js';
import { ETAG_HEADER, IF_MATCH_HEADER, IF_NONE_MATCH_HEADER } from './header-names.js';

/**
 * What an `If-Match` header asks for (RFC 9110 13.1.1): any current representation (`*`), or
 * one of these entity tags, unquoted. Weak tags are left out: If-Match compares strongly, so
 * they never match.
 */
export type IfMatch = '*' | string[];

// One list member: an optionally weak, quoted entity tag, then a comma or the end.
const LIST_MEMBER = /[ \t]*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"[ \t]*(?:,|$)/y;

/** The strong ETag header value of a version tag. */
export const strongEtag = (versionTag: string) => `"${versionTag}"`;

/** The version tag of a resource that is one row: its version. */
export const rowVersionTag = (row: { version: number }) => String(row.version);

/** The ETag of a resource that is one row. */
export const rowEtag = (row: { version: number }) => strongEtag(rowVersionTag(row));

/** The longest If-Match read: a client sends one tag, or a few. */
export const MAX_IF_MATCH_LENGTH = 1024;

const invalidIfMatch = (message: string) =>
  ApiException.validation([{ field: IF_MATCH_HEADER, message }]);

/** `undefined` when the header is absent; 400 VALIDATION_ERROR when it is not `*` or a list. */
export function parseIfMatch(header: string | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  if (header.length > MAX_IF_MATCH_LENGTH) {
    throw invalidIfMatch(`must be at most ${MAX_IF_MATCH_LENGTH} characters`);
  }
  if (header.trim() === '*') return '*';
  const tags: string[] = [];
  LIST_MEMBER.lastIndex = 0;
  while (LIST_MEMBER.lastIndex < header.length) {
    const start = LIST_MEMBER.lastIndex;
    const member = LIST_MEMBER.exec(header);
    if (!member || LIST_MEMBER.lastIndex === start) {
      throw invalidIfMatch('must be * or a list of quoted entity tags');
    }
    if (!member[1]) tags.push(member[2]);
  }
  return tags;
}

/**
 * RFC 9110 If-None-Match: `*`, or a list compared weakly (a W/ prefix is ignored). Media
 * decides its 304 with it before the body exists; `setEtag` when the body is sent.
 */
export function matchesIfNoneMatch(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

/**
 * Sends a single resource's ETag and, on a GET or HEAD whose If-None-Match holds it, has
 * Express answer 304 with no body. Express's own check (`req.fresh`) refuses the 304 to any
 * request saying `Cache-Control: no-cache`, which fetch and every browser add to a request
 * carrying a conditional header; docs/api.md answers it whatever Cache-Control says.
 * If-Modified-Since alone stays Express's: with no Last-Modified sent, it never matches.
 */
export function setEtag(res: Response, etag: string): void {
  res.setHeader(ETAG_HEADER, etag);
  const { req } = res;
  const ifNoneMatch = req.get(IF_NONE_MATCH_HEADER);
  if (ifNoneMatch === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return;
  // Read by res.send once the status is final: an error answered instead stays an error.
  Object.defineProperty(req, 'fresh', {
    configurable: true,
    get: () =>
      res.statusCode >= 200 && res.statusCode < 300 && matchesIfNoneMatch(ifNoneMatch, etag),
  });
}

/** Whether a resource whose current version tag is `versionTag` satisfies `ifMatch`. */
export const satisfiesIfMatch = (ifMatch: IfMatch, versionTag: string) =>
  ifMatch === '*' || ifMatch.includes(versionTag);

/**
 * The row versions a conditional write must find, for resources whose version tag is the row
 * version itself; `undefined` when any will do. Tags of another form cannot match.
 */
export function rowVersionsIn(ifMatch: IfMatch | undefined): number[] | undefined {
  if (ifMatch === undefined || ifMatch === '*') return undefined;
  return ifMatch
    .filter((tag) => /^[1-9]\d{0,9}$/.test(tag))
    .map(Number)
    .filter((version) => version <= MAX_ROW_VERSION);
}

// The version columns are PostgreSQL integers.
const MAX_ROW_VERSION = 2 ** 31 - 1;

/** 412: the resource changed since the client read it; `currentEtag` lets it compare. */
export const preconditionFailed = (currentVersionTag: string) =>
  new ApiException(
    'PRECONDITION_FAILED',
    'The resource has changed since the ETag in If-Match was read',
    { currentEtag: strongEtag(currentVersionTag) },
  );

/** The request's `If-Match`, parsed (see `parseIfMatch`). */
export const IfMatchHeader = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): IfMatch | undefined => {
    const header = ctx.switchToHttp().getRequest<Request>().get(IF_MATCH_HEADER);
    return parseIfMatch(header);
  },
);
