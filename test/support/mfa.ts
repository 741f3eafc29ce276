import { expectError } from './errors.js';
import type { TestApp } from './test-app.js';

/** The `mfaToken` of a password login of an account with a second factor (401 MFA_REQUIRED). */
export async function mfaTokenOf(
  t: TestApp,
  user: { username: string; password: string },
): Promise<string> {
  const res = await t.http
    .post('/v1/auth/login')
    .send({ username: user.username, password: user.password });
  expectError(res, 401, 'MFA_REQUIRED');
  return res.body.details.mfaToken as string;
}

/** The audit entries of `action` about the user, oldest first. */
export const userAuditOf = (t: TestApp, userId: number, action: string) =>
  t.dataSource.query<{ outcome: string; actorUserId: number; actorCredential: string }[]>(
    `SELECT outcome, actor_user_id AS "actorUserId", actor_credential AS "actorCredential"
       FROM audit_events WHERE action = $1 AND target_type = 'user' AND target_id = $2
      ORDER BY id`,
    [action, userId],
  );
