import type { Middleware } from 'openapi-fetch';
import { createPetstoreClient, type operations, type Schemas } from '../../client/index.js';
import { plainFieldMessage } from './field-messages';
import { RENEW_BEFORE_MS, SIGNED_OUT_EXPIRED, SIGNED_OUT_REFUSED, session } from './session';

export type Pet = Schemas['PetResponse'];
export type Inventory = Schemas['InventoryResponse'];
export type CreatePet = Schemas['CreatePetDto'];
export type UpdatePet = Schemas['UpdatePetDto'];
export type ApiKey = Schemas['ApiKeyResponse'];
// With the key, which only a replay of an Idempotency-Key (never sent by the console) lacks.
export type CreatedApiKey = Schemas['CreatedApiKeyResponse'] & { key: string };
export type User = Schemas['UserResponse'];
export type Webhook = Schemas['WebhookResponse'];
// Created or rotated: with the secret, which only a replay of an Idempotency-Key lacks.
export type WebhookWithSecret = Schemas['WebhookWithSecretResponse'] & { secret: string };
export type WebhookDelivery = Schemas['DeliveryResponse'];
export type PetHistoryEvent = Schemas['PetHistoryEventResponse'];
export type SignInSession = Schemas['SessionResponse'];
export type Passkey = Schemas['PasskeyResponse'];
export type AuditEvent = Schemas['AuditEventResponse'];
export type ActivityDay = Schemas['ActivityDayResponse'];
export type Adoption = Schemas['AdoptionResponse'];
export type CreateAdoption = Schemas['CreateAdoptionDto'];
export type CustomerMatch = Schemas['CustomerMatch'];
export type PetImport = Schemas['PetImportResponse'];
export type PetImportAccepted = Schemas['PetImportAcceptedResponse'];
type ErrorBody = Schemas['ErrorResponse'];

/** An error answer of the API, in its one error shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message);
  }

  get code(): ErrorBody['code'] {
    return this.body.code;
  }

  /**
   * The first message for each failing field of a VALIDATION_ERROR, in plain words, by
   * top-level field name.
   */
  get fieldErrors(): Record<string, string> {
    const fields = (
      this.body.details as { fields?: { field: string; message: string }[] } | undefined
    )?.fields;
    const errors: Record<string, string> = {};
    for (const { field, message } of fields ?? []) {
      // `tags.3` belongs to the tags field.
      const name = field.split('.')[0];
      errors[name] ??= plainFieldMessage(name, message);
    }
    return errors;
  }
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

function errorOf(status: number, body: unknown): ApiError {
  const known = typeof body === 'object' && body !== null && 'code' in body && 'message' in body;
  return new ApiError(
    status,
    known
      ? (body as ErrorBody)
      : { code: 'INTERNAL_ERROR', message: `The service answered ${status}.`, requestId: '' },
  );
}

/** The client for calls that carry no bearer token: the refresh cookie's routes. */
const cookieClient = createPetstoreClient({ baseUrl: location.origin });

let renewing: Promise<boolean> | undefined;

/**
 * Gets a new access token through the HttpOnly refresh cookie (the browser sends it; the
 * console never sees it). One renewal at a time, across tabs too (Web Locks): the cookie's
 * token is spent by each refresh, and two refreshes with one token would be taken for a
 * stolen token and end the session.
 */
export function renewSession(): Promise<boolean> {
  renewing ??= (async () => {
    try {
      const refresh = async () => {
        const { data, response } = await cookieClient.POST('/v1/auth/refresh', { body: {} });
        if (!response.ok || !data) return false;
        session.signIn(data.token, data.expiresIn, data.refreshExpiresIn);
        return true;
      };
      return await (navigator.locks
        ? navigator.locks.request('petstore.console.refresh', refresh)
        : refresh());
    } catch {
      return false;
    } finally {
      renewing = undefined;
    }
  })();
  return renewing;
}
session.renewWith(renewSession);

