# -*- coding: utf-8 -*-
# vim: ft=sls

include:
  - node.package.install   # full path for legacy symlinks
