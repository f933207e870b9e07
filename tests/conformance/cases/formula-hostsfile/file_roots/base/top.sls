base:
  '*':
    - hostsfile
