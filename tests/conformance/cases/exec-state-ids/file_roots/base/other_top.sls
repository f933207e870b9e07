base:
  '*':
    - db
