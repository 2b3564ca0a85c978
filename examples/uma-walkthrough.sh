#!/usr/bin/env bash
# UMA 2.0 for data sources end to end with curl, against a running server (`npm start`); see
# docs/guides/uma.md. It enrols everything under fresh names in one admin request (server-chosen
# ids, JSON:API local ids), so it never collides with other examples or earlier runs:
#   a client registered for the UMA grant, with a consent ticket for <definition>:read;
#   a resource server client (uma_protection) and the data source it is the umaClient of.
# Then: the PAT, a registered resource, a permission ticket, the RPT, and introspection with the PAT.
#
#   AS_URL      public listener      (default http://localhost:3000)
#   ADMIN_URL   admin interface      (default http://localhost:3001/admin)
#   ADMIN_TOKEN the admin token      (default: the content of .data/admin-token)
#   BASE_ID     optional prefix of this run's names (the names also carry the clock and a random part)
set -euo pipefail

AS_URL=${AS_URL:-http://localhost:3000}
ADMIN_URL=${ADMIN_URL:-http://localhost:3001/admin}
ADMIN_TOKEN=${ADMIN_TOKEN:-$(cat "$(dirname "$0")/../.data/admin-token")}
RUN="${BASE_ID:+$BASE_ID-}$(date +%s)-$RANDOM$RANDOM"
DEFINITION="uma-glucose-$RUN"
CLIENT_ID="uma-app-$RUN"
RS_CLIENT_ID="uma-rs-$RUN"
RESOURCE_URI="https://uma-glucose-$RUN.example/fhir"
UMA_GRANT="urn:ietf:params:oauth:grant-type:uma-ticket"

# A JSON member of stdin: json '.a.b' (node is there: the server runs on it).
json() { node -e 'let v=JSON.parse(require("fs").readFileSync(0)); for (const k of process.argv[1].split(".").filter(Boolean)) v=v?.[k]; if (v===undefined) process.exit(1); console.log(typeof v==="string"?v:JSON.stringify(v))' "$1"; }

# curl that fails loudly: prints the body, and exits unless the status is the expected one.
call() { # expected-status, curl arguments...
  local expected=$1 response status
  shift
  response=$(curl -sS -w '\n%{http_code}' "$@")
  status=${response##*$'\n'}
  response=${response%$'\n'*}
  if [ "$status" != "$expected" ]; then echo "expected $expected, got $status: $response" >&2; exit 1; fi
  printf '%s' "$response"
}

lid() { echo '{"data":{"type":"'$1'","lid":"'$2'"}}'; }

echo "== enrol: the client, the resource server client, the definition, a consent ticket and the data source (one request)"
enrolment=$(call 200 -X PATCH "$ADMIN_URL" -H "Authorization: $ADMIN_TOKEN" -H 'ApiVersion: v1.0' \
  -H 'Content-Type: application/vnd.api+json; ext=jsonpatch' -d '[
 {"op":"add","path":"/uma-client","value":{"type":"uma-client","lid":"app","attributes":{"clientId":"'$CLIENT_ID'","clientName":"Glucose app","allowedScopes":"'$DEFINITION':read","grantTypes":"client_credentials '$UMA_GRANT'"}}},
 {"op":"add","path":"/uma-client","value":{"type":"uma-client","lid":"rs","attributes":{"clientId":"'$RS_CLIENT_ID'","clientName":"Glucose API","allowedScopes":"uma_protection"}}},
 {"op":"add","path":"/resource-definition","value":{"type":"resource-definition","lid":"def","attributes":{"name":"'$DEFINITION'","description":"Blood glucose measurements"}}},
 {"op":"add","path":"/scope","value":{"type":"scope","lid":"read","attributes":{"name":"read"},"relationships":{"resourceDefinition":'$(lid resource-definition def)'}}},
 {"op":"add","path":"/purpose","value":{"type":"purpose","lid":"why","attributes":{"name":"Your doctor follows your blood glucose level"}}},
 {"op":"add","path":"/capability-ticket","value":{"type":"capability-ticket","lid":"ticket","attributes":{"ticketId":"uma-ticket-'$RUN'","ticketName":"Glucose follow-up"},"relationships":{"purpose":'$(lid purpose why)',"umaClient":'$(lid uma-client app)'}}},
 {"op":"add","path":"/requested-resource","value":{"type":"requested-resource","lid":"res","attributes":{"maxPermissionDuration":1800,"requestedResourceId":"glucose-readings-'$RUN'"},"relationships":{"resourceDefinition":'$(lid resource-definition def)',"umaClient":'$(lid uma-client app)'}}},
 {"op":"add","path":"/requested-resource-scopes","value":{"type":"requested-resource-scopes","attributes":{},"relationships":{"scope":'$(lid scope read)',"purpose":'$(lid purpose why)',"requestedResource":'$(lid requested-resource res)'}}},
 {"op":"add","path":"/requested-resources-capability-tickets","value":{"type":"requested-resources-capability-tickets","attributes":{},"relationships":{"capabilityTicket":'$(lid capability-ticket ticket)',"requestedResource":'$(lid requested-resource res)'}}},
 {"op":"add","path":"/data-source","value":{"type":"data-source","lid":"ds","attributes":{"name":"Glucose API","kind":"resource-server","resourceUri":"'$RESOURCE_URI'"},"relationships":{"umaClient":'$(lid uma-client rs)'}}},
 {"op":"add","path":"/data-source-resource-definitions","value":{"type":"data-source-resource-definitions","attributes":{},"relationships":{"dataSource":'$(lid data-source ds)',"resourceDefinition":'$(lid resource-definition def)'}}}]')
CLIENT_SECRET=$(echo "$enrolment" | json 0.meta.clientSecret)
RS_CLIENT_SECRET=$(echo "$enrolment" | json 1.meta.clientSecret)
echo "client $CLIENT_ID, resource server client $RS_CLIENT_ID, data source $RESOURCE_URI serving $DEFINITION"

echo "== discovery (/.well-known/uma2-configuration)"
configuration=$(call 200 "$AS_URL/.well-known/uma2-configuration")
TOKEN_ENDPOINT=$(echo "$configuration" | json token_endpoint)
RREG=$(echo "$configuration" | json resource_registration_endpoint)
PERMISSION_ENDPOINT=$(echo "$configuration" | json permission_endpoint)
INTROSPECTION_ENDPOINT=$(echo "$configuration" | json introspection_endpoint)
echo "resource registration $RREG, permission $PERMISSION_ENDPOINT"

echo "== the resource server gets its PAT (scope uma_protection)"
PAT=$(call 200 -u "$RS_CLIENT_ID:$RS_CLIENT_SECRET" -d grant_type=client_credentials -d scope=uma_protection "$TOKEN_ENDPOINT" | json access_token)

echo "== it registers its resource"
RESOURCE_ID=$(call 201 -H "Authorization: Bearer $PAT" -H 'Content-Type: application/json' \
  -d '{"type":"'$DEFINITION'","resource_scopes":["read"],"name":"Blood glucose readings"}' "$RREG" | json _id)
call 200 -H "Authorization: Bearer $PAT" "$RREG/$RESOURCE_ID"; echo

echo "== a client came without an RPT: the resource server asks for a permission ticket"
TICKET=$(call 201 -H "Authorization: Bearer $PAT" -H 'Content-Type: application/json' \
  -d '{"resource_id":"'$RESOURCE_ID'","resource_scopes":["read"]}' "$PERMISSION_ENDPOINT" | json ticket)
echo "WWW-Authenticate: UMA realm=\"glucose\", as_uri=\"$AS_URL\", ticket=\"${TICKET:0:8}…\""

echo "== the client redeems the ticket for an RPT (the UMA grant)"
rpt_response=$(call 200 -u "$CLIENT_ID:$CLIENT_SECRET" --data-urlencode "grant_type=$UMA_GRANT" --data-urlencode "ticket=$TICKET" "$TOKEN_ENDPOINT")
RPT=$(echo "$rpt_response" | json access_token)
echo "$rpt_response" | node -e 'const r=JSON.parse(require("fs").readFileSync(0)); console.log(JSON.stringify({...r, access_token: r.access_token.slice(0, 24) + "…"}))'
echo "$RPT" | node -e '
  const [header, claims] = require("fs").readFileSync(0, "utf8").trim().split(".").slice(0, 2).map((part) => JSON.parse(Buffer.from(part, "base64url")));
  console.log(JSON.stringify({ header, claims }, null, 2));'

echo "== the ticket is used up"
call 400 -u "$CLIENT_ID:$CLIENT_SECRET" --data-urlencode "grant_type=$UMA_GRANT" --data-urlencode "ticket=$TICKET" "$TOKEN_ENDPOINT"; echo

echo "== the resource server introspects the RPT with its PAT"
call 200 -H "Authorization: Bearer $PAT" --data-urlencode "token=$RPT" "$INTROSPECTION_ENDPOINT" \
  | node -e 'const r=JSON.parse(require("fs").readFileSync(0)); if (!r.active) process.exit(1); console.log(JSON.stringify({ active: r.active, aud: r.aud, permissions: r.permissions, scope: r.scope ?? null }))'
