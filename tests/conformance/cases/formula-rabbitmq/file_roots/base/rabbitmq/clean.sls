# -*- coding: utf-8 -*-
# vim: ft=sls

include:
  - .config.clean
  - .service.clean
  - .package.clean
