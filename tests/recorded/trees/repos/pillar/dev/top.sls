dev:
  '*':
    - common
    - dev_only
