# -*- coding: utf-8 -*-
# vim: ft=sls

include:
  - node.package.repo.install
