# -*- coding: utf-8 -*-
# vim: ft=sls

include:
  - supervisor.install
  - supervisor.config
  - supervisor.service
