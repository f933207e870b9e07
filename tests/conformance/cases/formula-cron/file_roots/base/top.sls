base:
  '*':
    - cron