/**
 * On loading the page: a session of an earlier visit, or of a single sign-on just finished,
 * comes back through the cookie. Without either, nothing is asked (the answer could only be
 * a refusal).
 */
export function restoreSession(): void {
  // Back from single sign-on, whose session is in the refresh cookie (docs/identity.md).
  const fromSso = location.hash === '#sso';
  if (fromSso) history.replaceState(history.state, '', location.pathname + location.search);
  if (!session.restorable && !fromSso) {
    session.restored();
    return;
  }
  void renewSession().then((renewed) => {
    if (!renewed) session.restored();
  });
}

/** Ends the session on the service (the cookie's session is revoked, the cookie cleared). */
export async function signOut(): Promise<void> {
  // An enrolment token has no session, and the browser no cookie of it.
  if (session.current?.enrolmentOnly) return session.signOut();
  try {
    await cookieClient.POST('/v1/auth/logout', { body: {} });
  } finally {
    session.signOut();
  }
}

/** The token to send now: renewed first when it is about to end. */
async function freshToken(): Promise<string | undefined> {
  const current = session.current;
  if (current && current.expiresAt - Date.now() < RENEW_BEFORE_MS / 2) await renewSession();
  return session.current?.token;
}

/**
 * A 401 on a signed-in call: renew through the cookie once; when that fails, the session is
 * over, and the user is signed out, saying why.
 */
async function renewedAfterRefusal(status: number, body: unknown): Promise<boolean> {
  if (status !== 401 || !session.current) return false;
  if (await renewSession()) return true;
  const expired = (body as Partial<ErrorBody> | null)?.code === 'EXPIRED_TOKEN';
  session.signOut(expired ? SIGNED_OUT_EXPIRED : SIGNED_OUT_REFUSED);
  return false;
}

// Requests sent with a token, kept until answered so that a refused one can be sent again.
const sentWithToken = new Map<string, Request>();

const bearerToken: Middleware = {
  async onRequest({ request, id }) {
    const token = await freshToken();
    if (!token) return request;
    request.headers.set('Authorization', `Bearer ${token}`);
    sentWithToken.set(id, request.clone());
    return request;
  },
  async onResponse({ response, id }) {
    const sent = sentWithToken.get(id);
    sentWithToken.delete(id);
    if (response.status === 403 && sent) {
      const refused = (await response
        .clone()
        .json()
        .catch(() => null)) as Partial<ErrorBody> | null;
      if (refused?.code === 'MFA_ENROLMENT_REQUIRED') session.holdToEnrolment();
      return response;
    }
    if (response.status !== 401 || !sent) return response;
    const body: unknown = await response
      .clone()
      .json()
      .catch(() => null);
    if (!(await renewedAfterRefusal(401, body))) return response;
    sent.headers.set('Authorization', `Bearer ${session.current!.token}`);
    const retried = await fetch(sent);
    // Refused with a token just issued: the account itself is refused.
    if (retried.status === 401) session.signOut(SIGNED_OUT_REFUSED);
    return retried;
  },
  onError({ id }) {
    sentWithToken.delete(id);
  },
};

/** The typed client of the public API (client/), as the signed-in user. */
export const api = createPetstoreClient({ baseUrl: location.origin });
api.use(bearerToken);

/** The data of a successful call, or an ApiError. */
export async function ok<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorOf(response.status, error);
  return data as T;
}

/** A resource as read or written, with the ETag that a later write sends as If-Match. */
export interface Versioned<T> {
  data: T;
  etag: string;
}

/** As `ok`, keeping the answer's ETag. */
export async function okVersioned<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<Versioned<T>> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorOf(response.status, error);
  return { data: data as T, etag: response.headers.get('ETag') ?? '' };
}

/** The write was refused because someone else changed the resource first (If-Match). */
export function isEditConflict(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'PRECONDITION_FAILED';
}

/** True for an image this service stores: the only kind the console's CSP lets it show. */
export function isOwnImage(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.origin === location.origin && parsed.pathname.startsWith('/media/');
  } catch {
    return false;
  }
}

