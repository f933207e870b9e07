# -*- coding: utf-8 -*-
# vim: ft=sls

include:
  - .files
  - .vhosts
  - .users
  - .queues
  - .plugins
  - .exchanges
  - .bindings
  - .policies
  - .parameters
  - .clusters
