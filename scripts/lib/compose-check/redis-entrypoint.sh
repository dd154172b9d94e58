#!/bin/sh
# The local redis stand-in's entrypoint (redis.Containerfile): redis-server runs as the redis
# user, everything else as it is; standard input (the configuration docker-compose.yml pipes
# in) passes through.
set -e
if [ "$1" = redis-server ] && [ "$(id -u)" = 0 ]; then
  exec setpriv --reuid=redis --regid=redis --init-groups "$@"
fi
exec "$@"
