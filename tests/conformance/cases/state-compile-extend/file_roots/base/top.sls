base:
  '*':
    - base
    - ext
