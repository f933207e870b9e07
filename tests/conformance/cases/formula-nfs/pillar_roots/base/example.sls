---
nfs:
  # Global settings:
  mkmnt: false
  mount_opts: noauto,ro
  persist_unmount: true
  persist_mount: false
  enabled: true

  # Server settings
  server:
    exports:
      /srv/homes: >-
        hostname1(rw,sync,no_subtree_check)
        hostname2(ro,sync,no_subtree_check)
    # FreeBSD specific:
    mountd_flags: -l -S

  # mount settings
  mount:
    somename:
      mountpoint: "/some/path"
      location: "hostname:/path"
      opts: "vers=3,rsize=65535,wsize=65535"
      persist: true
      mkmnt: true
  unmount:
    someothername:
      mountpoint: "/some/other/path"
      location: "hostname:/other/path"
      persist: false
