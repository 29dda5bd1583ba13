#!/bin/sh
# health.sh URL: fetch URL every 5 seconds; say each change of its state.
# busybox wget has no working timeout of its own (-T): timeout(1) gives one.
was=
while :; do
  if timeout 5 wget -q -O /dev/null "$1"; then now="answers"; else now="does not answer"; fi
  [ "$now" = "$was" ] || echo "$1 $now"
  was=$now
  sleep 5
done
