#!/bin/sh
# yumns.sh ROOT COMMAND...: COMMAND in a mount namespace where /etc is an
# overlay whose changes land in ROOT/etc (so /etc/yum.repos.d is
# ROOT/etc/yum.repos.d) and /usr/local/bin holds a stand-in `dnf` (Salt's
# yumpkg only loads where dnf or yum exists; pkgrepo never runs it). The
# host's /etc and /usr/local/bin are not changed. Used by record.py; needs
# root.
root=$1; shift
mkdir -p "$root/etc" "$root/.work-etc" "$root/bin" "$root/.work-bin"
exec unshare -m sh -c '
  mount -t overlay overlay -o "lowerdir=/etc,upperdir=$0/etc,workdir=$0/.work-etc" /etc &&
  mount -t overlay overlay -o "lowerdir=/usr/local/bin,upperdir=$0/bin,workdir=$0/.work-bin" /usr/local/bin &&
  printf "#!/bin/sh\nexit 0\n" > /usr/local/bin/dnf && chmod +x /usr/local/bin/dnf &&
  exec "$@"' "$root" "$@"
