#!/usr/bin/env bash
# Postgres' first start (docker-compose.yml mounts this folder on /docker-entrypoint-initdb.d):
# one login role per backend, owning its own schema and nothing else, so a compromised
# identity cannot read tokens' sessions, content-state cannot read users, and so on.
#   latchkey_identity       schema identity   password /run/secrets/postgres_identity_password
#   latchkey_tokens         schema tokens     password /run/secrets/postgres_tokens_password
#   latchkey_content_state  schema content    password /run/secrets/postgres_content_state_password
#   latchkey_gateway        reads, inserts and updates schema content's tables, nothing else
#                           (the gateway's own content calls, CONTENT_DATABASE_URL); password
#                           /run/secrets/postgres_gateway_password, made only when that file is there
# The roles cannot create schemas, databases or roles; nobody but them and the admin role
# (POSTGRES_USER) may connect. Each service then applies its own migrations in its schema.
# Safe to run again, e.g. on a database made before these roles existed:
#   docker compose exec postgres bash /docker-entrypoint-initdb.d/10-latchkey-roles.sh
# makes the missing roles, sets their passwords from the secrets again, and hands each schema
# with its tables and functions to its role.
set -euo pipefail

user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}

for name in identity tokens content_state; do
  if [ ! -s "/run/secrets/postgres_${name}_password" ]; then
    echo "latchkey roles: /run/secrets/postgres_${name}_password is missing or empty (scripts/dev secrets)" >&2
    exit 1
  fi
done

# The passwords reach psql through its backquote substitution, never the command line.
psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet --username "$user" --dbname "$database" \
  --set database="$database" --set admin="$user" <<'SQL'
\set identity_password `cat /run/secrets/postgres_identity_password`
\set tokens_password `cat /run/secrets/postgres_tokens_password`
\set content_state_password `cat /run/secrets/postgres_content_state_password`

CREATE TEMPORARY TABLE latchkey_roles (role text, schema text, password text);
INSERT INTO latchkey_roles VALUES
  ('latchkey_identity', 'identity', :'identity_password'),
  ('latchkey_tokens', 'tokens', :'tokens_password'),
  ('latchkey_content_state', 'content', :'content_state_password');

-- Only the admin role and the three service roles connect (to this database only); nobody
-- creates in public.
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
REVOKE CONNECT ON DATABASE postgres FROM PUBLIC;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

DO $$
DECLARE
  entry record;
  object record;
BEGIN
  FOR entry IN SELECT * FROM latchkey_roles LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = entry.role) THEN
      EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION', entry.role);
    END IF;
    EXECUTE format('ALTER ROLE %I WITH LOGIN PASSWORD %L', entry.role, entry.password);
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), entry.role);
    IF NOT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = entry.schema) THEN
      EXECUTE format('CREATE SCHEMA %I AUTHORIZATION %I', entry.schema, entry.role);
    END IF;
    -- A schema the admin role made (an older deployment) changes hands with what is in it.
    EXECUTE format('ALTER SCHEMA %I OWNER TO %I', entry.schema, entry.role);
    FOR object IN
      SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = entry.schema AND c.relkind IN ('r', 'p', 'v', 'm')
    LOOP
      EXECUTE format('ALTER TABLE %I.%I OWNER TO %I', entry.schema, object.relname, entry.role);
    END LOOP;
    FOR object IN
      SELECT p.oid::regprocedure AS signature FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = entry.schema
    LOOP
      EXECUTE format('ALTER ROUTINE %s OWNER TO %I', object.signature, entry.role);
    END LOOP;
  END LOOP;
END
$$;
DROP TABLE latchkey_roles;
SQL
echo "latchkey roles: latchkey_identity, latchkey_tokens and latchkey_content_state own their schemas"

if [ ! -s /run/secrets/postgres_gateway_password ]; then
  echo "latchkey roles: no /run/secrets/postgres_gateway_password, so no latchkey_gateway: the gateway calls content-state for content"
  exit 0
fi
psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet --username "$user" --dbname "$database" --set database="$database" <<'SQL'
\set gateway_password `cat /run/secrets/postgres_gateway_password`
-- The gateway reads and writes a user's content state with content-state's code and nothing
-- else: SELECT, INSERT and UPDATE on schema content's tables, today's and those content-state's
-- migrations make later (default privileges of the schema's owner). Never DELETE or TRUNCATE
-- (deletions and merges stay content-state's), never DDL; a role made by the release before,
-- which only read, gains INSERT and UPDATE when this runs again.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'latchkey_gateway') THEN
    CREATE ROLE latchkey_gateway LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION;
  END IF;
END
$$;
ALTER ROLE latchkey_gateway WITH LOGIN PASSWORD :'gateway_password';
GRANT CONNECT ON DATABASE :"database" TO latchkey_gateway;
GRANT USAGE ON SCHEMA content TO latchkey_gateway;
GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA content TO latchkey_gateway;
ALTER DEFAULT PRIVILEGES FOR ROLE latchkey_content_state IN SCHEMA content GRANT SELECT, INSERT, UPDATE ON TABLES TO latchkey_gateway;
SQL
echo "latchkey roles: latchkey_gateway reads and writes schema content's tables"
