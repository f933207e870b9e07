#!/bin/sh
# aptns.sh ROOT COMMAND...: COMMAND in a mount namespace where ROOT/etc/apt,
# ROOT/var/lib/apt/lists and ROOT/var/cache/apt stand for the host's, so
# Salt's pkgrepo reads and writes a scratch apt configuration only (used by
# record.py; needs root).
root=$1; shift
exec unshare -m sh -c '
  mount --bind "$0/etc/apt" /etc/apt &&
  mount --bind "$0/var/lib/apt/lists" /var/lib/apt/lists &&
  mount --bind "$0/var/cache/apt" /var/cache/apt &&
  exec "$@"' "$root" "$@"
