base:
  '*':
    - uses
