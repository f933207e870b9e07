base:
  '*':
    - rin
    - lib
