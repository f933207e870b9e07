# -*- coding: utf-8 -*-
# vim: ft=sls

include:
  - .parameters.clean
  - .policies.clean
  - .bindings.clean
  - .exchanges.clean
  - .queues.clean
  - .vhosts.clean
  - .clusters.clean
  - .users.clean
  - .plugins.clean
  - .files.clean
