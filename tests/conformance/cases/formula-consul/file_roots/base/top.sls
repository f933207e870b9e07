base:
  '*':
    - consul
