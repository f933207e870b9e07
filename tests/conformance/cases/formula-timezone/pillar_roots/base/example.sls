# -*- coding: utf-8 -*-
# vim: ft=yaml
---
timezone:
  name: 'Europe/Berlin'
  utc: true
