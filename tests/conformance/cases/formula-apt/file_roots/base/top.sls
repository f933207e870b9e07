base:
  '*':
    - apt
