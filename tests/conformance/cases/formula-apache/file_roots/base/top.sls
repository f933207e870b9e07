base:
  '*':
    - apache
