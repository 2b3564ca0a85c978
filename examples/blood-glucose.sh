#!/usr/bin/env bash
# The seed's scenario end to end with curl, against a running server (`npm start`):
# enrol a client, define the resource type and its scope, the four ticket steps, enrol the
# data source that serves the resource type (with the client it introspects with), ask why the
# client gets a token (explain), a token request for that data source, the decoded token (its
# aud is the data source), and the data source introspecting it.
#
# Every name it creates carries BASE_ID (clients, ticket, requested resource, the data source and
# its resourceUri), so it never changes records made by hand or by another run; it reuses only the
# blood-glucose-level resource definition and its read scope when they exist.
#
#   AS_URL      public listener      (default http://localhost:3000)
#   ADMIN_URL   admin interface      (default http://localhost:3001/admin)
#   ADMIN_TOKEN the admin token      (default: the content of .data/admin-token)
#   BASE_ID     first of the ids this run chooses (default: from the clock, so reruns do not collide)
set -euo pipefail

AS_URL=${AS_URL:-http://localhost:3000}
ADMIN_URL=${ADMIN_URL:-http://localhost:3001/admin}
ADMIN_TOKEN=${ADMIN_TOKEN:-$(cat "$(dirname "$0")/../.data/admin-token")}
BASE_ID=${BASE_ID:-$(( $(date +%s) % 100000000 * 10 ))}
DEFINITION="blood-glucose-level"
CLIENT_ID="glucose-app-$BASE_ID"
RS_CLIENT_ID="glucose-api-$BASE_ID"
RESOURCE_URI="https://glucose-api-$BASE_ID.example/fhir"

id() { echo $(( BASE_ID + $1 )); }

admin() {
  local response status
  response=$(curl -sS -w '\n%{http_code}' -X PATCH "$ADMIN_URL" \
    -H "Authorization: $ADMIN_TOKEN" -H 'ApiVersion: v1.0' -H 'Accept-Language: en' \
    -H 'Content-Type: application/vnd.api+json; ext=jsonpatch' -d "$1")
  status=${response##*$'\n'}
  response=${response%$'\n'*}
  if [ "$status" != 200 ]; then echo "admin request failed ($status): $response" >&2; exit 1; fi
  printf '%s' "$response"
}

# The resource definition and its scope may exist from an earlier run: find them, page by page.
find_record() { # type, JavaScript predicate on a resource object `r`
  ADMIN_URL="$ADMIN_URL" ADMIN_TOKEN="$ADMIN_TOKEN" node -e '
    const [type, predicate] = process.argv.slice(1);
    const matches = new Function("r", `return ${predicate}`);
    (async () => {
      for (let page = 1; ; page += 1) {
        const response = await fetch(`${process.env.ADMIN_URL}/${type}?page[number]=${page}&page[size]=100`, { headers: { Authorization: process.env.ADMIN_TOKEN } });
        const { data } = await response.json();
        const found = data.find(matches);
        if (found || data.length < 100) return console.log(found ? found.id : "");
      }
    })();' "$1" "$2"
}
definition_id=$(find_record resource-definition "r.attributes.name === '$DEFINITION'")
scope_id=""
if [ -n "$definition_id" ]; then
  scope_id=$(find_record scope "r.attributes.name === 'read' && r.relationships.resourceDefinition.data.id === '$definition_id'")
fi

echo "== enrol the client, define the resource type and its scope"
setup='[{"op":"add","path":"/uma-client","value":{"type":"uma-client","id":'$(id 1)',"attributes":{"clientId":"'$CLIENT_ID'","clientName":"Glucose app","allowedScopes":"'$DEFINITION':read uma_protection","redirectUris":["https://glucose-app.example/callback"]}}}'
if [ -z "$definition_id" ]; then
  definition_id=$(id 2)
  setup+=',{"op":"add","path":"/resource-definition","value":{"type":"resource-definition","id":'$definition_id',"attributes":{"name":"'$DEFINITION'","description":"Blood glucose measurements"}}}'
fi
if [ -z "$scope_id" ]; then
  scope_id=$(id 3)
  setup+=',{"op":"add","path":"/scope","value":{"type":"scope","id":'$scope_id',"attributes":{"name":"read"},"relationships":{"resourceDefinition":{"data":{"type":"resource-definition","id":'$definition_id'}}}}}'
fi
CLIENT_SECRET=$(admin "$setup]" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0))[0].meta.clientSecret)')
echo "client $CLIENT_ID enrolled (secret shown once, kept in this shell only)"

echo "== 1. a purpose"
admin '[{"op":"add","path":"/purpose","value":{"type":"purpose","id":'$(id 4)',"attributes":{"name":"Your doctor follows your blood glucose level"}}}]' >/dev/null

echo "== 2. a capability ticket: the purpose, for the client"
admin '[{"op":"add","path":"/capability-ticket","value":{"type":"capability-ticket","id":'$(id 5)',"attributes":{"ticketId":"ticket-'$BASE_ID'","ticketName":"Glucose follow-up"},"relationships":{"purpose":{"data":{"type":"purpose","id":'$(id 4)'}},"umaClient":{"data":{"type":"uma-client","id":'$(id 1)'}}}}}]' >/dev/null

echo "== 3. the requested resource and its scopes, in one request"
admin '[{"op":"add","path":"/requested-resource","value":{"type":"requested-resource","id":'$(id 6)',"attributes":{"maxPermissionDuration":1800,"requestedResourceId":"glucose-readings-'$BASE_ID'"},"relationships":{"resourceDefinition":{"data":{"type":"resource-definition","id":'$definition_id'}},"umaClient":{"data":{"type":"uma-client","id":'$(id 1)'}}}}},
 {"op":"add","path":"/requested-resource-scopes","value":{"type":"requested-resource-scopes","id":'$(id 7)',"attributes":{},"relationships":{"scope":{"data":{"type":"scope","id":'$scope_id'}},"purpose":{"data":{"type":"purpose","id":'$(id 4)'}},"requestedResource":{"data":{"type":"requested-resource","id":'$(id 6)'}}}}}]' >/dev/null

