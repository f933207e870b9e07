base:
  '*':
    - dots
