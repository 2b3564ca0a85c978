# The records Getting started makes (docs/getting-started.md), in one request, for a guide read on
# its own on a fresh server: client glucose-app (id 101, allowed blood-glucose-level:read and
# uma_protection), resource definition blood-glucose-level (101) with scope read, purpose 110,
# consent ticket ticket-glucose-1 (120) covering glucose-readings (130), and the data source
# Glucose API (160, https://glucose-api.example/fhir) whose umaClient is glucose-api (102).
#
# Source it, so that it sets ADMIN, PATCH_TYPE, APP_SECRET and API_SECRET in your shell:
#   . examples/getting-started-records.sh http://localhost:3001 .data/admin-token
# On a server that already holds these records it stops with the server's 409 and changes nothing.
ADMIN_BASE=${1:-http://localhost:3001}
ADMIN="Authorization: $(cat "${2:-.data/admin-token}")"
PATCH_TYPE='Content-Type: application/vnd.api+json; ext=jsonpatch'
RECORDS=$(curl -sS --fail-with-body -X PATCH "$ADMIN_BASE/admin" -H "$ADMIN" -H "$PATCH_TYPE" -d '[
 {"op":"add","path":"/uma-client","value":{"type":"uma-client","id":101,"attributes":{"clientId":"glucose-app","clientName":"Glucose app","allowedScopes":"blood-glucose-level:read uma_protection","redirectUris":["https://app.example/callback"]}}},
 {"op":"add","path":"/resource-definition","value":{"type":"resource-definition","id":101,"attributes":{"name":"blood-glucose-level","description":"Blood glucose measurements"}}},
 {"op":"add","path":"/scope","value":{"type":"scope","id":101,"attributes":{"name":"read"},"relationships":{"resourceDefinition":{"data":{"type":"resource-definition","id":101}}}}},
 {"op":"add","path":"/purpose","value":{"type":"purpose","id":110,"attributes":{"name":"Your doctor follows your blood glucose level"}}},
 {"op":"add","path":"/capability-ticket","value":{"type":"capability-ticket","id":120,"attributes":{"ticketId":"ticket-glucose-1","ticketName":"Glucose follow-up"},"relationships":{"purpose":{"data":{"type":"purpose","id":110}},"umaClient":{"data":{"type":"uma-client","id":101}}}}},
 {"op":"add","path":"/requested-resource","value":{"type":"requested-resource","id":130,"attributes":{"maxPermissionDuration":1800,"requestedResourceId":"glucose-readings"},"relationships":{"resourceDefinition":{"data":{"type":"resource-definition","id":101}},"umaClient":{"data":{"type":"uma-client","id":101}}}}},
 {"op":"add","path":"/requested-resource-scopes","value":{"type":"requested-resource-scopes","id":140,"attributes":{},"relationships":{"scope":{"data":{"type":"scope","id":101}},"purpose":{"data":{"type":"purpose","id":110}},"requestedResource":{"data":{"type":"requested-resource","id":130}}}}},
 {"op":"add","path":"/requested-resources-capability-tickets","value":{"type":"requested-resources-capability-tickets","id":150,"attributes":{},"relationships":{"capabilityTicket":{"data":{"type":"capability-ticket","id":120}},"requestedResource":{"data":{"type":"requested-resource","id":130}}}}},
 {"op":"add","path":"/uma-client","value":{"type":"uma-client","id":102,"attributes":{"clientId":"glucose-api","clientName":"Glucose API","allowedScopes":"uma_protection"}}},
 {"op":"add","path":"/data-source","value":{"type":"data-source","id":160,"attributes":{"name":"Glucose API","kind":"resource-server","resourceUri":"https://glucose-api.example/fhir"},"relationships":{"umaClient":{"data":{"type":"uma-client","id":102}}}}},
 {"op":"add","path":"/data-source-resource-definitions","value":{"type":"data-source-resource-definitions","id":170,"relationships":{"dataSource":{"data":{"type":"data-source","id":160}},"resourceDefinition":{"data":{"type":"resource-definition","id":101}}}}}]') || {
  echo "The records were not made: $RECORDS" >&2
  return 1 2>/dev/null || exit 1
}
APP_SECRET=$(printf '%s' "$RECORDS" | node -pe 'JSON.parse(require("fs").readFileSync(0))[0].meta.clientSecret')
API_SECRET=$(printf '%s' "$RECORDS" | node -pe 'JSON.parse(require("fs").readFileSync(0))[8].meta.clientSecret')
echo "glucose-app, blood-glucose-level, ticket-glucose-1 and the data source Glucose API are made; APP_SECRET and API_SECRET hold the two clients' secrets"
