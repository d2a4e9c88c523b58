#!/bin/sh
# The shortest buyer: seven searches with curl, no error handling at all.
#   aap-chaos exam --scenarios rate-limit-storm -- sh examples/curl-buyer.sh
for i in 1 2 3 4 5 6 7; do
  curl -s "$AAP_DEALER_URL/a2a" -H 'content-type: application/json' -H 'A2A-Version: 1.0' -d '{"jsonrpc":"2.0","id":'$i',"method":"SendMessage","params":{"message":{"messageId":"m-'$i'","role":"ROLE_USER","parts":[{"data":{"type":"inventory.search.request","filters":{}},"mediaType":"application/vnd.autoagent.inventory-search-request+json"}]}}}'
  echo
done
