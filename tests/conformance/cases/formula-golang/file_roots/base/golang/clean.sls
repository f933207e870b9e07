# -*- coding: utf-8 -*-
# vim: ft=sls

include:
  - .cmd.clean
  - .config.clean
  - .archive.clean
