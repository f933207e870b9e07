# -*- coding: utf-8 -*-
# vim: ft=yaml

nextcloud-cron-cron-absent:
  cron.absent:
    - identifier: nextcloud_cron

