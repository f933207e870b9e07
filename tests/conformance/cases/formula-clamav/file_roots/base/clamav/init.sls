# -*- coding: utf-8 -*-
# vim: ft=sls

include:
  - clamav.freshclam
  - clamav.clamd
