base:
  '*':
    - sysstat
