base:
  '*':
    - postgres
