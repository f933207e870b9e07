base:
  '*':
    - app
    - helper
