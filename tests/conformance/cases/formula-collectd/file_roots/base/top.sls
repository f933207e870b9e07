base:
  '*':
    - collectd
