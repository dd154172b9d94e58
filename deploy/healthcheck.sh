#!/usr/bin/env bash
# latchkey-healthcheck PORT [PATH]: exits 0 when GET http://127.0.0.1:PORT/PATH (/healthz by
# default) answers 200 within 5 s. Plain bash (/dev/tcp), so the runtime image needs no curl.
set -euo pipefail
port=${1:?usage: latchkey-healthcheck PORT [PATH]}
path=${2:-/healthz}

exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$path" "$port" >&3
read -r -t 5 _ status _ <&3
[ "$status" = 200 ]