/** What to tell the user about a failed call. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) {
    if (isEditConflict(error)) {
      return 'Someone else changed this first. The page now shows the current version: check it and try again.';
    }
    // The details these messages name, as the error table gives them (docs/api.md).
    const details = error.body.details as
      | { from?: string; to?: string; status?: string; limit?: number; retryAfter?: number }
      | undefined;
    if (error.code === 'INVALID_ADOPTION_TRANSITION') {
      return `This adoption is ${details?.from} now, so it cannot become ${details?.to}. The page now shows it as it is.`;
    }
    if (error.code === 'PET_NOT_AVAILABLE') {
      return `This pet is ${details?.status} now, not available.`;
    }
    if (error.code === 'ADOPTION_LIMIT_REACHED') {
      return `You already have ${details?.limit} adoptions in progress: one of them has to end before you request another.`;
    }
    if (error.code === 'PET_HAS_OPEN_ADOPTION') {
      return 'This pet has an adoption in progress: its status changes only through the adoption.';
    }
    if (error.code === 'RATE_LIMIT_EXCEEDED') {
      return `Too many requests. Try again in ${details?.retryAfter ?? 60} seconds.`;
    }
    return error.status >= 500 && error.body.requestId
      ? `${error.message} (request ${error.body.requestId})`
      : error.message;
  }
  return 'The service could not be reached. Check the connection and try again.';
}

export type PetExportQuery = NonNullable<operations['exportPets']['parameters']['query']>;

/**
 * Downloads `GET /v1/pets/export` as the file the answer names. Fetched with the session's
 * token (a plain link would carry none), so the browser holds the file until it is saved.
 */
export async function downloadPetExport(query: PetExportQuery): Promise<void> {
  const { data, error, response } = await api.GET('/v1/pets/export', {
    params: { query },
    parseAs: 'blob',
  });
  if (!response.ok || !data) throw errorOf(response.status, error);
  const disposition = response.headers.get('Content-Disposition') ?? '';
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? `pets.${query.format ?? 'ndjson'}`;
  const url = URL.createObjectURL(data);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}

/**
 * Uploads an image with XMLHttpRequest rather than fetch: only it reports upload progress.
 * `onProgress` receives the fraction sent, 0 to 1.
 */
export function uploadPetImage(
  petId: number,
  form: FormData,
  onProgress: (fraction: number) => void,
): Promise<void> {
  return freshToken().then(
    (token) =>
      new Promise((resolve, reject) => {
        const request = new XMLHttpRequest();
        request.open('POST', `/v1/pets/${petId}/upload-image`);
        if (token) request.setRequestHeader('Authorization', `Bearer ${token}`);
        request.responseType = 'json';
        request.upload.addEventListener('progress', (event) => {
          if (event.lengthComputable) onProgress(event.loaded / event.total);
        });
        request.addEventListener('load', () => {
          if (request.status === 201) return resolve();
          // Renewed after a 401, the user uploads again with the new token.
          void renewedAfterRefusal(request.status, request.response);
          reject(errorOf(request.status, request.response));
        });
        request.addEventListener('error', () => reject(new TypeError('upload failed')));
        request.send(form);
      }),
  );
}

type PetImportForm = operations['importPets']['requestBody']['content']['multipart/form-data'];

/** Queues the import of a file of pets (`POST /v1/pets/imports`), sent as multipart. */
export function startPetImport(
  file: File,
  mode: NonNullable<PetImportForm['mode']>,
  dryRun: boolean,
): Promise<PetImportAccepted> {
  const form = new FormData();
  form.set('file', file);
  form.set('mode', mode);
  form.set('dryRun', String(dryRun));
  // The generated type holds the file as a string; the browser sends the FormData itself,
  // with its multipart boundary.
  return ok(api.POST('/v1/pets/imports', { body: form as unknown as PetImportForm }));
}
