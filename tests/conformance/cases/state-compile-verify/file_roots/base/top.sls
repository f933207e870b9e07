base:
  '*':
    - verify