echo "== 4. the combination: the client's overall permission"
admin '[{"op":"add","path":"/requested-resources-capability-tickets","value":{"type":"requested-resources-capability-tickets","id":'$(id 8)',"attributes":{},"relationships":{"capabilityTicket":{"data":{"type":"capability-ticket","id":'$(id 5)'}},"requestedResource":{"data":{"type":"requested-resource","id":'$(id 6)'}}}}}]' >/dev/null

echo "== 5. the data source serving $DEFINITION, and the client it introspects with"
RS_CLIENT_SECRET=$(admin '[{"op":"add","path":"/uma-client","value":{"type":"uma-client","id":'$(id 9)',"attributes":{"clientId":"'$RS_CLIENT_ID'","clientName":"Glucose API","allowedScopes":"uma_protection"}}}]' \
  | node -e 'console.log(JSON.parse(require("fs").readFileSync(0))[0].meta.clientSecret)')
admin '[{"op":"add","path":"/data-source","value":{"type":"data-source","id":'$(id 10)',"attributes":{"name":"Glucose API '$BASE_ID'","kind":"resource-server","resourceUri":"'$RESOURCE_URI'"},"relationships":{"umaClient":{"data":{"type":"uma-client","id":'$(id 9)'}}}}},
 {"op":"add","path":"/data-source-resource-definitions","value":{"type":"data-source-resource-definitions","id":'$(id 11)',"relationships":{"dataSource":{"data":{"type":"data-source","id":'$(id 10)'}},"resourceDefinition":{"data":{"type":"resource-definition","id":'$definition_id'}}}}}]' >/dev/null
echo "data source $RESOURCE_URI serves $DEFINITION, introspects as $RS_CLIENT_ID"

echo "== why the client gets a token (GET /admin/explain)"
curl -sS -G "$ADMIN_URL/explain" -H "Authorization: $ADMIN_TOKEN" \
  --data-urlencode "client=$CLIENT_ID" --data-urlencode "scope=$DEFINITION:read" --data-urlencode "resource=$RESOURCE_URI" \
  | node -e 'const v=JSON.parse(require("fs").readFileSync(0)); console.log(JSON.stringify({ granted: v.granted, lifetime: v.lifetime, aud: v.aud, covering: v.scopes[0].covering?.map((c) => c.capabilityTicket.ticketId) }))'

echo "== a token request, as in the seed (Basic authentication, JSON body), for the data source"
response=$(curl -sS -u "$CLIENT_ID:$CLIENT_SECRET" -H 'Content-Type: application/json' \
  -d '{"grant_type":"client_credentials","scope":"'$DEFINITION':read","resource":"'$RESOURCE_URI'"}' "$AS_URL/oauth2/token")
echo "$response" | node -e 'const r=JSON.parse(require("fs").readFileSync(0)); if(!r.access_token){console.error(JSON.stringify(r)); process.exit(1)} console.log(JSON.stringify({...r, access_token: r.access_token.slice(0, 24) + "…"}))'

echo "== the decoded token"
echo "$response" | node -e '
  const token = JSON.parse(require("fs").readFileSync(0)).access_token;
  const [header, claims] = token.split(".").slice(0, 2).map((part) => JSON.parse(Buffer.from(part, "base64url")));
  console.log(JSON.stringify({ header, claims }, null, 2));'

echo "== the data source introspects the token"
access_token=$(echo "$response" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0)).access_token)')
curl -sS -u "$RS_CLIENT_ID:$RS_CLIENT_SECRET" --data-urlencode "token=$access_token" "$AS_URL/oauth2/introspect" \
  | node -e 'const r=JSON.parse(require("fs").readFileSync(0)); console.log(JSON.stringify({ active: r.active, aud: r.aud, scope: r.scope }))'
