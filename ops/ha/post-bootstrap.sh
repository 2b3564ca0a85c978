#!/bin/sh
# Patroni's post_bootstrap (ops/ha/patroni-compose.yml): run once on the first primary, with a
# connection string for the superuser as $1. Creates the authorization server's role and database.
set -eu
psql "$1" -v ON_ERROR_STOP=1 -v password="$APP_DB_PASSWORD" <<'SQL'
CREATE ROLE authz LOGIN PASSWORD :'password';
CREATE DATABASE authz OWNER authz;
SQL
