#!/bin/sh
# Secrets arrive as files (Docker or Kubernetes secrets): for each secret-bearing variable
# NAME given as NAME_FILE, export NAME with that file's content, so that no secret shows
# in `docker inspect`.
set -eu
for name in DATABASE_URL REDIS_URL JWT_SECRET ADMIN_PASSWORD S3_SECRET_ACCESS_KEY METRICS_TOKEN SMTP_URL MFA_ENCRYPTION_KEY MFA_ENCRYPTION_KEY_PREVIOUS OIDC_CLIENT_SECRET; do
  eval "path=\${${name}_FILE:-}"
  if [ -n "$path" ]; then
    value=$(cat "$path")
    export "$name=$value"
    unset "${name}_FILE"
  fi
done
exec "$@"
