base:
  '*':
    - packages
