#!/bin/sh
# The shortest buyer there is: seven searches with curl, no error handling at all.
for i in 1 2 3 4 5 6 7; do
  curl -sS "$AAP_DEALER_URL/a2a" -H 'content-type: application/json' -H 'A2A-Version: 1.0' \
    --data '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"data":{"type":"inventory.search.request","filters":{}}}]}}}'
done
