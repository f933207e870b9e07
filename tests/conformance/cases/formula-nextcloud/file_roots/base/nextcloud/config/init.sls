# -*- coding: utf-8 -*-
# vim: ft=sls

include:
  - .file
  - .install_or_upgrade
  - .htaccess
