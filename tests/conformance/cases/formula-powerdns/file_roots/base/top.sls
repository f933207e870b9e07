base:
  '*':
    - powerdns
