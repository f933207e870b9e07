base:
  '*':
    - devstack
