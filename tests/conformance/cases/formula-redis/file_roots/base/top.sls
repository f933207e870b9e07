base:
  '*':
    - redis
