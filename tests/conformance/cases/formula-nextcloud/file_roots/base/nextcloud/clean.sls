# -*- coding: utf-8 -*-
# vim: ft=sls

include:
  - .apache.clean
  - .cron.clean
  - .config.clean
  - .package.clean
